//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package rag

import "os"

// On systems without flock, writers are not kept apart by a lock; the store
// then refuses a write from a process whose view of the library is out of
// date, so a second writer fails instead of corrupting the library.
func libTryLock(f *os.File) error { return nil }

func libUnlock(f *os.File) {}
