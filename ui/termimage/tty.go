package termimage

import (
	"errors"
	"os"
	"time"

	"github.com/charmbracelet/x/term"
)

// Terminal is a terminal to show a picture on: asked (Detect), drawn on
// (Encode), measured in cells, read for keys, and closed (its mode
// restored). TTY is one.
type Terminal interface {
	Conn
	Size() (cols, rows int, err error)
	Close() error
}

var _ Terminal = (*TTY)(nil)

// TTY is the controlling terminal, opened for Detect and Encode, in raw
// mode (keys arrive one by one, unechoed) until Close. It takes read
// deadlines everywhere: where the runtime cannot poll a terminal device
// (macOS), a read with a deadline polls the device itself, in
// non-blocking mode, until something arrives or the deadline passes, so
// no read is ever left pending to take a later key.
type TTY struct {
	f        *os.File
	state    *term.State
	polled   bool      // the runtime polls f: deadlines are its own
	deadline time.Time // when not polled: the read deadline, zero for none
}

// OpenTTY opens the controlling terminal (/dev/tty) in raw mode. It fails
// where there is none (no terminal, Windows): such a terminal is taken to
// display no images.
func OpenTTY() (*TTY, error) {
	f, err := openDevTTY()
	if err != nil {
		return nil, err
	}
	return newTTY(f)
}

// newTTY puts the terminal f in raw mode; Close closes f.
func newTTY(f *os.File) (*TTY, error) {
	var st *term.State
	if err := withFd(f, func(fd uintptr) (err error) { st, err = term.MakeRaw(fd); return err }); err != nil {
		f.Close()
		return nil, err
	}
	polled := f.SetReadDeadline(time.Time{}) == nil
	return &TTY{f: f, state: st, polled: polled}, nil
}

// withFd calls do with f's descriptor without taking it out of the
// runtime's poller (as os.File.Fd would, ending its deadlines).
func withFd(f *os.File, do func(fd uintptr) error) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var derr error
	if err := rc.Control(func(fd uintptr) { derr = do(fd) }); err != nil {
		return err
	}
	return derr
}

func (t *TTY) Write(p []byte) (int, error) { return t.f.Write(p) }

// SetReadDeadline sets when reads give up with os.ErrDeadlineExceeded;
// the zero time makes them wait.
func (t *TTY) SetReadDeadline(d time.Time) error {
	if t.polled {
		return t.f.SetReadDeadline(d)
	}
	t.deadline = d
	return nil
}

// pollEvery is how often a read with a deadline looks at a device the
// runtime cannot poll.
const pollEvery = 5 * time.Millisecond

func (t *TTY) Read(p []byte) (int, error) {
	if t.polled || t.deadline.IsZero() {
		return t.f.Read(p)
	}
	if err := setNonblock(t.f, true); err != nil {
		return 0, err
	}
	defer setNonblock(t.f, false)
	for {
		n, err := t.f.Read(p)
		if n > 0 || err != nil && !wouldBlock(err) {
			return n, err
		}
		if time.Now().After(t.deadline) {
			return 0, os.ErrDeadlineExceeded
		}
		time.Sleep(pollEvery)
	}
}

// Size is the terminal's size in cells.
func (t *TTY) Size() (cols, rows int, err error) {
	err = withFd(t.f, func(fd uintptr) (err error) { cols, rows, err = term.GetSize(fd); return err })
	return cols, rows, err
}

// Close restores the terminal's mode and closes it.
func (t *TTY) Close() error {
	return errors.Join(withFd(t.f, func(fd uintptr) error { return term.Restore(fd, t.state) }), t.f.Close())
}
