package ui

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/ingest/pdf/pdftest"
	"github.com/ibid-dev/ibid/rag/library"
	"github.com/ibid-dev/ibid/ui/backend"
)

// TestStatusLineSync: with the backend watching the library's folder, a
// file written into it while the chat is open shows on the status line
// (what was added, the new count) without a key pressed, and can be found;
// a deleted one leaves, and the status line says so. An answer is never
// waited for: a question asked meanwhile is answered.
func TestStatusLineSync(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("XDG_CACHE_HOME", pdftest.CacheHome(t)) // pdfium compiled once, not per test
	ctx := context.Background()
	dir := t.TempDir()
	papers := filepath.Join(dir, "papers")
	write := func(name, text string) {
		if err := os.MkdirAll(papers, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(papers, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("tides.md", "# Tides\n\nSpring tides come at new and full moon.\n")
	lib, err := library.Open(ctx, library.Options{Name: "watched", Store: filepath.Join(dir, "store")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lib.AddWith(ctx, []string{papers}, library.AddOptions{Follow: true}, nil); err != nil {
		t.Fatal(err)
	}
	b := backend.NewRAG(lib, nil, rag.PipelineOptions{}, nil, nil)
	b.Watch(library.WatchOptions{Debounce: 150 * time.Millisecond, Poll: time.Minute})
	defer b.Close()
	opt := darkOpt()
	opt.LibraryPoll = -1 // the count comes with the sync, not from a poll
	tm := newTMOpt(t, b, opt, 120, 30)
	waitScreen(t, tm, "1 docs")

	write("kingfisher.md", "# Kingfishers\n\nKingfishers dive for fish from a perch above the water.\n")
	waitScreen(t, tm, "synced with its folders: added kingfisher.md", "2 docs")
	tm.Type("what do kingfishers dive for")
	tm.Send(press("enter"))
	waitScreen(t, tm, "Kingfishers dive for fish")

	os.Remove(filepath.Join(papers, "kingfisher.md"))
	waitScreen(t, tm, "synced with its folders: removed kingfisher.md", "1 docs")
	tm.Send(press("ctrl+c"))
	final(t, tm)
}

// syncBackend is a fake whose background sync events a test sends.
type syncBackend struct {
	*fakeBackend
	ch chan backend.SyncEvent
}

func (b *syncBackend) SyncEvents() <-chan backend.SyncEvent { return b.ch }

// TestSyncStatusParts: a sync reading files shows its progress on the
// right of the status line (an answer's activity first), what it did and
// held removals after it, and a failure as an error.
func TestSyncStatusParts(t *testing.T) {
	t.Parallel()
	b := &syncBackend{fakeBackend: newFakeBackend(sampleAnswer), ch: make(chan backend.SyncEvent, 4)}
	m := New(b, darkOpt())
	m.width = 120
	if cmd := m.onSync(syncMsg{backend.SyncEvent{Active: true, Done: 1, Of: 3, File: "/papers/new.pdf", Docs: -1}, b.ch}); cmd == nil {
		t.Fatal("no command waits for the next event")
	}
	line := strings.Join(m.statusLines(), "\n")
	if !strings.Contains(line, "syncing 1/3 files") || !strings.Contains(line, "new.pdf") {
		t.Fatalf("status while syncing: %q", line)
	}
	m.stream = &answerStream{}
	if line := strings.Join(m.statusLines(), "\n"); strings.Contains(line, "syncing") || !strings.Contains(line, "answering") {
		t.Fatalf("status while answering and syncing: %q", line)
	}
	m.stream = nil

	m.onSync(syncMsg{backend.SyncEvent{Summary: "synced with its folders: added new.pdf", Docs: 4}, b.ch})
	line = strings.Join(m.statusLines(), "\n")
	if strings.Contains(line, "syncing") || !strings.Contains(line, "added new.pdf") || !strings.Contains(line, "4 docs") {
		t.Fatalf("status after the sync: %q", line)
	}
	m.onSync(syncMsg{backend.SyncEvent{Held: "/papers is gone: 3 documents kept (ibid sync --prune removes them)", Docs: -1}, b.ch})
	if m.status.err == "" || !strings.Contains(m.status.err, "ibid sync --prune") {
		t.Fatalf("held removals: %+v", m.status)
	}
	m.onSync(syncMsg{backend.SyncEvent{Err: errors.New("disk full"), Docs: -1}, b.ch})
	if !strings.Contains(m.status.err, "couldn't sync the library with its folders: disk full") {
		t.Fatalf("a failed sync: %+v", m.status)
	}
	if waitSync(nil) != nil {
		t.Error("a backend without syncing waits for events")
	}
}
