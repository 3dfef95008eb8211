//go:build unix

package mmap

import (
	"os"

	"golang.org/x/sys/unix"
)

// Anon returns n bytes of zeroed memory outside the Go heap (an anonymous
// mapping), so that a large array does not double the heap's headroom.
// populate has the system back all of it at once (for memory that is all
// written at once); without it, pages never written cost nothing. ok is
// false when the system refuses or n is 0; the caller then allocates on
// the heap.
func Anon(n int, populate bool) (b []byte, ok bool) {
	if n == 0 {
		return nil, false
	}
	flags := unix.MAP_ANON | unix.MAP_PRIVATE
	if populate {
		flags |= mapPopulate
	}
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, flags)
	return b, err == nil
}

// Release releases memory from Anon or File.
func Release(b []byte) { unix.Munmap(b) }

// File maps the first n bytes of f read-only, shared (the page cache's
// own pages: nothing is copied), nil when the system refuses. A file cut
// shorter while mapped faults whoever reads past its new end: map only
// files that are never cut in place, or recover the fault
// (debug.SetPanicOnFault).
func File(f *os.File, n int64) []byte {
	if n <= 0 || int64(int(n)) != n {
		return nil
	}
	b, err := unix.Mmap(int(f.Fd()), 0, int(n), unix.PROT_READ, unix.MAP_SHARED|mapPopulate)
	if err != nil {
		return nil
	}
	return b
}
