// Package termimagetest stands in for terminals in tests: answers to
// termimage.Query recorded from real terminals, and Terminal, a
// termimage.Terminal that gives one of them back and records what it is
// sent.
package termimagetest

import (
	"bytes"
	"os"
	"sync"
	"time"

	"github.com/ibid-dev/ibid/ui/termimage"
)

// Answers to termimage.Query recorded from real terminals (kitty and
// xterm under Xvfb, tmux in a server of its own), as they arrived.
const (
	Kitty      = "\x1b_Gi=31;OK\x1b\\\x1bP>|kitty(0.26.5)\x1b\\\x1b[4;432;720t\x1b[6;18;9t\x1b[?62;c"
	XTermVT340 = "\x1bP>|XTerm(379)\x1b\\\x1b[?63;1;2;4;6;9;15;16;22;28c" // xterm -ti vt340: sixels
	XTerm      = "\x1bP>|XTerm(379)\x1b\\\x1b[?64;1;2;6;9;15;16;17;18;21;22;28c"
	Tmux       = "\x1bP>|tmux 3.3a\x1b\\\x1b[?1;2c" // tmux 3.3a, whatever terminal it runs in
)

// Terminal is a terminal of Cols×Rows cells that, sent termimage.Query,
// answers Answer, after Keys (pressed meanwhile), at most Chunk bytes a
// read (0: all there is). Once it has said all, a read with a deadline
// waits for the deadline and a read without one is a key pressed ("x").
// NoDeadline makes it refuse read deadlines. It is safe to use from
// several goroutines (the program's, the test's).
type Terminal struct {
	Answer, Keys string
	Chunk        int
	Cols, Rows   int
	NoDeadline   bool

	mu             sync.Mutex
	out            bytes.Buffer
	in             []byte
	deadline       time.Time
	opened, closed int
}

var _ termimage.Terminal = (*Terminal)(nil)

// Open opens the terminal (counted): the shape of an OpenTerminal setting.
func (t *Terminal) Open() (termimage.Terminal, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.opened++
	return t, nil
}

// Written is everything written to the terminal so far.
func (t *Terminal) Written() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.out.String()
}

// Reset forgets what was written.
func (t *Terminal) Reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.out.Reset()
}

// Counts are how often the terminal was opened and closed.
func (t *Terminal) Counts() (opened, closed int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.opened, t.closed
}

func (t *Terminal) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.out.Write(p)
	if bytes.HasSuffix(t.out.Bytes(), []byte(termimage.Query)) {
		t.in = append(t.in, t.Keys+t.Answer...)
	}
	return len(p), nil
}

func (t *Terminal) Read(p []byte) (int, error) {
	t.mu.Lock()
	if len(t.in) > 0 {
		n := len(t.in)
		if t.Chunk > 0 {
			n = min(n, t.Chunk)
		}
		n = copy(p, t.in[:n])
		t.in = t.in[n:]
		t.mu.Unlock()
		return n, nil
	}
	d := t.deadline
	t.mu.Unlock()
	if d.IsZero() {
		return copy(p, "x"), nil
	}
	time.Sleep(time.Until(d))
	return 0, os.ErrDeadlineExceeded
}

func (t *Terminal) SetReadDeadline(d time.Time) error {
	if t.NoDeadline {
		return os.ErrNoDeadline
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.deadline = d
	return nil
}

func (t *Terminal) Size() (int, int, error) { return t.Cols, t.Rows, nil }

func (t *Terminal) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed++
	return nil
}
