package embedded

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// dropCache asks the kernel to drop the library's files from the page
// cache (only these files), so that the next open reads from the disk.
func dropCache(dir string) bool {
	names, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, de := range names {
		f, err := os.Open(filepath.Join(dir, de.Name()))
		if err != nil {
			return false
		}
		err = unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
		f.Close()
		if err != nil {
			return false
		}
	}
	return true
}
