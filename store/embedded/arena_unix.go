//go:build unix

package embedded

import "golang.org/x/sys/unix"

// mapAnon returns n bytes of zeroed memory outside the Go heap (an
// anonymous mapping), for the codes of a loaded library: the garbage
// collector neither scans them nor counts them towards its next cycle,
// so a large library does not double the heap's headroom. ok is false
// when the system refuses; the caller then allocates on the heap.
func mapAnon(n int) (b []byte, ok bool) {
	if n == 0 {
		return nil, false
	}
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE|mapPopulate)
	return b, err == nil
}

// unmapAnon releases memory from mapAnon.
func unmapAnon(b []byte) { unix.Munmap(b) }
