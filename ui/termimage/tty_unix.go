//go:build unix

package termimage

import (
	"errors"
	"os"
	"syscall"
)

func openDevTTY() (*os.File, error) { return os.OpenFile("/dev/tty", os.O_RDWR, 0) }

func setNonblock(f *os.File, on bool) error {
	return withFd(f, func(fd uintptr) error { return syscall.SetNonblock(int(fd), on) })
}

func wouldBlock(err error) bool { return errors.Is(err, syscall.EAGAIN) }
