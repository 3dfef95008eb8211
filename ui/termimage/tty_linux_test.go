package termimage

import (
	"fmt"
	"io"
	"os"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// openPTY opens a pseudo-terminal: the terminal's side (master), which
// the test plays, and the program's (the slave device), polled by the
// runtime or, as a terminal is on macOS, not (a blocking descriptor).
func openPTY(t *testing.T, polled bool) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	ioctl := func(req uintptr, arg unsafe.Pointer) error {
		rc, err := m.SyscallConn()
		if err != nil {
			return err
		}
		var e syscall.Errno
		rc.Control(func(fd uintptr) { _, _, e = syscall.Syscall(syscall.SYS_IOCTL, fd, req, uintptr(arg)) })
		if e != 0 {
			return e
		}
		return nil
	}
	var unlock int32
	var n uint32
	if err := ioctl(syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)); err != nil {
		t.Fatal(err)
	}
	if err := ioctl(syscall.TIOCGPTN, unsafe.Pointer(&n)); err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("/dev/pts/%d", n)
	t.Cleanup(func() { m.Close() })
	if polled {
		s, err := os.OpenFile(name, os.O_RDWR|syscall.O_NOCTTY, 0)
		if err != nil {
			t.Fatal(err)
		}
		return m, s
	}
	fd, err := syscall.Open(name, syscall.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return m, os.NewFile(uintptr(fd), name) // blocking: the runtime does not poll it
}

// TestTTYDetect: over a real pseudo-terminal, in raw mode, Detect reads
// the answers the terminal gives to Query, with the runtime's deadlines
// and with the polled reads used where the runtime cannot poll a
// terminal; a terminal that does not answer costs the timeout and no
// more, and the key pressed after it is read by the next read, not lost.
func TestTTYDetect(t *testing.T) {
	for _, polled := range []bool{true, false} {
		master, slave := openPTY(t, polled)
		tty, err := newTTY(slave)
		if err != nil {
			t.Fatal(err)
		}
		if tty.polled != polled {
			t.Fatalf("the TTY says polled %v, the device was opened polled %v", tty.polled, polled)
		}
		go func() { // the terminal: reads the query, answers as kitty did
			q := make([]byte, len(Query))
			if _, err := io.ReadFull(master, q); err == nil && string(q) == Query {
				master.Write([]byte(kittyAnswer))
			}
		}()
		got, err := Detect(tty, 5*time.Second)
		if want, _ := Parse([]byte(kittyAnswer)); err != nil || got != want {
			t.Errorf("polled %v: %+v, %v; want %+v", polled, got, err, want)
		}

		// a terminal that says nothing: Detect gives up at its timeout
		go io.ReadFull(master, make([]byte, len(Query)))
		if got, err := Detect(tty, 100*time.Millisecond); err != nil || got.Answered {
			t.Errorf("polled %v, silent terminal: %+v, %v", polled, got, err)
		}
		master.Write([]byte("q"))
		key := make([]byte, 8)
		if n, err := tty.Read(key); err != nil || string(key[:n]) != "q" {
			t.Errorf("polled %v: the key after a timeout read as %q, %v", polled, key[:n], err)
		}
		if cols, rows, err := tty.Size(); err != nil || cols < 0 || rows < 0 {
			t.Errorf("size %d×%d, %v", cols, rows, err)
		}
		if err := tty.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	}
}

// kittyAnswer is kitty 0.26.5's answer to Query (termimagetest.Kitty,
// which this package's own tests cannot import).
const kittyAnswer = "\x1b_Gi=31;OK\x1b\\\x1bP>|kitty(0.26.5)\x1b\\\x1b[4;432;720t\x1b[6;18;9t\x1b[?62;c"
