//go:build unix

package regular

import (
	"os"
	"syscall"
)

// openFlags makes opening a named pipe return at once instead of waiting
// for a writer.
const openFlags = syscall.O_NONBLOCK

// blocking turns f, a regular file opened with O_NONBLOCK, back to
// ordinary blocking reads (the flag means nothing to a regular file on
// Linux, but it is cleared so that no platform sees EAGAIN).
func blocking(f *os.File) error {
	return syscall.SetNonblock(int(f.Fd()), false)
}
