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
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/internal/figures"
)

// manyNotes writes n small Markdown notes of a few segments each.
func manyNotes(t testing.TB, dir string, n int) {
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
	writeFiles(t, dir, files)
}

// TestLibraryCancelledAdd cancels an add in the middle of a file: the
// documents that were whole are kept, the one being embedded is not, and
// the report says exactly what is in the library.
func TestLibraryCancelledAdd(t *testing.T) {
	tmp := testEnv(t)
	docs := filepath.Join(tmp, "docs")
	manyNotes(t, docs, 40)
	l := mustOpen(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rep, err := l.Add(ctx, []string{docs}, func(p AddProgress) {
		if p.Stage == StageEmbed && p.FilesDone == 5 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled add returned %v", err)
	}
	if len(rep.Added) != 5 {
		t.Fatalf("cancelled add reports %d added, want the 5 whole ones", len(rep.Added))
	}
	sameDocs(t, l, rep)
	checkWhole(t, l)

	// Reopened, the library holds the same; adding again completes it.
	l.Close()
	l = mustOpen(t, Options{})
	sameDocs(t, l, rep)
	rep = mustAdd(t, l, docs)
	if got := counts(rep); got != "35/5/0/0/0" {
		t.Fatalf("add after cancel: %s, want 35 added, 5 unchanged", got)
	}
	checkWhole(t, l)
}

// sameDocs fails unless l holds exactly the documents rep added.
func sameDocs(t *testing.T, l *Library, rep *AddReport) {
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
// add then completes it. A folder of 60 notes by default, of 150 with
// IBID_FIGURES=1 as CI runs it.
func TestLibraryKilledAdd(t *testing.T) {
	if dir := os.Getenv("IBID_TEST_KILL_DIR"); dir != "" {
		killChild(dir, os.Getenv("IBID_TEST_KILL_DOCS"))
		return
	}
	if testing.Short() {
		t.Skip("starts child processes")
	}
	notes, kills := 60, []int{5, 60, 110, 130}
	if figures.Enabled() {
		notes, kills = 150, []int{5, 120, 230, 260}
	}
	tmp := parallelDir(t)
	docs := filepath.Join(tmp, "docs")
	manyNotes(t, docs, notes)
	folderOf := filepath.Join(tmp, "lib")

	have := 0
	midway := false
	for round, killAfter := range kills {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLibraryKilledAdd$", "-test.v=false")
		cmd.Env = append(os.Environ(), "IBID_TEST_KILL_DIR="+folderOf, "IBID_TEST_KILL_DOCS="+docs)
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

		l, err := Open(context.Background(), Options{Store: folderOf, OCRDPI: testOCRDPI})
		if err != nil {
			t.Fatalf("round %d: reopening after the kill: %v", round, err)
		}
		checkWhole(t, l)
		n := len(mustDocs(t, l))
		t.Logf("round %d: killed after %d progress lines; %d documents whole", round, killAfter, n)
		if n < have {
			t.Fatalf("round %d: %d documents, had %d before", round, n, have)
		}
		have = n
		midway = midway || killed && n > 0 && n < notes
		l.Close()
	}
	if !midway {
		t.Errorf("no kill came after a commit and before the end: the test proves nothing")
	}

	l := mustOpen(t, Options{Store: folderOf})
	rep := mustAdd(t, l, docs)
	if len(rep.Added)+len(rep.Unchanged) != notes || len(rep.Unchanged) != have {
		t.Fatalf("final add: %s, want %d unchanged and the rest added", counts(rep), have)
	}
	checkWhole(t, l)
}

// killChild is the child of TestLibraryKilledAdd: it adds the folder,
// printing a line at each step, until it is killed.
func killChild(folderOf, docs string) {
	l, err := Open(context.Background(), Options{Store: folderOf})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	w := bufio.NewWriter(os.Stdout)
	_, err = l.Add(context.Background(), []string{docs}, func(p AddProgress) {
		w.WriteString(p.Stage.String() + " " + strconv.Itoa(p.FilesDone) + "\n")
		w.Flush()
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(0)
}

// TestLibraryKilledSync SIGKILLs a child process that is syncing a
// followed folder (new files to add, changed ones to replace, deleted ones
// to remove), at several moments, and checks after each kill that the
// library holds whole documents only, each the text of its file as it is
// or as it was; a sync then brings it in step with the folder. A folder
// of 8 notes that grows to 56 by default, of 20 that grows to 140 with
// IBID_FIGURES=1 as CI runs it.
func TestLibraryKilledSync(t *testing.T) {
	if dir := os.Getenv("IBID_TEST_KILL_SYNC"); dir != "" {
		killSyncChild(dir)
		return
	}
	if testing.Short() {
		t.Skip("starts child processes")
	}
	first, total, changed, deleted, kills := 8, 56, 4, 2, []int{3, 60, 110, 130}
	if figures.Enabled() {
		first, total, changed, deleted, kills = 20, 140, 10, 5, []int{3, 100, 250, 400}
	}
	left := total - deleted // the folder's notes at the end
	tmp := parallelDir(t)
	docs := filepath.Join(tmp, "docs")
	manyNotes(t, docs, first)
	lib := filepath.Join(tmp, "lib")
	l := mustOpen(t, Options{Store: lib})
	follow(t, l, docs)
	l.Close()
	// Then: total-first new notes, changed changed, deleted deleted.
	more := filepath.Join(tmp, "more")
	manyNotes(t, more, total)
	for i := first; i < total; i++ {
		name := fmt.Sprintf("note-%03d.md", i)
		if err := os.Rename(filepath.Join(more, name), filepath.Join(docs, name)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range changed {
		writeFiles(t, docs, map[string]string{fmt.Sprintf("note-%03d.md", i): note(fmt.Sprintf("Changed %d", i), "Changed note about kingfishers.")})
	}
	for i := changed; i < changed+deleted; i++ {
		os.Remove(filepath.Join(docs, fmt.Sprintf("note-%03d.md", i)))
	}

	midway := false
	for round, killAfter := range kills {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLibraryKilledSync$", "-test.v=false")
		cmd.Env = append(os.Environ(), "IBID_TEST_KILL_SYNC="+lib)
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

		l, err := Open(context.Background(), Options{Store: lib})
		if err != nil {
			t.Fatalf("round %d: reopening after the kill: %v", round, err)
		}
		checkWhole(t, l)
		n := 0
		for _, d := range mustDocs(t, l) {
			text := strings.Join(segTexts(t, l, d.ID), " ")
			name := filepath.Base(d.Path)
			var i int
			fmt.Sscanf(name, "note-%03d.md", &i)
			old, changed := fmt.Sprintf("Note %d", i), fmt.Sprintf("Changed %d", i)
			if !strings.Contains(text, old) && !strings.Contains(text, changed) {
				t.Fatalf("round %d: %s holds neither its old nor its new text: %.100q", round, name, text)
			}
			n++
		}
		t.Logf("round %d: killed after %d progress lines (killed: %v); %d documents, all whole", round, killAfter, killed, n)
		midway = midway || killed && n > first && n < left
		l.Close()
	}
	if !midway {
		t.Errorf("no kill came after a commit and before the end: the test proves nothing")
	}

	l = mustOpen(t, Options{Store: lib})
	mustSync(t, l, SyncOptions{})
	checkWhole(t, l)
	got := paths(t, l, docs)
	if len(got) != left {
		t.Fatalf("after the final sync the library holds %d documents, want the folder's %d", len(got), left)
	}
	for _, d := range mustDocs(t, l) {
		var i int
		fmt.Sscanf(filepath.Base(d.Path), "note-%03d.md", &i)
		if text := strings.Join(segTexts(t, l, d.ID), " "); i < changed && !strings.Contains(text, fmt.Sprintf("Changed %d", i)) {
			t.Fatalf("%s was not replaced: %.100q", d.Path, text)
		}
	}
	if rep := mustSync(t, l, SyncOptions{}); rep.Changed() || rep.Unchanged != left {
		t.Fatalf("a sync after the final one: %s", rep.Summary())
	}
}

// segTexts is a document's segment texts.
func segTexts(t *testing.T, l *Library, id string) []string {
	var out []string
	for _, s := range mustSegs(t, l, id) {
		out = append(out, s.Text)
	}
	return out
}

// killSyncChild is the child of TestLibraryKilledSync: it syncs the
// library at lib, printing a line at each step, until it is killed.
func killSyncChild(lib string) {
	l, err := Open(context.Background(), Options{Store: lib})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	w := bufio.NewWriter(os.Stdout)
	_, err = l.Sync(context.Background(), SyncOptions{}, func(p AddProgress) {
		w.WriteString(p.Stage.String() + " " + strconv.Itoa(p.FilesDone) + "\n")
		w.Flush()
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(0)
}
