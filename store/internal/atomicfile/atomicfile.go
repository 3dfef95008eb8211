// Package atomicfile replaces a file's contents atomically and durably: a
// reader (or a crash) sees the old file or the new one, never a part. On
// Unix it is github.com/google/renameio/v2 (temporary file in the same
// folder, fsync, rename, fsync of the folder); renameio does not support
// Windows, where the same steps are taken by hand (without the folder's
// fsync, which Windows cannot do).
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteFile replaces path with data, atomically and durably.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return writeFile(path, data, perm)
}

// writeByHand is the portable way: temporary file beside path, write,
// sync, close, rename over path.
func writeByHand(path string, data []byte, perm os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, perm)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("couldn't replace %s: %w", path, err)
	}
	return nil
}
