package library

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/ibid-dev/ibid/store/embedded"
)

// damagedVectors builds a library of n notes in a folder store under tmp,
// zeroes its vector file (texts intact) and repairs it, as `ibid doctor
// --repair` does before it embeds again; it returns the store location and
// the notes' folder, and the vectors the documents had.
func damagedVectors(t *testing.T, tmp string, n int) (loc, docs string, want map[string][][]float32) {
	t.Helper()
	docs = filepath.Join(tmp, "docs")
	manyNotes(t, docs, n)
	loc = filepath.Join(tmp, "lib")
	l := mustOpen(t, Options{Store: loc})
	mustAdd(t, l, docs)
	want = map[string][][]float32{}
	for _, d := range mustDocs(t, l) {
		v, err := l.Store().Vectors(context.Background(), d.ID)
		if err != nil {
			t.Fatal(err)
		}
		want[d.ID] = v
	}
	l.Close()
	dir := filepath.Join(loc, DefaultName)
	vecs, _ := filepath.Glob(filepath.Join(dir, "vectors-*.f32"))
	if len(vecs) != 1 {
		t.Fatalf("vector files %v", vecs)
	}
	fi, err := os.Stat(vecs[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(vecs[0], make([]byte, fi.Size()), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := embedded.Repair(dir)
	if err != nil || len(rep.Unembedded) != n || rep.Documents != n {
		t.Fatalf("Repair = %+v, %v; want %d documents kept without vectors", rep, err, n)
	}
	return loc, docs, want
}

// sameVectors fails unless every document of l has the vectors want says.
func sameVectors(t *testing.T, l *Library, want map[string][][]float32) {
	t.Helper()
	for id, w := range want {
		got, err := l.Store().Vectors(context.Background(), id)
		if err != nil || len(got) != len(w) {
			t.Fatalf("document %s: %d vectors, %v", id, len(got), err)
		}
		for i := range w {
			if !slices.Equal(got[i], w[i]) {
				t.Fatalf("document %s: vector %d differs from the one it had", id, i)
			}
		}
	}
}

// TestReembed: after a repair kept documents whose vectors were lost, they
// are listed, Reembed embeds them again as Add did (the same vectors),
// reporting its progress, and they are found by dense search again.
func TestReembed(t *testing.T) {
	const n = 12
	loc, _, want := damagedVectors(t, parallelDir(t), n)
	l := mustOpen(t, Options{Store: loc})
	ctx := context.Background()
	waiting, err := l.Unembedded(ctx)
	if err != nil || len(waiting) != n {
		t.Fatalf("Unembedded = %d documents, %v; want %d", len(waiting), err, n)
	}
	var last ReembedProgress
	calls := 0
	done, err := l.Reembed(ctx, func(p ReembedProgress) {
		calls++
		if p.Documents < last.Documents || p.Segments < last.Segments || p.DocumentsTotal != n {
			t.Errorf("progress went from %+v to %+v", last, p)
		}
		last = p
	})
	if err != nil || done != n {
		t.Fatalf("Reembed = %d, %v; want %d", done, err, n)
	}
	if last.Documents != n || last.Segments != last.SegmentsTotal || last.SegmentsTotal != mustLen(t, l) || calls < n {
		t.Fatalf("last progress %+v after %d calls; want all %d documents and %d segments", last, calls, n, mustLen(t, l))
	}
	if waiting, _ := l.Unembedded(ctx); len(waiting) != 0 {
		t.Fatalf("still waiting: %d", len(waiting))
	}
	checkWhole(t, l)
	sameVectors(t, l, want)
	if done, err := l.Reembed(ctx, nil); done != 0 || err != nil {
		t.Fatalf("a second Reembed = %d, %v", done, err)
	}
}

// TestAddEmbedsUnembedded: adding the files again embeds the documents
// that wait for their vectors (they are re-indexed, not left unchanged).
func TestAddEmbedsUnembedded(t *testing.T) {
	const n = 5
	loc, docs, want := damagedVectors(t, parallelDir(t), n)
	l := mustOpen(t, Options{Store: loc})
	rep := mustAdd(t, l, docs)
	if len(rep.Reindexed) != n || len(rep.Unchanged) != 0 {
		t.Fatalf("add again: %d re-indexed, %s; want %d re-indexed", len(rep.Reindexed), counts(rep), n)
	}
	if waiting, _ := l.Unembedded(context.Background()); len(waiting) != 0 {
		t.Fatalf("still waiting: %d", len(waiting))
	}
	sameVectors(t, l, want)
}

// TestReembedKilled SIGKILLs a child process that embeds again, at several
// moments, and checks after each kill that no document was lost, that what
// waits only shrinks, and that a last Reembed finishes the work.
func TestReembedKilled(t *testing.T) {
	if loc := os.Getenv("IBID_TEST_REEMBED_LOC"); loc != "" {
		reembedChild(loc)
		return
	}
	if testing.Short() {
		t.Skip("starts child processes")
	}
	const n = 60
	loc, _, want := damagedVectors(t, parallelDir(t), n)
	waiting := n
	midway := false
	for round, killAfter := range []int{3, 30, 30, 20} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestReembedKilled$", "-test.v=false")
		cmd.Env = append(os.Environ(), "IBID_TEST_REEMBED_LOC="+loc)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines, killed := 0, false
		for sc := bufio.NewScanner(out); sc.Scan(); {
			if lines++; lines == killAfter {
				cmd.Process.Kill()
				killed = true
				break
			}
		}
		cmd.Wait()
		l, err := Open(context.Background(), Options{Store: loc})
		if err != nil {
			t.Fatalf("round %d: reopening after the kill: %v", round, err)
		}
		if err := l.Damage(); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if got := len(mustDocs(t, l)); got != n {
			t.Fatalf("round %d: %d documents, want %d", round, got, n)
		}
		checkWhole(t, l)
		left, err := l.Unembedded(context.Background())
		if err != nil || len(left) > waiting {
			t.Fatalf("round %d: %d wait, %d did before (%v)", round, len(left), waiting, err)
		}
		t.Logf("round %d: killed (%v) after %d lines; %d documents wait", round, killed, killAfter, len(left))
		midway = midway || killed && len(left) > 0 && len(left) < n
		waiting = len(left)
		l.Close()
	}
	if !midway {
		t.Errorf("no kill came after a document and before the end: the test proves nothing")
	}
	l := mustOpen(t, Options{Store: loc})
	if done, err := l.Reembed(context.Background(), nil); err != nil || done != waiting {
		t.Fatalf("final Reembed = %d, %v; want %d", done, err, waiting)
	}
	sameVectors(t, l, want)
}

// reembedChild is the child of TestReembedKilled: it embeds again, printing
// a line at each step, until it is killed.
func reembedChild(loc string) {
	l, err := Open(context.Background(), Options{Store: loc})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	w := bufio.NewWriter(os.Stdout)
	_, err = l.Reembed(context.Background(), func(p ReembedProgress) {
		w.WriteString(strconv.Itoa(p.Documents) + " " + strconv.Itoa(p.Segments) + "\n")
		w.Flush()
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(0)
}
