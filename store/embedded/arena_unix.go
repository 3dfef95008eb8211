//go:build unix

package embedded

import (
	"os"

	"golang.org/x/sys/unix"
)

// mapAnon returns n bytes of zeroed memory outside the Go heap (an
// anonymous mapping), for the codes of a loaded library: the garbage
// collector neither scans them nor counts them towards its next cycle,
// so a large library does not double the heap's headroom. populate has
// the system back all of it at once (it is all written at open); without
// it, pages never written cost nothing. ok is false when the system
// refuses; the caller then allocates on the heap.
func mapAnon(n int, populate bool) (b []byte, ok bool) {
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

// unmapAnon releases memory from mapAnon or mapFile.
func unmapAnon(b []byte) { unix.Munmap(b) }

// mapFile maps the first n bytes of f read-only, shared (the page cache's
// own pages: nothing is copied), nil when the system refuses. A file cut
// shorter while mapped faults whoever reads past its new end: the caller
// maps only files that are never cut in place (see appendCodes).
func mapFile(f *os.File, n int64) []byte {
	if n <= 0 || int64(int(n)) != n {
		return nil
	}
	b, err := unix.Mmap(int(f.Fd()), 0, int(n), unix.PROT_READ, unix.MAP_SHARED|mapPopulate)
	if err != nil {
		return nil
	}
	return b
}
