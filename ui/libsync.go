package ui

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/ibid-dev/ibid/rag/library"
	"github.com/ibid-dev/ibid/store"
)

// While the chat runs, the library keeps in step with the folders it
// follows (ibid add, /add): a watcher (rag/library's Watch) syncs in the
// background and the status line shows it, never holding up an answer.
// The backend turns the watcher's reports into syncEvents on a channel;
// the chat reads them in a command (waitSync), one at a time.

// syncEvent is what the status line needs of a background sync.
type syncEvent struct {
	active   bool // a sync is reading or removing files
	done, of int  // files done of files to do
	file     string
	summary  string // a sync that changed the library ended: what it did
	held     string // removals held back, and how to make them ("" for none, or unchanged since said)
	note     string // how the folders are followed, when it is worth saying
	err      error
	docs     int // the library's documents after a sync (-1: not known)
}

// librarySyncer is a Backend that keeps its library in step with its
// folders in the background; RAGBackend is one once Watch was called.
type librarySyncer interface {
	SyncEvents() <-chan syncEvent
}

// syncMsg carries a syncEvent into Update.
type syncMsg struct {
	ev syncEvent
	ch <-chan syncEvent
}

// waitSync waits for the next event on ch (nil: never).
func waitSync(ch <-chan syncEvent) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		ev, ok := <-ch
		if !ok {
			return nil
		}
		return syncMsg{ev, ch}
	}
}

// syncEventsOf is b's channel of sync events, if it has one.
func syncEventsOf(b Backend) <-chan syncEvent {
	if s, ok := b.(librarySyncer); ok {
		return s.SyncEvents()
	}
	return nil
}

// onSync shows a background sync: its progress on the status line while
// it reads files, then what it did; and waits for the next event.
func (m *Model) onSync(msg syncMsg) tea.Cmd {
	ev := msg.ev
	cmds := []tea.Cmd{waitSync(msg.ch)}
	m.syncing, m.syncProgress = ev.active, ev
	if ev.active {
		cmds = append(cmds, m.tick())
	}
	switch {
	case ev.err != nil:
		m.status.set(statusMsg{err: fmt.Errorf("couldn't sync the library with its folders: %w", ev.err)})
	case ev.held != "":
		m.status.set(statusMsg{err: fmt.Errorf("%s", ev.held)})
	case ev.summary != "":
		m.status.set(statusMsg{text: ev.summary})
	case ev.note != "":
		m.status.set(statusMsg{text: ev.note})
	}
	if ev.docs >= 0 && !ev.active && ev.docs != m.lib.size {
		m.lib.size = ev.docs
		cmds = append(cmds, suggestionsCmd(m.b))
	}
	return tea.Batch(cmds...)
}

// syncParts are the status line's parts of a background sync.
func (m *Model) syncParts() []statusPart {
	p := m.syncProgress
	what := fmt.Sprintf("%s syncing %d/%d files", strings.TrimSpace(m.spinner.View()), p.done, p.of)
	if p.of == 0 {
		what = strings.TrimSpace(m.spinner.View()) + " syncing"
	}
	parts := []statusPart{{text: what, rank: rankActivity, right: true}}
	if f := shortFile(p.file); f != "" {
		parts = append(parts, statusPart{text: f, rank: rankHint, right: true})
	}
	return parts
}

// The backend's side.

// syncState is RAGBackend's watcher: the library it watches, the channel
// the chat reads, and what was said last.
type syncState struct {
	mu     sync.Mutex
	opt    library.WatchOptions
	w      *library.Watcher // nil: not watching
	ch     chan syncEvent
	stop   chan struct{} // closed by Close: nobody reads ch any more
	closed bool          // stop is closed
	held   string        // the held message last sent
	active bool          // the last event sent was active
}

// Watch keeps the library in step with the folders it follows while the
// chat runs, in the background (rag/library's Watch with opt; its Report
// is the backend's), after a /library switch too. Call it before the chat
// starts; Close stops it.
func (b *RAGBackend) Watch(opt library.WatchOptions) {
	b.sync.mu.Lock()
	defer b.sync.mu.Unlock()
	if b.sync.ch == nil {
		b.sync.ch = make(chan syncEvent, 16)
		b.sync.stop = make(chan struct{})
	}
	b.sync.opt = opt
	lib, _, _ := b.current()
	b.startWatch(lib)
}

// startWatch watches lib, stopping the watch of another; the caller
// holds b.sync.mu.
func (b *RAGBackend) startWatch(lib *library.Library) {
	if b.sync.w != nil {
		b.sync.w.Stop()
		b.sync.w = nil
		if b.sync.active { // stopped mid-sync: the status line stops showing it
			b.sync.active = false
			select {
			case b.sync.ch <- syncEvent{docs: -1}:
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
func (b *RAGBackend) stopWatch() {
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
func (b *RAGBackend) SyncEvents() <-chan syncEvent {
	b.sync.mu.Lock()
	defer b.sync.mu.Unlock()
	return b.sync.ch
}

// report turns a watcher's report into the chat's events: progress only
// while files are read or removed (a sync that finds nothing to do shows
// nothing), a summary when a sync changed the library, held removals
// once until they change, failures.
func (b *RAGBackend) report(lib *library.Library, wev library.WatchEvent) {
	ev := syncEvent{docs: -1}
	switch wev.Kind {
	case library.WatchProgress:
		p := wev.Progress
		if p.Stage == library.StageScan {
			return
		}
		ev.active, ev.done, ev.of, ev.file = true, p.FilesDone, p.FilesTotal, p.File
		if p.Stage == library.StageSettle {
			ev.done, ev.of = 0, 0
		}
	case library.WatchSynced:
		rep := wev.Report
		if rep.Changed() {
			ev.summary = "synced with its folders: " + syncSummary(rep)
		}
		held := rep.HeldReason()
		if held != b.sync.held {
			b.sync.held = held
			ev.held = held
		}
		if ev.summary == "" && ev.held == "" && !b.sync.active {
			return // nothing to say
		}
		if n, err := store.CountDocuments(context.Background(), lib.Store()); err == nil {
			ev.docs = n
		}
	case library.WatchFailed:
		ev.err = wev.Err
	case library.WatchMode:
		if !strings.HasPrefix(wev.Note, "listing") {
			return // watching: as expected
		}
		ev.note = "following the library's folders by " + wev.Note
	}
	b.sync.active = ev.active
	if ev.active {
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
