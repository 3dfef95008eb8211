package library

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// libManyNotes writes n small Markdown notes of a few segments each.
func libManyNotes(t testing.TB, dir string, n int) {
	t.Helper()
	files := make(map[string]string, n)
	for i := range n {
		text := fmt.Sprintf("# Note %d\n\n", i)
		for j := range 6 {
			text += fmt.Sprintf("## Part %d\n\nNote %d part %d talks about topic %d and subject %d at some length, "+
				"so that each part is a segment of its own with words that differ from note to note.\n\n", j, i, j, i*7+j, i*13+j)
		}
		files[fmt.Sprintf("note-%03d.md", i)] = text
	}
	libWrite(t, dir, files)
}

// TestLibraryCancelledAdd cancels an add in the middle of a file: the
// documents that were whole are kept, the one being embedded is not, and
// the report says exactly what is in the library.
func TestLibraryCancelledAdd(t *testing.T) {
	tmp := libTestEnv(t)
	docs := filepath.Join(tmp, "docs")
	libManyNotes(t, docs, 40)
	l := libOpen(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rep, err := l.Add(ctx, []string{docs}, func(p AddProgress) {
		if p.Stage == "embed" && p.FilesDone == 5 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled add returned %v", err)
	}
	if len(rep.Added) != 5 {
		t.Fatalf("cancelled add reports %d added, want the 5 whole ones", len(rep.Added))
	}
	libSameDocs(t, l, rep)
	libCheckWhole(t, l)

	// Reopened, the library holds the same; adding again completes it.
	l.Close()
	l = libOpen(t, Options{})
	libSameDocs(t, l, rep)
	rep = libAdd(t, l, docs)
	if got := libCounts(rep); got != "35/5/0/0/0" {
		t.Fatalf("add after cancel: %s, want 35 added, 5 unchanged", got)
	}
	libCheckWhole(t, l)
}

// libSameDocs fails unless l holds exactly the documents rep added.
func libSameDocs(t *testing.T, l *Library, rep *AddReport) {
	t.Helper()
	want := map[string]bool{}
	for _, d := range rep.Added {
		want[d.ID] = true
	}
	got := mustDocs(t, l)
	if len(got) != len(want) {
		t.Fatalf("library holds %d documents, report says %d added", len(got), len(want))
	}
	for _, d := range got {
		if !want[d.ID] {
			t.Fatalf("library holds %s (%s), which the report does not list", d.ID, d.Path)
		}
	}
}

// TestLibraryKilledAdd SIGKILLs a child process that is adding a folder,
// at several moments (while loading, embedding and committing), and checks
// after each kill that the library holds whole documents only and that an
// add then completes it.
func TestLibraryKilledAdd(t *testing.T) {
	if dir := os.Getenv("IBID_TEST_KILL_DIR"); dir != "" {
		libKillChild(dir, os.Getenv("IBID_TEST_KILL_DOCS"))
		return
	}
	if testing.Short() {
		t.Skip("starts child processes")
	}
	tmp := libTestEnv(t)
	docs := filepath.Join(tmp, "docs")
	libManyNotes(t, docs, 150)
	libDir := filepath.Join(tmp, "lib")

	have := 0
	midway := false
	for round, killAfter := range []int{5, 120, 230, 260} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLibraryKilledAdd$", "-test.v=false")
		cmd.Env = append(os.Environ(), "IBID_TEST_KILL_DIR="+libDir, "IBID_TEST_KILL_DOCS="+docs)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines, killed := 0, false
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines++
			if lines == killAfter {
				cmd.Process.Kill()
				killed = true
				break
			}
		}
		cmd.Wait()
		if !killed {
			t.Logf("round %d: the child finished before line %d", round, killAfter)
		}

		l, err := Open(context.Background(), Options{Store: libDir})
		if err != nil {
			t.Fatalf("round %d: reopening after the kill: %v", round, err)
		}
		libCheckWhole(t, l)
		n := len(mustDocs(t, l))
		t.Logf("round %d: killed after %d progress lines; %d documents whole", round, killAfter, n)
		if n < have {
			t.Fatalf("round %d: %d documents, had %d before", round, n, have)
		}
		have = n
		midway = midway || killed && n > 0 && n < 150
		l.Close()
	}
	if !midway {
		t.Errorf("no kill came after a commit and before the end: the test proves nothing")
	}

	l := libOpen(t, Options{Store: libDir})
	rep := libAdd(t, l, docs)
	if len(rep.Added)+len(rep.Unchanged) != 150 || len(rep.Unchanged) != have {
		t.Fatalf("final add: %s, want %d unchanged and the rest added", libCounts(rep), have)
	}
	libCheckWhole(t, l)
}

// libKillChild is the child of TestLibraryKilledAdd: it adds the folder,
// printing a line at each step, until it is killed.
func libKillChild(libDir, docs string) {
	l, err := Open(context.Background(), Options{Store: libDir})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	w := bufio.NewWriter(os.Stdout)
	_, err = l.Add(context.Background(), []string{docs}, func(p AddProgress) {
		w.WriteString(p.Stage + " " + strconv.Itoa(p.FilesDone) + "\n")
		w.Flush()
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(0)
}
