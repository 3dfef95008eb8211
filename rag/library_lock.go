package rag

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// libLockName is the lock file every writer of a library holds, in the
// library's folder, for the whole of an Add, Remove or DeleteLibrary. It is
// never deleted, so that all processes lock the same file.
const libLockName = "writer.lock"

// errLibLocked is what libTryLock returns while another process holds the
// lock.
var errLibLocked = errors.New("library is locked by another process")

// libLock takes the writer lock of the library in dir, creating the folder
// if need be. While another process holds it, libLock calls waiting once
// (if not nil) and polls until the lock is free or ctx is done. The
// returned func releases the lock.
func libLock(ctx context.Context, dir string, waiting func()) (func(), error) {
	if dir == "" {
		return func() {}, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("couldn't create library folder: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, libLockName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("couldn't open the library's lock file: %w", err)
	}
	told := false
	for {
		err := libTryLock(f)
		if err == nil {
			return func() { libUnlock(f); f.Close() }, nil
		}
		if !errors.Is(err, errLibLocked) {
			f.Close()
			return nil, fmt.Errorf("couldn't lock library: %w", err)
		}
		if !told && waiting != nil {
			waiting()
			told = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// libStamp is the modification time of the library's lock file, which
// writers set when they have committed (libTouch); zero if there is none.
func libStamp(dir string) time.Time {
	st, err := os.Stat(filepath.Join(dir, libLockName))
	if err != nil {
		return time.Time{}
	}
	return st.ModTime()
}

// libTouch sets the lock file's modification time to now, telling other
// processes that the library changed, and returns the new stamp.
func libTouch(dir string) time.Time {
	now := time.Now()
	os.Chtimes(filepath.Join(dir, libLockName), now, now)
	return libStamp(dir)
}
