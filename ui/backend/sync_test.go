package backend

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/rag/library"
	"github.com/ibid-dev/ibid/store"

	_ "github.com/ibid-dev/ibid/store/embedded"
)

// TestWatchReports: a RAG watching its library's folder reports a file
// written into it, then deleted, as the chat's status line needs it: the
// summary naming the file, and the library's new count.
func TestWatchReports(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	ctx := context.Background()
	papers := t.TempDir() // the folder the library follows
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(papers, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("tides.md", "# Tides\n\nSpring tides come at new and full moon.\n")
	lib, err := library.Open(ctx, library.Options{Name: "watched", Store: t.TempDir()})
	if err == nil {
		_, err = lib.AddWith(ctx, []string{papers}, library.AddOptions{Follow: true}, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	b := NewRAG(lib, nil, rag.PipelineOptions{}, nil, nil)
	defer b.Close()
	if b.SyncEvents() != nil {
		t.Fatal("events before Watch")
	}
	b.Watch(library.WatchOptions{Debounce: 150 * time.Millisecond, Poll: time.Minute})
	ch := b.SyncEvents()

	// settled waits for the first event that says what a sync did. An
	// event that only ends progress may come first: the watcher's first
	// sync can meet kingfisher.md half written and leave it to the next.
	settled := func(what string) SyncEvent {
		t.Helper()
		timeout := time.After(30 * time.Second)
		for {
			select {
			case ev := <-ch:
				if ev.Err != nil {
					t.Fatalf("%s: %v", what, ev.Err)
				}
				if !ev.Active && ev.Summary != "" {
					return ev
				}
			case <-timeout:
				t.Fatalf("%s: no event in 30 s", what)
			}
		}
	}
	write("kingfisher.md", "# Kingfishers\n\nKingfishers dive for fish from a perch above the water.\n")
	if ev := settled("an added file"); ev.Summary != "synced with its folders: added kingfisher.md" || ev.Docs != 2 {
		t.Errorf("after an added file: %+v", ev)
	}
	if name, n, err := b.LibraryCount(); name != "watched" || n != 2 || err != nil {
		t.Errorf("LibraryCount: %q %d %v", name, n, err)
	}
	if err := os.Remove(filepath.Join(papers, "kingfisher.md")); err != nil {
		t.Fatal(err)
	}
	if ev := settled("a deleted file"); ev.Summary != "synced with its folders: removed kingfisher.md" || ev.Docs != 1 {
		t.Errorf("after a deleted file: %+v", ev)
	}
}

// syncSummary names up to two files a kind, counts more, and says why
// the first skipped file was skipped.
func TestSyncSummary(t *testing.T) {
	docs := func(paths ...string) []store.Document {
		var out []store.Document
		for _, p := range paths {
			out = append(out, store.Document{Path: p})
		}
		return out
	}
	rep := &library.SyncReport{
		Add: &library.AddReport{
			Added:    docs("/p/a.pdf", "/p/b.md", "/p/c.md"),
			Replaced: docs("/p/d.md"),
			Skipped:  []*ingest.SkipError{{Path: "/p/e.bin", Reason: "not a document"}},
		},
		Removed: docs("/p/old/f.md", "/p/old/g.md"),
	}
	got := syncSummary(rep)
	want := "added 3 files; replaced d.md; removed f.md, g.md; skipped 1 (/p/e.bin: not a document)"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
