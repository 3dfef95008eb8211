package library

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// watchLog collects a watcher's events for a test.
type watchLog struct {
	mu     sync.Mutex
	events []WatchEvent
	ch     chan WatchEvent
}

func newWatchLog() *watchLog { return &watchLog{ch: make(chan WatchEvent, 1024)} }

func (w *watchLog) report(ev WatchEvent) {
	w.mu.Lock()
	w.events = append(w.events, ev)
	w.mu.Unlock()
	select {
	case w.ch <- ev:
	default:
	}
}

// waitFor waits up to d for an event ok accepts.
func (w *watchLog) waitFor(t *testing.T, d time.Duration, what string, ok func(WatchEvent) bool) WatchEvent {
	t.Helper()
	deadline := time.After(d)
	for {
		select {
		case ev := <-w.ch:
			if ev.Kind == WatchFailed {
				t.Fatalf("waiting for %s: the sync failed: %v", what, ev.Err)
			}
			if ok(ev) {
				return ev
			}
		case <-deadline:
			t.Fatalf("no %s within %v", what, d)
		}
	}
}

// synced is a WatchSynced event's report when it satisfies ok.
func synced(ok func(*SyncReport) bool) func(WatchEvent) bool {
	return func(ev WatchEvent) bool { return ev.Kind == WatchSynced && ok(ev.Report) }
}

// TestWatchFolder: while a watcher runs, a file copied into a followed
// folder is in the library within a few seconds, one in a new subfolder
// too, and a deleted one leaves it; stopping the watcher stops it.
func TestWatchFolder(t *testing.T) {
	tmp := parallelDir(t)
	dir := filepath.Join(tmp, "papers")
	writeFiles(t, dir, map[string]string{"a.md": note("Alpha", "About herons.")})
	l := mustOpen(t, Options{Store: filepath.Join(tmp, "lib")})
	follow(t, l, dir)
	log := newWatchLog()
	// A long poll: what happens here is seen through notifications.
	w := l.Watch(context.Background(), WatchOptions{Debounce: 200 * time.Millisecond, Poll: time.Minute, Report: log.report})
	defer w.Stop()
	log.waitFor(t, 5*time.Second, "the first sync", synced(func(r *SyncReport) bool { return r.Unchanged == 1 }))
	log.mu.Lock()
	first := log.events[0]
	log.mu.Unlock()
	if ev := first; ev.Kind != WatchMode || ev.Note != "watching 1 followed path" {
		t.Fatalf("first event %v %q, want the mode", ev.Kind, ev.Note)
	}

	start := time.Now()
	writeFiles(t, dir, map[string]string{"b.md": note("Beta", "About kingfishers.")})
	log.waitFor(t, 5*time.Second, "b.md added", synced(func(r *SyncReport) bool { return len(r.Add.Added) == 1 }))
	t.Logf("a new file was in the library %v after it was written", time.Since(start).Round(time.Millisecond))
	if !holds(t, l, "kingfishers") {
		t.Fatal("the new file is not searchable")
	}

	writeFiles(t, dir, map[string]string{"deep/er/c.md": note("Gamma", "About cormorants.")})
	log.waitFor(t, 5*time.Second, "a file in a new subfolder added", synced(func(r *SyncReport) bool { return len(r.Add.Added) == 1 }))
	if !holds(t, l, "cormorants") {
		t.Fatal("the file in the new subfolder is not searchable")
	}
	writeFiles(t, dir, map[string]string{"deep/er/d.md": note("Delta", "About ospreys.")})
	log.waitFor(t, 5*time.Second, "a second file in the new subfolder", synced(func(r *SyncReport) bool { return len(r.Add.Added) == 1 }))

	if err := os.Remove(filepath.Join(dir, "b.md")); err != nil {
		t.Fatal(err)
	}
	log.waitFor(t, 5*time.Second, "b.md removed", synced(func(r *SyncReport) bool { return len(r.Removed) == 1 }))
	if holds(t, l, "kingfishers") {
		t.Fatal("the deleted file is still in the library")
	}

	w.Stop()
	w.Stop() // twice is fine
	n := len(mustDocs(t, l))
	writeFiles(t, dir, map[string]string{"e.md": note("Epsilon", "About storks.")})
	time.Sleep(600 * time.Millisecond)
	if got := len(mustDocs(t, l)); got != n {
		t.Fatalf("a stopped watcher still syncs: %d documents, had %d", got, n)
	}
}

// TestWatchPollSettles: listing the roots (no notifications), a file
// written slowly is read only once it has settled: added once, whole,
// never first half and then replaced.
func TestWatchPollSettles(t *testing.T) {
	tmp := parallelDir(t)
	dir := filepath.Join(tmp, "papers")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	l := mustOpen(t, Options{Store: filepath.Join(tmp, "lib")})
	follow(t, l, dir)
	log := newWatchLog()
	w := l.Watch(context.Background(), WatchOptions{PollOnly: true, Poll: 100 * time.Millisecond, Debounce: 300 * time.Millisecond, Report: log.report})
	defer w.Stop()
	log.waitFor(t, 5*time.Second, "the mode", func(ev WatchEvent) bool {
		return ev.Kind == WatchMode && strings.HasPrefix(ev.Note, "listing 1 followed path every")
	})

	f, err := os.Create(filepath.Join(dir, "slow.md"))
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("# Slow\n\nIt begins with herons.\n")
	for range 12 {
		time.Sleep(100 * time.Millisecond)
		f.WriteString("And goes on about egrets.\n")
	}
	f.WriteString("\nIt ends with flamingos.\n")
	f.Close()
	log.waitFor(t, 10*time.Second, "slow.md added", synced(func(r *SyncReport) bool { return len(r.Add.Added) == 1 }))
	time.Sleep(500 * time.Millisecond) // a few more polls
	w.Stop()

	added, replaced, unsettled := 0, 0, 0
	log.mu.Lock()
	for _, ev := range log.events {
		if ev.Kind == WatchSynced {
			added += len(ev.Report.Add.Added)
			replaced += len(ev.Report.Add.Replaced)
			unsettled += len(ev.Report.Unsettled)
		}
	}
	log.mu.Unlock()
	if added != 1 || replaced != 0 {
		t.Fatalf("the slow file was added %d and replaced %d times, want added once", added, replaced)
	}
	if unsettled == 0 {
		t.Error("no sync met the file while it was written: the test proves nothing")
	}
	if !holds(t, l, "flamingos") {
		t.Fatal("the file was not read whole")
	}
}

// TestWatchFirstSyncUnsettled: a file still being written when the
// watcher's first sync meets it is added once it settles, with no
// notification or poll to wake the watcher (listing only, polling once a
// minute): the first sync asks for the next as every other sync does.
func TestWatchFirstSyncUnsettled(t *testing.T) {
	tmp := parallelDir(t)
	dir := filepath.Join(tmp, "papers")
	writeFiles(t, dir, map[string]string{"a.md": note("Alpha", "About herons.")})
	l := mustOpen(t, Options{Store: filepath.Join(tmp, "lib")})
	follow(t, l, dir)
	f, err := os.Create(filepath.Join(dir, "slow.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString("# Slow\n\nIt begins with herons.\n")
	log := newWatchLog()
	// Written to once more while the first sync waits for it to settle:
	// the report of that wait comes before the wait begins.
	var once sync.Once
	report := func(ev WatchEvent) {
		if ev.Kind == WatchProgress && ev.Progress.Stage == StageSettle {
			once.Do(func() {
				f.WriteString("It ends with flamingos.\n")
				f.Close()
			})
		}
		log.report(ev)
	}
	w := l.Watch(context.Background(), WatchOptions{PollOnly: true, Poll: time.Minute, Debounce: 300 * time.Millisecond, Report: report})
	defer w.Stop()
	log.waitFor(t, 10*time.Second, "the first sync", synced(func(r *SyncReport) bool { return len(r.Unsettled) == 1 }))
	log.waitFor(t, 10*time.Second, "slow.md added", synced(func(r *SyncReport) bool { return len(r.Add.Added) == 1 }))
	if !holds(t, l, "flamingos") {
		t.Fatal("the file was not read whole")
	}
}

// TestWatchNewRoot: a folder the library starts to follow while the
// watcher runs (an add in the same process) is synced and watched.
func TestWatchNewRoot(t *testing.T) {
	tmp := parallelDir(t)
	l := mustOpen(t, Options{Store: filepath.Join(tmp, "lib")})
	log := newWatchLog()
	w := l.Watch(context.Background(), WatchOptions{Debounce: 150 * time.Millisecond, Poll: time.Minute, Report: log.report})
	defer w.Stop()
	log.waitFor(t, 5*time.Second, "the mode", func(ev WatchEvent) bool { return ev.Kind == WatchMode && ev.Note == "no folders followed" })

	dir := filepath.Join(tmp, "later")
	writeFiles(t, dir, map[string]string{"a.md": note("Alpha", "About herons.")})
	follow(t, l, dir)
	log.waitFor(t, 5*time.Second, "the new root watched", func(ev WatchEvent) bool { return ev.Kind == WatchMode && ev.Note == "watching 1 followed path" })
	writeFiles(t, dir, map[string]string{"b.md": note("Beta", "About ibises.")})
	log.waitFor(t, 5*time.Second, "b.md added", synced(func(r *SyncReport) bool { return len(r.Add.Added) == 1 }))
}

// TestWatchFolderBack: a followed folder deleted while watched is held
// (its documents kept, said once); made again, it is watched again and
// what is written into it is added.
func TestWatchFolderBack(t *testing.T) {
	tmp := parallelDir(t)
	dir := filepath.Join(tmp, "papers")
	writeFiles(t, dir, map[string]string{"a.md": note("Alpha", "About herons.")})
	l := mustOpen(t, Options{Store: filepath.Join(tmp, "lib")})
	follow(t, l, dir)
	log := newWatchLog()
	w := l.Watch(context.Background(), WatchOptions{Debounce: 150 * time.Millisecond, Poll: time.Minute, Report: log.report})
	defer w.Stop()
	log.waitFor(t, 5*time.Second, "the first sync", synced(func(r *SyncReport) bool { return r.Unchanged == 1 }))

	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	ev := log.waitFor(t, 5*time.Second, "the removal held", synced(func(r *SyncReport) bool { return len(r.Held) == 1 }))
	if !strings.Contains(ev.Report.HeldReason(), dir+" is gone: 1 document kept (ibid sync --prune removes it") {
		t.Fatalf("held: %s", ev.Report.HeldReason())
	}
	if n := len(mustDocs(t, l)); n != 1 {
		t.Fatalf("%d documents after the folder went, want it kept", n)
	}

	writeFiles(t, dir, map[string]string{"b.md": note("Beta", "About ibises.")})
	log.waitFor(t, 5*time.Second, "b.md added", synced(func(r *SyncReport) bool { return len(r.Add.Added) == 1 }))
	writeFiles(t, dir, map[string]string{"c.md": note("Gamma", "About storks.")})
	log.waitFor(t, 5*time.Second, "c.md added", synced(func(r *SyncReport) bool { return len(r.Add.Added) == 1 }))
}
