package library

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/store"
)

// follow adds paths to l and follows them, failing the test on error.
func follow(t *testing.T, l *Library, paths ...string) *AddReport {
	t.Helper()
	rep, err := l.AddWith(context.Background(), paths, AddOptions{Follow: true}, nil)
	if err != nil {
		t.Fatalf("AddWith(%v, Follow): %v", paths, err)
	}
	return rep
}

func mustSync(t *testing.T, l *Library, opt SyncOptions) *SyncReport {
	t.Helper()
	rep, err := l.Sync(context.Background(), opt, nil)
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	return rep
}

// paths is the sorted paths of l's documents, relative to dir.
func paths(t *testing.T, l *Library, dir string) []string {
	t.Helper()
	var out []string
	for _, d := range mustDocs(t, l) {
		rel, err := filepath.Rel(dir, d.Path)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rel)
	}
	slices.Sort(out)
	return out
}

// holds reports whether keyword search finds word in l.
func holds(t *testing.T, l *Library, word string) bool {
	t.Helper()
	hits, err := l.Store().Keyword(context.Background(), word, 3, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	return len(hits) > 0
}

func note(title, body string) string {
	return "# " + title + "\n\n" + body + "\n"
}

// keepTime writes content to path keeping its modification time, as a
// tool that restores times would.
func keepTime(t *testing.T, path, content string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
}

// TestSyncFolder: a followed folder's new files are added, changed ones
// replaced, deleted ones removed, moved ones keep their document; the
// summary says so in one line; files outside it are left alone.
func TestSyncFolder(t *testing.T) {
	tmp := testEnv(t)
	dir := filepath.Join(tmp, "papers")
	writeFiles(t, dir, map[string]string{
		"a.md":     note("Alpha", "Alpha talks about glaciers."),
		"b.md":     note("Beta", "Beta talks about volcanoes."),
		"c.md":     note("Gamma", "Gamma talks about rivers."),
		"sub/d.md": note("Delta", "Delta talks about deserts."),
	})
	other := filepath.Join(tmp, "other.md")
	writeFiles(t, tmp, map[string]string{"other.md": note("Other", "Not followed.")})
	l := mustOpen(t, Options{})
	follow(t, l, dir)
	mustAdd(t, l, other) // added, not followed
	roots, err := l.Roots(context.Background())
	if err != nil || len(roots) != 1 || roots[0].Path != dir || roots[0].Kind != KindFolder || roots[0].Strategy == "" {
		t.Fatalf("Roots = %+v, %v; want the folder", roots, err)
	}

	rep := mustSync(t, l, SyncOptions{})
	if rep.Changed() || rep.Unchanged != 4 || len(rep.Add.Unchanged) != 0 {
		t.Fatalf("sync of an unchanged folder: %s; %d found unchanged by stat, %d read", rep.Summary(), rep.Unchanged, len(rep.Add.Unchanged))
	}

	writeFiles(t, dir, map[string]string{"e.md": note("Epsilon", "Epsilon talks about oceans.")})
	writeFiles(t, dir, map[string]string{"b.md": note("Beta", "Beta talks about volcanoes and lava now.")})
	if err := os.Remove(filepath.Join(dir, "c.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "sub/d.md"), filepath.Join(dir, "d-moved.md")); err != nil {
		t.Fatal(err)
	}
	rep = mustSync(t, l, SyncOptions{})
	want := "1 added, 1 replaced, 1 moved, 1 removed, 1 unchanged (1 followed path)"
	if got := rep.Summary(); got != want {
		t.Fatalf("Summary = %q, want %q", got, want)
	}
	if got := paths(t, l, tmp); !slices.Equal(got, []string{"other.md", "papers/a.md", "papers/b.md", "papers/d-moved.md", "papers/e.md"}) {
		t.Fatalf("library after the sync: %v", got)
	}
	checkWhole(t, l)
	if !holds(t, l, "lava") {
		t.Fatal("the changed text is not found")
	}

	// The outside file is not the folder's: deleting it is not the sync's business.
	if err := os.Remove(other); err != nil {
		t.Fatal(err)
	}
	if rep = mustSync(t, l, SyncOptions{}); rep.Changed() || len(mustDocs(t, l)) != 5 {
		t.Fatalf("sync after a file outside the roots went: %s", rep.Summary())
	}
}

// TestSyncReadsOnlyChanged: a file whose size and time are unchanged is
// not read (its new bytes of the same length, written with the old time
// restored, go unseen by sync and by a re-add), and is read again once its
// time changes. A file from before stats were recorded is read once and
// then recorded.
func TestSyncReadsOnlyChanged(t *testing.T) {
	tmp := testEnv(t)
	dir := filepath.Join(tmp, "papers")
	path := filepath.Join(dir, "a.md")
	writeFiles(t, dir, map[string]string{"a.md": note("Alpha", "The word is heron.")})
	l := mustOpen(t, Options{})
	follow(t, l, dir)
	keepTime(t, path, note("Alpha", "The word is egret."))

	if rep := mustSync(t, l, SyncOptions{}); rep.Changed() || rep.Unchanged != 1 {
		t.Fatalf("sync: %s, want the file unchanged by its size and time", rep.Summary())
	}
	if rep := mustAdd(t, l, dir); counts(rep) != "0/1/0/0/0" {
		t.Fatalf("re-add: %s, want unchanged without reading", counts(rep))
	}
	if holds(t, l, "egret") {
		t.Fatal("the file was read: egret is in the library")
	}

	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	if rep := mustSync(t, l, SyncOptions{}); len(rep.Add.Replaced) != 1 {
		t.Fatalf("sync after touch: %s, want it replaced", rep.Summary())
	}
	if !holds(t, l, "egret") {
		t.Fatal("after touch the new text is not in the library")
	}

	// A document without recorded stats (added by an older ibid): read
	// once, found unchanged by its hash, and its stats recorded.
	docs := mustDocs(t, l)
	d := docs[0]
	delete(d.Meta, MetaFileSize)
	delete(d.Meta, MetaFileModified)
	put, err := l.reput(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Store().Update(context.Background(), []store.Put{put}, nil); err != nil {
		t.Fatal(err)
	}
	rep := mustSync(t, l, SyncOptions{})
	if rep.Changed() || len(rep.Add.Unchanged) != 1 || rep.Unchanged != 0 {
		t.Fatalf("first sync of an old document: %s (%d read and unchanged)", rep.Summary(), len(rep.Add.Unchanged))
	}
	if _, ok := docStat(mustDocs(t, l)[0]); !ok {
		t.Fatal("the old document's stats were not recorded")
	}
	if rep := mustSync(t, l, SyncOptions{}); rep.Unchanged != 1 {
		t.Fatalf("second sync of an old document: %s, want it unchanged by stat", rep.Summary())
	}
}

// TestSyncHoldsMassRemovals: deleting a followed folder, or most of it,
// does not empty the library: the removals are held and the summary says
// how to prune; a few deletions are removed at once; Prune removes what
// was held.
func TestSyncHoldsMassRemovals(t *testing.T) {
	tmp := testEnv(t)
	dir := filepath.Join(tmp, "papers")
	manyNotes(t, dir, 20)
	l := mustOpen(t, Options{})
	follow(t, l, dir)

	for _, i := range []int{1, 2, 3} {
		os.Remove(filepath.Join(dir, "note-00"+string(rune('0'+i))+".md"))
	}
	if rep := mustSync(t, l, SyncOptions{}); len(rep.Removed) != 3 || len(rep.Held) != 0 {
		t.Fatalf("3 of 20 deleted: %s", rep.Summary())
	}

	for i := 4; i < 16; i++ { // 12 of the 17 left
		os.Remove(filepath.Join(dir, "note-0"+twoDigits(i)+".md"))
	}
	rep := mustSync(t, l, SyncOptions{})
	if len(rep.Removed) != 0 || len(rep.Held) != 12 || rep.Under != 17 || len(mustDocs(t, l)) != 17 {
		t.Fatalf("12 of 17 deleted: %s; %d held, %d documents", rep.Summary(), len(rep.Held), len(mustDocs(t, l)))
	}
	if !strings.Contains(rep.Summary(), "12 of the 17 documents under the followed folders are gone: 12 documents kept (ibid sync --prune removes them") {
		t.Fatalf("summary does not say what was held and how to prune: %s", rep.Summary())
	}

	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	rep = mustSync(t, l, SyncOptions{})
	if len(rep.Removed) != 0 || len(rep.Held) != 17 || len(rep.Missing) != 1 {
		t.Fatalf("folder deleted: %s", rep.Summary())
	}
	if !strings.Contains(rep.Summary(), dir+" is gone: 17 documents kept") {
		t.Fatalf("summary does not name the gone folder: %s", rep.Summary())
	}
	if rep = mustSync(t, l, SyncOptions{Prune: true}); len(rep.Removed) != 17 || len(mustDocs(t, l)) != 0 {
		t.Fatalf("prune: %s", rep.Summary())
	}
	// The folder is still followed: made again, its files come back.
	manyNotes(t, dir, 2)
	if rep = mustSync(t, l, SyncOptions{}); len(rep.Add.Added) != 2 {
		t.Fatalf("folder made again: %s", rep.Summary())
	}
}

func twoDigits(i int) string { return string(rune('0'+i/10)) + string(rune('0'+i%10)) }

// TestSyncSettle: a file still being written during the settle interval
// is left for the next sync, which reads it whole.
func TestSyncSettle(t *testing.T) {
	tmp := testEnv(t)
	dir := filepath.Join(tmp, "papers")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	l := mustOpen(t, Options{})
	follow(t, l, dir)
	roots, _ := l.Roots(context.Background())
	if len(roots) != 1 {
		t.Fatalf("an empty folder is not followed: %+v", roots)
	}

	path := filepath.Join(dir, "growing.md")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("# Growing\n\nThe first half about herons.\n")
	done := make(chan struct{})
	go func() { // writes on through the settle interval
		defer close(done)
		for i := 0; i < 6; i++ {
			time.Sleep(40 * time.Millisecond)
			f.WriteString("More about herons and egrets.\n")
		}
		f.WriteString("\nThe last line about cormorants.\n")
		f.Close()
	}()
	rep := mustSync(t, l, SyncOptions{Settle: 150 * time.Millisecond})
	<-done
	if len(rep.Unsettled) != 1 || len(rep.Add.Added) != 0 || !strings.Contains(rep.Summary(), "1 file still being written") {
		t.Fatalf("sync during the write: %s", rep.Summary())
	}
	rep = mustSync(t, l, SyncOptions{Settle: 50 * time.Millisecond})
	if len(rep.Add.Added) != 1 {
		t.Fatalf("sync after the write: %s", rep.Summary())
	}
	if !holds(t, l, "cormorants") {
		t.Fatal("the file was not read whole")
	}
}

// TestSyncRemembersSkips: a file an add that follows or a sync skipped
// is not opened again
// while unchanged (its bytes replaced by a readable note of the same size,
// with the old time, stay skipped), and is tried again once it changes.
func TestSyncRemembersSkips(t *testing.T) {
	tmp := testEnv(t)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(tmp, "cache")) // this test's own memory
	dir := filepath.Join(tmp, "papers")
	bad := "\x00\x01binary bytes that are no text at all......."
	writeFiles(t, dir, map[string]string{"a.md": note("Alpha", "About herons."), "b.txt": bad})
	l := mustOpen(t, Options{})
	follow(t, l, dir)
	if err := os.WriteFile(filepath.Join(dir, "c.txt"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := mustSync(t, l, SyncOptions{})
	if len(rep.Add.Skipped) != 1 || rep.KnownSkips != 1 || rep.Add.Skipped[0].Path != filepath.Join(dir, "c.txt") {
		t.Fatalf("first sync: %s; skipped %v", rep.Summary(), rep.Add.Skipped)
	}
	good := "About egrets, a note of the very same size..." // as long as bad
	if len(good) != len(bad) {
		t.Fatalf("test data: %d and %d bytes", len(good), len(bad))
	}
	keepTime(t, filepath.Join(dir, "c.txt"), good)

	l.Close()
	l = mustOpen(t, Options{}) // the memory outlives the process
	rep = mustSync(t, l, SyncOptions{})
	if rep.KnownSkips != 2 || len(rep.Add.Skipped) != 0 || rep.Changed() {
		t.Fatalf("second sync: %s (known skips %d), want c.txt not opened", rep.Summary(), rep.KnownSkips)
	}
	later := time.Now().Add(time.Minute)
	os.Chtimes(filepath.Join(dir, "c.txt"), later, later)
	if rep = mustSync(t, l, SyncOptions{}); len(rep.Add.Added) != 1 {
		t.Fatalf("after touch: %s, want c.txt added", rep.Summary())
	}
}

// TestSyncGlobAndFileRoots: a glob follows what it matches (a new match
// is added, a file it no longer matches is not), a file root is followed
// itself, and a root under a followed folder is not remembered twice;
// Forget stops following and keeps the documents.
func TestSyncGlobAndFileRoots(t *testing.T) {
	tmp := testEnv(t)
	dir := filepath.Join(tmp, "notes")
	writeFiles(t, dir, map[string]string{"a.md": note("A", "About herons."), "x.txt": "A text about cranes.\n"})
	single := filepath.Join(tmp, "single.md")
	writeFiles(t, tmp, map[string]string{"single.md": note("Single", "About storks.")})
	l := mustOpen(t, Options{})
	follow(t, l, filepath.Join(dir, "*.md"), single)
	roots, _ := l.Roots(context.Background())
	if len(roots) != 2 || roots[0].Kind != KindGlob || roots[1].Kind != KindFile {
		t.Fatalf("roots: %+v", roots)
	}
	writeFiles(t, dir, map[string]string{"b.md": note("B", "About ibises."), "y.txt": "About pelicans.\n"})
	writeFiles(t, tmp, map[string]string{"single.md": note("Single", "About storks and their nests.")})
	rep := mustSync(t, l, SyncOptions{})
	if len(rep.Add.Added) != 1 || len(rep.Add.Replaced) != 1 || filepath.Base(rep.Add.Added[0].Path) != "b.md" {
		t.Fatalf("sync: %s", rep.Summary())
	}
	os.Remove(single)
	os.Remove(filepath.Join(dir, "a.md"))
	if rep = mustSync(t, l, SyncOptions{}); len(rep.Removed) != 2 || len(rep.Held) != 0 {
		t.Fatalf("sync after deletes: %s", rep.Summary())
	}

	// A folder covers the roots under it; a root under it is not added.
	follow(t, l, dir)
	follow(t, l, filepath.Join(dir, "b.md"))
	roots, _ = l.Roots(context.Background())
	var got []string
	for _, r := range roots {
		got = append(got, r.Path)
	}
	if !slices.Equal(got, []string{dir, single}) { // the folder covers the glob
		t.Fatalf("roots after following the folder: %v", got)
	}
	gone, err := l.Forget(context.Background(), dir)
	if err != nil || len(gone) != 1 {
		t.Fatalf("Forget: %v, %v", gone, err)
	}
	if n := len(mustDocs(t, l)); n != 3 {
		t.Fatalf("Forget removed documents: %d left", n)
	}
}

// TestSyncReadsTheListingGiven: a sync given the roots' listing (a
// watcher's, taken to see whether anything changed) reads the files from
// it and lists nothing again: a file made after the listing waits for the
// next sync. A listing of other roots than those followed is not used.
func TestSyncReadsTheListingGiven(t *testing.T) {
	tmp := testEnv(t)
	dir := filepath.Join(tmp, "papers")
	writeFiles(t, dir, map[string]string{"a.md": note("Alpha", "About herons.")})
	l := mustOpen(t, Options{})
	follow(t, l, dir)
	ctx := context.Background()
	writeFiles(t, dir, map[string]string{"b.md": note("Beta", "About egrets.")})
	roots, err := l.Roots(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ls, err := listRoots(ctx, roots, nil)
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"c.md": note("Gamma", "About storks.")})
	rep, err := l.sync(ctx, SyncOptions{}, ls, nil)
	if err != nil || len(rep.Add.Added) != 1 || rep.Add.Added[0].Path != filepath.Join(dir, "b.md") {
		t.Fatalf("sync over the listing: %s, %v", rep.Summary(), err)
	}
	other := &listing{roots: []Root{{Path: filepath.Join(tmp, "elsewhere"), Kind: KindFolder}}, missing: []bool{true},
		files: make([][]listedFile, 1), skipped: make([][]*ingest.SkipError, 1)}
	rep, err = l.sync(ctx, SyncOptions{}, other, nil)
	if err != nil || len(rep.Add.Added) != 1 || rep.Add.Added[0].Path != filepath.Join(dir, "c.md") || len(rep.Missing) != 0 {
		t.Fatalf("sync over another root's listing: %s, %v", rep.Summary(), err)
	}
}
