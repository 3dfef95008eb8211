package ui

// This file keeps the status line's library true while the chat runs:
// its counts, read now and then, and the background syncs of its folders.

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ibid-dev/ibid/ui/backend"
)

// The chat keeps the library's counts on the status line true while
// another process changes the library (ibid add in another terminal): it
// reads them every libPollEvery, in a command, and redraws only when they
// changed.

// libPollEvery is how often the chat reads the library's counts.
const libPollEvery = 3 * time.Second

// libCountMsg is what a poll read: the library's name and its number of
// documents. ok is false when the counts could not be read (the status line
// then keeps what it shows).
type libCountMsg struct {
	name string
	size int
	ok   bool
}

// pollLibrary reads b's counts after every, in the command's goroutine
// (never in Update or View). every <= 0 polls never.
func pollLibrary(b backend.Backend, every time.Duration) tea.Cmd {
	if every <= 0 {
		return nil
	}
	return tea.Tick(every, func(time.Time) tea.Msg {
		if c, ok := b.(backend.LibraryCounter); ok {
			name, n, err := c.LibraryCount()
			return libCountMsg{name, n, err == nil}
		}
		return libCountMsg{b.LibraryName(), b.LibrarySize(), true}
	})
}

// onLibCount takes a poll's counts: a changed size of the library shown
// (not one switched away from since the poll started) updates the status
// line and the first screen's examples. It schedules the next poll.
func (m *Model) onLibCount(msg libCountMsg) tea.Cmd {
	next := pollLibrary(m.b, m.pollEvery)
	if !msg.ok || msg.name != m.lib.name || msg.size == m.lib.size {
		return next
	}
	m.lib.size = msg.size
	return tea.Batch(next, m.suggestionsCmd())
}

// While the chat runs, the library keeps in step with the folders it
// follows (ibid add, /add): a watcher syncs in the background and the
// status line shows it, never holding up an answer. The backend sends
// its reports as SyncEvents on a channel (backend.LibrarySyncer); the
// chat reads them in a command (waitSync), one at a time.

// syncMsg carries a backend.SyncEvent into Update.
type syncMsg struct {
	ev backend.SyncEvent
	ch <-chan backend.SyncEvent
}

// waitSync waits for the next event on ch (nil: never).
func waitSync(ch <-chan backend.SyncEvent) tea.Cmd {
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
func syncEventsOf(b backend.Backend) <-chan backend.SyncEvent {
	if s, ok := b.(backend.LibrarySyncer); ok {
		return s.SyncEvents()
	}
	return nil
}

// onSync shows a background sync: its progress on the status line while
// it reads files, then what it did; and waits for the next event.
func (m *Model) onSync(msg syncMsg) tea.Cmd {
	ev := msg.ev
	cmds := []tea.Cmd{waitSync(msg.ch)}
	m.syncing, m.syncProgress = ev.Active, ev
	if ev.Active {
		cmds = append(cmds, m.tick())
	}
	switch {
	case ev.Err != nil:
		m.status.set(statusMsg{err: fmt.Errorf("couldn't sync the library with its folders: %w", ev.Err)})
	case ev.Held != "":
		m.status.set(statusMsg{err: fmt.Errorf("%s", ev.Held)})
	case ev.Summary != "":
		m.status.set(statusMsg{text: ev.Summary})
	case ev.Note != "":
		m.status.set(statusMsg{text: ev.Note})
	}
	if ev.Docs >= 0 && !ev.Active && ev.Docs != m.lib.size {
		m.lib.size = ev.Docs
		cmds = append(cmds, m.suggestionsCmd())
	}
	return tea.Batch(cmds...)
}

// syncParts are the status line's parts of a background sync.
func (m *Model) syncParts() []statusPart {
	p := m.syncProgress
	what := fmt.Sprintf("%s syncing %d/%d files", strings.TrimSpace(m.spinner.View()), p.Done, p.Of)
	if p.Of == 0 {
		what = strings.TrimSpace(m.spinner.View()) + " syncing"
	}
	parts := []statusPart{{text: what, rank: rankActivity, right: true}}
	if f := shortFile(p.File); f != "" {
		parts = append(parts, statusPart{text: f, rank: rankHint, right: true})
	}
	return parts
}
