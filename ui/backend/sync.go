package backend

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ibid-dev/ibid/rag/library"
	"github.com/ibid-dev/ibid/store"
)

// While the chat runs, the library keeps in step with the folders it
// follows (ibid add, /add): a watcher (rag/library's Watch) syncs in the
// background, never holding up an answer. RAG turns the watcher's
// reports into SyncEvents on a channel, which the chat reads one at a
// time.

// syncState is RAG's watcher: the library it watches, the channel
// the chat reads, and what was said last.
type syncState struct {
	mu     sync.Mutex
	opt    library.WatchOptions
	w      *library.Watcher // nil: not watching
	ch     chan SyncEvent
	stop   chan struct{} // closed by Close: nobody reads ch any more
	closed bool          // stop is closed
	held   string        // the held message last sent
	active bool          // the last event sent was active
}

// Watch keeps the library in step with the folders it follows while the
// chat runs, in the background (rag/library's Watch with opt; its Report
// is the backend's), after a /library switch too. Call it before the chat
// starts; Close stops it.
func (b *RAG) Watch(opt library.WatchOptions) {
	b.sync.mu.Lock()
	defer b.sync.mu.Unlock()
	if b.sync.ch == nil {
		b.sync.ch = make(chan SyncEvent, 16)
		b.sync.stop = make(chan struct{})
	}
	b.sync.opt = opt
	lib, _, _ := b.current()
	b.startWatch(lib)
}

// startWatch watches lib, stopping the watch of another; the caller
// holds b.sync.mu.
func (b *RAG) startWatch(lib *library.Library) {
	if b.sync.w != nil {
		b.sync.w.Stop()
		b.sync.w = nil
		if b.sync.active { // stopped mid-sync: the status line stops showing it
			b.sync.active = false
			select {
			case b.sync.ch <- SyncEvent{Docs: -1}:
			default:
			}
		}
	}
	if b.sync.ch == nil || b.sync.closed {
		return
	}
	opt := b.sync.opt
	opt.Report = func(ev library.WatchEvent) { b.report(lib, ev) }
	if b.enrich != nil && opt.Enrich == nil {
		if st, _, err := lib.Strategy(context.Background()); err == nil && st.NeedsModel() {
			opt.Enrich = b.enrich(st)
		}
	}
	b.sync.held = ""
	b.sync.w = lib.Watch(context.Background(), opt)
}

// stopWatch stops the watcher for good (Close): first it lets a report
// blocked on the channel go (the chat may have ended), then it waits for
// the watcher.
func (b *RAG) stopWatch() {
	b.sync.mu.Lock()
	defer b.sync.mu.Unlock()
	if b.sync.stop != nil && !b.sync.closed {
		close(b.sync.stop)
		b.sync.closed = true
	}
	if b.sync.w != nil {
		b.sync.w.Stop()
		b.sync.w = nil
	}
}

// SyncEvents is the channel of background syncs' events (nil before
// Watch).
func (b *RAG) SyncEvents() <-chan SyncEvent {
	b.sync.mu.Lock()
	defer b.sync.mu.Unlock()
	return b.sync.ch
}

// report turns a watcher's report into the chat's events: progress only
// while files are read or removed (a sync that finds nothing to do shows
// nothing), a summary when a sync changed the library, held removals
// once until they change, failures.
func (b *RAG) report(lib *library.Library, wev library.WatchEvent) {
	ev := SyncEvent{Docs: -1}
	switch wev.Kind {
	case library.WatchProgress:
		p := wev.Progress
		if p.Stage == library.StageScan {
			return
		}
		ev.Active, ev.Done, ev.Of, ev.File = true, p.FilesDone, p.FilesTotal, p.File
		if p.Stage == library.StageSettle {
			ev.Done, ev.Of = 0, 0
		}
	case library.WatchSynced:
		rep := wev.Report
		if rep.Changed() {
			ev.Summary = "synced with its folders: " + syncSummary(rep)
		}
		held := rep.HeldReason()
		if held != b.sync.held {
			b.sync.held = held
			ev.Held = held
		}
		if ev.Summary == "" && ev.Held == "" && !b.sync.active {
			return // nothing to say
		}
		if n, err := store.CountDocuments(context.Background(), lib.Store()); err == nil {
			ev.Docs = n
		}
	case library.WatchFailed:
		ev.Err = wev.Err
	case library.WatchMode:
		if !strings.HasPrefix(wev.Note, "listing") {
			return // watching: as expected
		}
		ev.Note = "following the library's folders by " + wev.Note
	}
	b.sync.active = ev.Active
	if ev.Active {
		select { // progress may be dropped when the chat is behind
		case b.sync.ch <- ev:
		default:
		}
		return
	}
	select {
	case b.sync.ch <- ev:
	case <-b.sync.stop:
	}
}

// syncSummary is what a sync did, short, naming a few files.
func syncSummary(rep *library.SyncReport) string {
	var parts []string
	names := func(verb string, docs []store.Document) {
		switch {
		case len(docs) == 0:
		case len(docs) <= 2:
			var ns []string
			for _, d := range docs {
				ns = append(ns, filepath.Base(d.Path))
			}
			parts = append(parts, verb+" "+strings.Join(ns, ", "))
		default:
			parts = append(parts, fmt.Sprintf("%s %d files", verb, len(docs)))
		}
	}
	names("added", rep.Add.Added)
	names("replaced", rep.Add.Replaced)
	names("moved", rep.Add.Moved)
	names("removed", rep.Removed)
	if n := len(rep.Add.Skipped); n > 0 {
		parts = append(parts, fmt.Sprintf("skipped %d (%s)", n, rep.Add.Skipped[0].Error()))
	}
	return strings.Join(parts, "; ")
}
