package cli

import (
	"errors"
	"fmt"

	"github.com/ibid-dev/ibid/rag/bib"
)

// checkBibliography refuses, before an answer is made, a --bibliography
// file that exists and is not CSL JSON, so that it is never overwritten.
func checkBibliography(path string) error {
	err := bib.CheckCSLFile(path)
	if errors.Is(err, bib.ErrNotCSL) {
		return fmt.Errorf("%w; name a new file or a CSL JSON file", err)
	}
	return err
}

// writeBibliography adds works to the CSL JSON file at path (creating
// it), keeping what it holds; it returns how many were new. The file is
// replaced atomically.
func writeBibliography(path string, works []bib.Entry) (int, error) {
	return bib.AddToCSLFile(path, works)
}
