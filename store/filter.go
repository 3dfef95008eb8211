package store

import (
	"path/filepath"
	"strings"
)

// Filter limits a search to some segments. It is data, so that a database
// can answer it where the data lives; the zero Filter admits everything.
// Match is the reference meaning, and every backend must agree with it.
type Filter struct {
	// Documents admits the documents named by any of its patterns: a
	// document id or id prefix, a glob (path.Match syntax) over the
	// document's path, or, for a pattern without a separator, over the
	// path's base name. Empty admits every document.
	Documents []string `json:"documents,omitempty"`
	// Section admits segments whose section path, joined with " / ",
	// contains it, ignoring case. Empty admits every segment.
	Section string `json:"section,omitempty"`
	// PageFrom and PageTo admit segments whose page range overlaps
	// [PageFrom, PageTo]; 0 leaves that end open. A segment without pages
	// (PageStart 0) is admitted only when both are 0.
	PageFrom int `json:"page_from,omitempty"`
	PageTo   int `json:"page_to,omitempty"`
}

// IsZero reports whether f admits every segment.
func (f Filter) IsZero() bool {
	return len(f.Documents) == 0 && f.Section == "" && f.PageFrom == 0 && f.PageTo == 0
}

// Match reports whether f admits seg of doc.
func (f Filter) Match(doc *Document, seg *Segment) bool {
	if len(f.Documents) > 0 && !f.MatchDocument(doc) {
		return false
	}
	if f.Section != "" && !strings.Contains(strings.ToLower(SectionPath(seg.Section)), strings.ToLower(f.Section)) {
		return false
	}
	if f.PageFrom != 0 || f.PageTo != 0 {
		if seg.PageStart == 0 {
			return false
		}
		end := max(seg.PageEnd, seg.PageStart)
		if f.PageFrom != 0 && end < f.PageFrom {
			return false
		}
		if f.PageTo != 0 && seg.PageStart > f.PageTo {
			return false
		}
	}
	return true
}

// MatchDocument reports whether f.Documents admits doc (true when empty).
func (f Filter) MatchDocument(doc *Document) bool {
	if len(f.Documents) == 0 {
		return true
	}
	for _, p := range f.Documents {
		if p == "" {
			continue
		}
		if strings.HasPrefix(doc.ID, p) {
			return true
		}
		if ok, _ := filepath.Match(p, doc.Path); ok {
			return true
		}
		if !strings.ContainsRune(p, filepath.Separator) {
			if ok, _ := filepath.Match(p, filepath.Base(doc.Path)); ok {
				return true
			}
		}
	}
	return false
}

// SectionPath joins a heading path for display and for Filter.Section:
// "Methods / Data".
func SectionPath(section []string) string { return strings.Join(section, " / ") }
