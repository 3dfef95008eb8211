package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/ibid-dev/ibid/internal/atomicfile"
	"github.com/ibid-dev/ibid/rag/bib"
)

// checkBibliography refuses, before an answer is made, a --bibliography
// file that exists and is not CSL JSON, so that it is never overwritten.
func checkBibliography(path string) error {
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	}
	if _, _, err := bib.MergeCSL(data, nil); err != nil {
		return fmt.Errorf("%s exists and is %v; name a new file or a CSL JSON file", path, err)
	}
	return nil
}

// writeBibliography adds works to the CSL JSON file at path (creating
// it), keeping what it holds; it returns how many were new. The file is
// replaced atomically.
func writeBibliography(path string, works []bib.Entry) (int, error) {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, err
	}
	out, n, err := bib.MergeCSL(data, works)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return n, atomicfile.WriteFile(path, out, 0o644)
}
