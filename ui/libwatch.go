package ui

import (
	"time"

	tea "charm.land/bubbletea/v2"
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

// libraryCounter is a Backend that reads its library's name and size
// together (one library, even across a /library switch) and says when the
// size could not be read. RAGBackend is one; other backends are read with
// LibraryName and LibrarySize.
type libraryCounter interface {
	LibraryCount() (name string, docs int, err error)
}

// pollLibrary reads b's counts after every, in the command's goroutine
// (never in Update or View). every <= 0 polls never.
func pollLibrary(b Backend, every time.Duration) tea.Cmd {
	if every <= 0 {
		return nil
	}
	return tea.Tick(every, func(time.Time) tea.Msg {
		if c, ok := b.(libraryCounter); ok {
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
	return tea.Batch(next, suggestionsCmd(m.b))
}
