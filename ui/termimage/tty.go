package termimage

import (
	"errors"
	"os"
	"runtime"

	"github.com/charmbracelet/x/term"
)

// TTY is the controlling terminal, opened for Detect and Encode, in raw
// mode (keys arrive one by one, unechoed) until Close.
type TTY struct {
	*os.File
	state *term.State
}

// OpenTTY opens the controlling terminal (/dev/tty) in raw mode. It fails
// where there is none (no terminal, or Windows, whose console is not
// asked here: such a terminal is taken to display no images).
func OpenTTY() (*TTY, error) {
	if runtime.GOOS == "windows" {
		return nil, errors.New("no /dev/tty on Windows")
	}
	f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	st, err := term.MakeRaw(f.Fd())
	if err != nil {
		f.Close()
		return nil, err
	}
	return &TTY{File: f, state: st}, nil
}

// Size is the terminal's size in cells.
func (t *TTY) Size() (cols, rows int, err error) { return term.GetSize(t.Fd()) }

// Close restores the terminal's mode and closes it.
func (t *TTY) Close() error {
	err := term.Restore(t.Fd(), t.state)
	if cerr := t.File.Close(); err == nil {
		err = cerr
	}
	return err
}
