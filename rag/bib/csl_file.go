package bib

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ibid-dev/ibid/internal/atomicfile"
	"github.com/ibid-dev/ibid/internal/regular"
)

// AddToCSLFile adds entries to the CSL JSON file at path (MergeCSL: its
// items kept exactly, each entry whose id it lacks added), creating the
// file and its folder, and returns how many were new. The file is
// replaced atomically: a reader never sees half of it, and a crash leaves
// the old one. A file that exists and is not a CSL JSON array is left as
// it is, and the error says so (CheckCSLFile's).
func AddToCSLFile(path string, entries []Entry) (int, error) {
	old, err := readCSLFile(path)
	if err != nil {
		return 0, err
	}
	out, n, err := MergeCSL(old, entries)
	if err != nil {
		return 0, fmt.Errorf("%s exists and is %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return 0, err
	}
	return n, atomicfile.WriteFile(path, out, 0o644)
}

// CheckCSLFile says, before anything is written, whether AddToCSLFile
// could add to path: nil when it does not exist or is a CSL JSON array,
// otherwise AddToCSLFile's error ("PATH exists and is not a CSL JSON
// array: …").
func CheckCSLFile(path string) error {
	old, err := readCSLFile(path)
	if err != nil {
		return err
	}
	if _, _, err := MergeCSL(old, nil); err != nil {
		return fmt.Errorf("%s exists and is %w", path, err)
	}
	return nil
}

// readCSLFile is the content of the file at path, nil when there is none;
// as a bibliography is read (a named pipe refused, not waited on; at most
// maxFileBytes).
func readCSLFile(path string) ([]byte, error) {
	data, err := regular.ReadFile(path, maxFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}
