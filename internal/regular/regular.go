// Package regular opens and reads the files ibid keeps for itself (caches,
// saved conversations, a library's own files) the way the loaders open
// documents: without blocking on a named pipe, refusing anything that is
// not a regular file, and reading no more than a bound. A FIFO, a socket
// or a device left where a cache entry or a state file belongs then costs
// an error, never a hang, and a file grown huge costs no memory.
package regular

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrNotRegular is wrapped by the errors of Open and ReadFile for a path
// that names something other than a regular file.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by ReadFile's error for a file larger than its
// bound.
var ErrTooLarge = errors.New("file too large")

// Open opens the regular file at path for reading without waiting for a
// writer (a named pipe opens at once and is then refused), and checks the
// opened file's type, so that a file swapped after a look cannot slip
// through. A missing file is an error wrapping fs.ErrNotExist.
func Open(path string) (*os.File, fs.FileInfo, error) {
	return OpenFile(path, os.O_RDONLY, 0)
}

// OpenFile is Open with flags and a mode for os.OpenFile (for a file
// opened to be written as well).
func OpenFile(path string, flag int, perm os.FileMode) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, flag|openFlags, perm)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, Kind(fi.Mode()))}
	}
	if err := blocking(f); err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// ReadFile reads the regular file at path whole, refusing (as Open does)
// what is not a regular file and any file larger than max bytes, also one
// that grows past max while it is read.
func ReadFile(path string, max int64) ([]byte, error) {
	f, fi, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > max {
		return nil, tooLarge(path, fi.Size(), max)
	}
	// Sized from the file, as os.ReadFile does, plus a byte to see growth.
	data := make([]byte, 0, fi.Size()+1)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if int64(len(data)) > max {
			return nil, tooLarge(path, int64(len(data)), max)
		}
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)] // it grew since fstat
		}
	}
}

func tooLarge(path string, size, max int64) error {
	return &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w (%d bytes; at most %d are read)", ErrTooLarge, size, max)}
}

// Sweep removes from the cache folder dir, and from its folders down to
// depth levels, every entry that is neither a regular file nor a folder (a
// named pipe, a socket, a device, a symbolic link), so that a library that
// opens the cache's entries as they are cannot hang on one. What cannot be
// listed or removed is left; a missing dir is fine.
func Sweep(dir string, depth int) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		switch {
		case e.IsDir():
			if depth > 1 {
				Sweep(p, depth-1)
			}
		case !e.Type().IsRegular():
			os.Remove(p)
		}
	}
}

// Kind names a file type that is not a regular file: "a named pipe", "a
// directory", …
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "a special file"
}
