package bib

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ibid-dev/ibid/internal/regular"
)

// maxFileBytes bounds a bibliography file read into memory.
const maxFileBytes = 256 << 20

// IsFile reports whether path names a bibliography by its extension:
// .bib, .bibtex, .biblatex (BibTeX) or .json (CSL JSON).
func IsFile(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".bib", ".bibtex", ".biblatex", ".json":
		return true
	}
	return false
}

// ReadFile reads a bibliography file: CSL JSON when it is JSON (by its
// extension or its first character), BibTeX otherwise. Problems are what
// was left out; err is for a file that cannot be read at all, or holds
// no entry.
func ReadFile(path string) ([]Entry, []Problem, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if info.IsDir() {
		return nil, nil, fmt.Errorf("%s is a folder, not a bibliography", path)
	}
	if info.Size() > maxFileBytes {
		return nil, nil, fmt.Errorf("%s is larger than %d MB; is it a bibliography?", path, maxFileBytes>>20)
	}
	src, err := regular.ReadFile(path, maxFileBytes) // a named pipe is refused, not waited on
	if err != nil {
		return nil, nil, err
	}
	var entries []Entry
	var problems []Problem
	trim := bytes.TrimSpace(bytes.TrimPrefix(src, []byte("\ufeff")))
	if strings.EqualFold(filepath.Ext(path), ".json") || len(trim) > 0 && (trim[0] == '[' || trim[0] == '{') {
		entries, problems, err = ParseCSL(src)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
	} else {
		entries, problems = ParseBibTeX(src)
	}
	if len(entries) == 0 && len(problems) == 0 {
		return nil, nil, fmt.Errorf("%s holds no bibliography entries", path)
	}
	return entries, problems, nil
}
