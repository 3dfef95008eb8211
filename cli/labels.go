package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/retrieve"
	"github.com/ibid-dev/ibid/store"
)

// This file names things for the reader: paths, ids, titles, pages and
// sections as the commands print them.

// displayPath shows path relative to the working folder when it is under
// it, else with the home folder as ~.
func displayPath(path string) string {
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, path); err == nil && filepath.IsLocal(rel) {
			return rel
		}
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		if rel, err := filepath.Rel(home, path); err == nil && filepath.IsLocal(rel) {
			return filepath.Join("~", rel)
		}
	}
	return path
}

// shortID is the first 12 characters of a document id, enough to name it
// to ibid rm.
func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// plural is "1 segment", "2 segments".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// docTitle is a document's name as shown (rag.DocTitle), cleaned for the
// terminal.
func docTitle(d store.Document) string { return clean(rag.DocTitle(d)) }

// pageLabel is "p. 3" or "pp. 3–4" for a segment with pages (rag.Pages).
func pageLabel(s store.Segment) string { return rag.Pages(s.PageStart, s.PageEnd) }

// sectionLabel is a passage's section path, without a first heading that
// only repeats the document's title.
func sectionLabel(p retrieve.Passage) string {
	return clean(rag.SectionText(p.Document, p.Segment.Section))
}
