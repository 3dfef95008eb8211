// Package modroot finds the root of the Go module a folder is in: the
// nearest folder at or above it that holds go.mod. Tests use it to name
// paths from the repository's root (a test's working directory is its
// package's folder), and to find what lies beside the repository (as
// ibid eval does for a long-document set's shared PDFs).
package modroot

import (
	"os"
	"path/filepath"
)

// Find returns the nearest folder at or above dir (made absolute) that
// holds a go.mod file; ok is false when there is none up to the file
// system's root.
func Find(dir string) (root string, ok bool) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, true
		}
		up := filepath.Dir(d)
		if up == d {
			return "", false
		}
		d = up
	}
}

// Here is Find of the working directory.
func Here() (root string, ok bool) {
	wd, err := os.Getwd()
	if err != nil {
		return "", false
	}
	return Find(wd)
}
