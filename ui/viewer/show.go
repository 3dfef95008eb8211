package viewer

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/ibid-dev/ibid/ui/termimage"
)

// openTTY opens the controlling terminal.
func openTTY() (termimage.Terminal, error) {
	t, err := termimage.OpenTTY()
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return t, nil
}

// pageShow shows a drawn page in the terminal, run by tea.Exec while the
// chat is suspended (its screen and input released): it asks the
// terminal what it displays unless that is known (caps), and when it
// displays images draws the page on a screen of its own with the caption
// below, waits for a key, and leaves the terminal as it found it. A
// terminal that displays none, or none to open, is not an error: shown
// stays false and the page goes to the system's viewer. got is what the
// terminal answered.
type pageShow struct {
	msg     PageMsg
	caption string
	caps    *termimage.Caps // nil: ask
	env     termimage.Env
	open    func() (termimage.Terminal, error)

	got   termimage.Caps
	shown bool
}

// The chat's program gives an Exec command its input and output; the
// page is shown on the terminal itself (the same device), which it
// opens, so these are not kept.
func (s *pageShow) SetStdin(io.Reader)  {}
func (s *pageShow) SetStdout(io.Writer) {}
func (s *pageShow) SetStderr(io.Writer) {}

// Screen sequences: the alternate screen, the cursor hidden, then shown
// and the main screen back; clear and home.
const (
	enterScreen = "\x1b[?1049h\x1b[?25l"
	leaveScreen = "\x1b[?25h\x1b[?1049l"
	clearScreen = "\x1b[H\x1b[2J"
)

func (s *pageShow) Run() error {
	t, err := s.open()
	if err != nil {
		return nil // no terminal to ask: it shows no images
	}
	defer t.Close()
	if s.caps != nil {
		s.got = *s.caps
	} else if s.got, err = termimage.Detect(t, detectTimeout); err != nil {
		return err
	}
	p := s.got.Protocol(s.env)
	if p == termimage.None {
		return nil
	}
	cols, rows, err := t.Size()
	if err != nil {
		return err
	}
	if cols < 10 || rows < 3 {
		return errors.New("the terminal is too small to show a page")
	}
	cw, ch, ok := s.got.Cell(cols, rows)
	if !ok {
		cw, ch = assumedCell[0], assumedCell[1]
	}
	if _, err := io.WriteString(t, enterScreen+clearScreen); err != nil {
		return err
	}
	defer func() {
		end := clearScreen + leaveScreen
		if p == termimage.Kitty {
			end = termimage.DeleteKitty + end
		}
		io.WriteString(t, end)
	}()
	area := termimage.Area{Cols: cols, Rows: rows - 1, CellWidth: cw, CellHeight: ch}
	if _, err := termimage.Encode(t, p, s.msg.png, area); err != nil {
		return err
	}
	caption := ansi.Truncate(strings.ReplaceAll(s.caption, "\n", " "), cols-1, "…")
	if _, err := fmt.Fprintf(t, "\x1b[%d;1H\x1b[2K%s", rows, caption); err != nil {
		return err
	}
	s.shown = true
	key := make([]byte, 64)
	_, err = t.Read(key) // any key returns; what it sends with it goes too
	return err
}
