package termimage

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"
	"time"
)

// Answers to Query recorded from real terminals on this machine (kitty and
// xterm under Xvfb, tmux in its own server), as they arrived.
const (
	answerKitty      = "\x1b_Gi=31;OK\x1b\\\x1bP>|kitty(0.26.5)\x1b\\\x1b[4;432;720t\x1b[6;18;9t\x1b[?62;c"
	answerXTermVT340 = "\x1bP>|XTerm(379)\x1b\\\x1b[?63;1;2;4;6;9;15;16;22;28c" // xterm -ti vt340: sixels
	answerXTerm      = "\x1bP>|XTerm(379)\x1b\\\x1b[?64;1;2;6;9;15;16;17;18;21;22;28c"
	answerTmux       = "\x1bP>|tmux 3.3a\x1b\\\x1b[?1;2c" // tmux 3.3a, whatever runs it
	// a terminal that says nothing but DA1, as a VT220 would
	answerPlain = "\x1b[?62;22c"
)

func TestParseRecorded(t *testing.T) {
	for _, c := range []struct {
		name, answer string
		want         Caps
	}{
		{"kitty", answerKitty, Caps{Answered: true, Kitty: true, Version: "kitty(0.26.5)", CellWidth: 9, CellHeight: 18, TextWidth: 720, TextHeight: 432}},
		{"xterm vt340", answerXTermVT340, Caps{Answered: true, Sixel: true, Version: "XTerm(379)"}},
		{"xterm", answerXTerm, Caps{Answered: true, Version: "XTerm(379)"}},
		{"tmux", answerTmux, Caps{Answered: true, Version: "tmux 3.3a"}},
		{"plain", answerPlain, Caps{Answered: true}},
		{"BEL-terminated and keys between", "j\x1b_Gi=31;OK\x07k\x1bP>|WezTerm 20240203\x07\x1b[A\x1b[?65;4;6c", Caps{Answered: true, Kitty: true, Sixel: true, Version: "WezTerm 20240203"}},
		{"a Kitty error is no support", "\x1b_Gi=31;ENOTSUPPORTED:no\x1b\\\x1b[?62c", Caps{Answered: true}},
		{"another image's OK is not ours", "\x1b_Gi=7;OK\x1b\\\x1b[?62c", Caps{Answered: true}},
	} {
		got, done := Parse([]byte(c.answer))
		if !done || got != c.want {
			t.Errorf("%s: %+v done %v, want %+v", c.name, got, done, c.want)
		}
		// every prefix short of DA1's end waits for more
		for i := 0; i < len(c.answer)-1; i++ {
			if _, done := Parse([]byte(c.answer[:i])); done {
				t.Errorf("%s: done after %d of %d bytes", c.name, i, len(c.answer))
				break
			}
		}
	}
}

// TestProtocol: the protocol follows what the terminal answered; the
// environment only names iTerm2 where nothing stands between, and a
// multiplexer's answers are never taken for the terminal's.
func TestProtocol(t *testing.T) {
	parse := func(s string) Caps { c, _ := Parse([]byte(s)); return c }
	iterm := Env{TermProgram: "iTerm.app"}
	for _, c := range []struct {
		name string
		caps Caps
		env  Env
		want Protocol
	}{
		{"kitty", parse(answerKitty), Env{Term: "xterm-kitty"}, Kitty},
		{"xterm vt340", parse(answerXTermVT340), Env{Term: "xterm"}, Sixel},
		{"xterm", parse(answerXTerm), Env{Term: "xterm"}, None},
		{"tmux", parse(answerTmux), Env{Term: "tmux-256color", TermProgram: "tmux", Multiplexer: true}, None},
		{"tmux started in iTerm2", parse(answerTmux), Env{TermProgram: "tmux", LCTerminal: "iTerm2", Multiplexer: true}, None},
		{"iTerm2 by its environment", parse(answerPlain), iterm, ITerm2},
		{"iTerm2 over ssh", parse(answerPlain), Env{LCTerminal: "iTerm2"}, ITerm2},
		{"iTerm2's name without a multiplexer flag but tmux answering", parse(answerTmux), iterm, None},
		{"iTerm2 by its answer", parse("\x1bP>|iTerm2 3.5.0\x1b\\\x1b[?62;4c"), Env{}, ITerm2},
		{"the environment says iTerm2, the terminal another name", parse(answerXTerm), iterm, None},
		{"no answer at all", Caps{}, iterm, None},
		{"a terminal's name alone is not support", parse(answerPlain), Env{Term: "xterm-kitty"}, None},
	} {
		if got := c.caps.Protocol(c.env); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestCell(t *testing.T) {
	kitty, _ := Parse([]byte(answerKitty))
	if w, h, ok := kitty.Cell(80, 24); !ok || w != 9 || h != 18 {
		t.Errorf("kitty: %d×%d %v", w, h, ok)
	}
	area := Caps{Answered: true, TextWidth: 800, TextHeight: 480}
	if w, h, ok := area.Cell(80, 24); !ok || w != 10 || h != 20 {
		t.Errorf("from the text area: %d×%d %v", w, h, ok)
	}
	if _, _, ok := (Caps{Answered: true}).Cell(80, 24); ok {
		t.Error("a cell size from nothing")
	}
}

// fakeTerm answers Query with answer, chunk bytes at a time, once Query
// is written; reads after the answer wait for the deadline. keys are
// pressed before the answer.
type fakeTerm struct {
	answer, keys string
	chunk        int
	noDeadline   bool
	written      bytes.Buffer
	pending      []byte
	deadline     time.Time
}

func (f *fakeTerm) Write(p []byte) (int, error) {
	f.written.Write(p)
	if f.written.String() == Query {
		f.pending = []byte(f.keys + f.answer)
	}
	return len(p), nil
}

func (f *fakeTerm) Read(p []byte) (int, error) {
	if len(f.pending) == 0 {
		if f.noDeadline {
			select {} // a blocking read that never returns: Detect must not wait on it
		}
		time.Sleep(time.Until(f.deadline))
		return 0, os.ErrDeadlineExceeded
	}
	n := copy(p, f.pending[:min(len(f.pending), f.chunk)])
	f.pending = f.pending[n:]
	return n, nil
}

func (f *fakeTerm) SetReadDeadline(t time.Time) error {
	if f.noDeadline {
		return os.ErrNoDeadline
	}
	f.deadline = t
	return nil
}

// TestDetect: Detect writes Query, reads the answers however they are cut
// (keys pressed meanwhile dropped), with and without read deadlines; a
// terminal that never answers DA1 answered nothing.
func TestDetect(t *testing.T) {
	want, _ := Parse([]byte(answerKitty))
	for _, noDeadline := range []bool{false, true} {
		for _, chunk := range []int{1, 3, 7, 256} {
			f := &fakeTerm{answer: answerKitty, keys: "q\x1b[A", chunk: chunk, noDeadline: noDeadline}
			got, err := Detect(f, time.Second)
			if err != nil || got != want {
				t.Errorf("chunks of %d (no deadline %v): %+v, %v; want %+v", chunk, noDeadline, got, err, want)
			}
		}
		f := &fakeTerm{answer: "\x1bP>|mute 1.0\x1b\\", chunk: 256, noDeadline: noDeadline}
		if got, err := Detect(f, 50*time.Millisecond); err != nil || got.Answered || got.Protocol(Env{TermProgram: "iTerm.app"}) != None {
			t.Errorf("no DA1 (no deadline %v): %+v, %v; want nothing answered", noDeadline, got, err)
		}
	}
	if _, err := Detect(failing{}, time.Second); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("a failed write: %v", err)
	}
}

type failing struct{}

func (failing) Write([]byte) (int, error)        { return 0, io.ErrClosedPipe }
func (failing) Read([]byte) (int, error)         { return 0, io.ErrClosedPipe }
func (failing) SetReadDeadline(time.Time) error { return nil }
