package termimage_test

import (
	"errors"
	"io"
	"os"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/ui/termimage"
	"github.com/ibid-dev/ibid/ui/termimage/termimagetest"
)

const (
	answerKitty      = termimagetest.Kitty
	answerXTermVT340 = termimagetest.XTermVT340
	answerXTerm      = termimagetest.XTerm
	answerTmux       = termimagetest.Tmux
	// a terminal that says nothing but DA1, as a VT220 would
	answerPlain = "\x1b[?62;22c"
)

func TestParseRecorded(t *testing.T) {
	for _, c := range []struct {
		name, answer string
		want         termimage.Caps
	}{
		{"kitty", answerKitty, termimage.Caps{Answered: true, Kitty: true, Version: "kitty(0.26.5)", CellWidth: 9, CellHeight: 18, TextWidth: 720, TextHeight: 432}},
		{"xterm vt340", answerXTermVT340, termimage.Caps{Answered: true, Sixel: true, Version: "XTerm(379)"}},
		{"xterm", answerXTerm, termimage.Caps{Answered: true, Version: "XTerm(379)"}},
		{"tmux", answerTmux, termimage.Caps{Answered: true, Version: "tmux 3.3a"}},
		{"plain", answerPlain, termimage.Caps{Answered: true}},
		{"BEL-terminated and keys between", "j\x1b_Gi=31;OK\x07k\x1bP>|WezTerm 20240203\x07\x1b[A\x1b[?65;4;6c", termimage.Caps{Answered: true, Kitty: true, Sixel: true, Version: "WezTerm 20240203"}},
		{"a Kitty error is no support", "\x1b_Gi=31;ENOTSUPPORTED:no\x1b\\\x1b[?62c", termimage.Caps{Answered: true}},
		{"another image's OK is not ours", "\x1b_Gi=7;OK\x1b\\\x1b[?62c", termimage.Caps{Answered: true}},
	} {
		got, done := termimage.Parse([]byte(c.answer))
		if !done || got != c.want {
			t.Errorf("%s: %+v done %v, want %+v", c.name, got, done, c.want)
		}
		// every prefix short of DA1's end waits for more
		for i := 0; i < len(c.answer)-1; i++ {
			if _, done := termimage.Parse([]byte(c.answer[:i])); done {
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
	parse := func(s string) termimage.Caps { c, _ := termimage.Parse([]byte(s)); return c }
	iterm := termimage.Env{TermProgram: "iTerm.app"}
	for _, c := range []struct {
		name string
		caps termimage.Caps
		env  termimage.Env
		want termimage.Protocol
	}{
		{"kitty", parse(answerKitty), termimage.Env{Term: "xterm-kitty"}, termimage.Kitty},
		{"xterm vt340", parse(answerXTermVT340), termimage.Env{Term: "xterm"}, termimage.Sixel},
		{"xterm", parse(answerXTerm), termimage.Env{Term: "xterm"}, termimage.None},
		{"tmux", parse(answerTmux), termimage.Env{Term: "tmux-256color", TermProgram: "tmux", Multiplexer: true}, termimage.None},
		{"tmux started in iTerm2", parse(answerTmux), termimage.Env{TermProgram: "tmux", LCTerminal: "iTerm2", Multiplexer: true}, termimage.None},
		{"iTerm2 by its environment", parse(answerPlain), iterm, termimage.ITerm2},
		{"iTerm2 over ssh", parse(answerPlain), termimage.Env{LCTerminal: "iTerm2"}, termimage.ITerm2},
		{"iTerm2's name without a multiplexer flag but tmux answering", parse(answerTmux), iterm, termimage.None},
		{"iTerm2 by its answer", parse("\x1bP>|iTerm2 3.5.0\x1b\\\x1b[?62;4c"), termimage.Env{}, termimage.ITerm2},
		{"the environment says iTerm2, the terminal another name", parse(answerXTerm), iterm, termimage.None},
		{"no answer at all", termimage.Caps{}, iterm, termimage.None},
		{"a terminal's name alone is not support", parse(answerPlain), termimage.Env{Term: "xterm-kitty"}, termimage.None},
	} {
		if got := c.caps.Protocol(c.env); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestCell(t *testing.T) {
	kitty, _ := termimage.Parse([]byte(answerKitty))
	if w, h, ok := kitty.Cell(80, 24); !ok || w != 9 || h != 18 {
		t.Errorf("kitty: %d×%d %v", w, h, ok)
	}
	area := termimage.Caps{Answered: true, TextWidth: 800, TextHeight: 480}
	if w, h, ok := area.Cell(80, 24); !ok || w != 10 || h != 20 {
		t.Errorf("from the text area: %d×%d %v", w, h, ok)
	}
	if _, _, ok := (termimage.Caps{Answered: true}).Cell(80, 24); ok {
		t.Error("a cell size from nothing")
	}
}

// TestDetect: Detect writes Query, reads the answers however they are cut
// (keys pressed meanwhile dropped); a terminal that never answers DA1
// answered nothing; a Conn without read deadlines is refused before
// anything is written.
func TestDetect(t *testing.T) {
	want, _ := termimage.Parse([]byte(answerKitty))
	for _, chunk := range []int{1, 3, 7, 256} {
		f := &termimagetest.Terminal{Answer: answerKitty, Keys: "q\x1b[A", Chunk: chunk}
		got, err := termimage.Detect(f, time.Second)
		if err != nil || got != want {
			t.Errorf("chunks of %d: %+v, %v; want %+v", chunk, got, err, want)
		}
	}
	f := &termimagetest.Terminal{Answer: "\x1bP>|mute 1.0\x1b\\"}
	if got, err := termimage.Detect(f, 50*time.Millisecond); err != nil || got.Answered || got.Protocol(termimage.Env{TermProgram: "iTerm.app"}) != termimage.None {
		t.Errorf("no DA1: %+v, %v; want nothing answered", got, err)
	}
	f = &termimagetest.Terminal{Answer: answerKitty, NoDeadline: true}
	if _, err := termimage.Detect(f, time.Second); !errors.Is(err, os.ErrNoDeadline) || f.Written() != "" {
		t.Errorf("no deadlines: %v, %q written", err, f.Written())
	}
	if _, err := termimage.Detect(failing{}, time.Second); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("a failed write: %v", err)
	}
}

type failing struct{}

func (failing) Write([]byte) (int, error)       { return 0, io.ErrClosedPipe }
func (failing) Read([]byte) (int, error)        { return 0, io.ErrClosedPipe }
func (failing) SetReadDeadline(time.Time) error { return nil }
