//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package rag

import (
	"errors"
	"os"
	"syscall"
)

// libTryLock takes an exclusive flock on f without waiting.
func libTryLock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return errLibLocked
		default:
			return err
		}
	}
}

func libUnlock(f *os.File) { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
