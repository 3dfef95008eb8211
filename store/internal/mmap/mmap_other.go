//go:build !unix

package mmap

import "os"

// Anon refuses: the caller allocates on the heap.
func Anon(int, bool) ([]byte, bool) { return nil, false }

// Release has nothing to release.
func Release([]byte) {}

// File refuses: the caller reads the file.
func File(*os.File, int64) []byte { return nil }
