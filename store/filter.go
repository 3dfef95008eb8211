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
	// SkipHeadings leaves out the segments under an outermost heading
	// named by one of them (a whole section, with everything under it),
	// ignoring case and a leading section number: "References" leaves out
	// the sections "References", "7 References" and "7.1. references",
	// not "Referenced work". The outermost heading is the section path
	// (SectionPath) up to its first " / ". Empty names are ignored.
	SkipHeadings []string `json:"skip_headings,omitempty"`
}

// IsZero reports whether f admits every segment.
func (f Filter) IsZero() bool {
	return len(f.Documents) == 0 && f.Section == "" && f.PageFrom == 0 && f.PageTo == 0 && len(f.SkipHeadings) == 0
}

// HeadingNumber is the leading section number Filter.SkipHeadings
// ignores, as a regular expression: digits, dotted levels, an optional
// final dot, then blanks. PostgreSQL reads it as Go's regexp does;
// TopHeading strips the same without a regexp.
const HeadingNumber = `^[0-9]+(\.[0-9]+)*\.?[ \t]+`

// TopHeading is the outermost heading of a section path as
// Filter.SkipHeadings compares it: the path (SectionPath) up to its first
// " / ", without a leading section number (HeadingNumber).
func TopHeading(section []string) string {
	if len(section) == 0 {
		return ""
	}
	top := section[0]
	if i := strings.Index(top, " / "); i >= 0 {
		top = top[:i]
	}
	return top[headingNumberLen(top):]
}

// headingNumberLen is the length of HeadingNumber's match at the start of
// s, 0 when there is none.
func headingNumberLen(s string) int {
	i := 0
	digits := func() bool {
		j := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		return i > j
	}
	if !digits() {
		return 0
	}
	for i+1 < len(s) && s[i] == '.' && '0' <= s[i+1] && s[i+1] <= '9' {
		i++
		digits()
	}
	if i < len(s) && s[i] == '.' {
		i++
	}
	j := i
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	if i == j {
		return 0
	}
	return i
}

// Match reports whether f admits seg of doc.
func (f Filter) Match(doc *Document, seg *Segment) bool {
	if len(f.Documents) > 0 && !f.MatchDocument(doc) {
		return false
	}
	if f.Section != "" && !strings.Contains(strings.ToLower(SectionPath(seg.Section)), strings.ToLower(f.Section)) {
		return false
	}
	if len(f.SkipHeadings) > 0 && len(seg.Section) > 0 {
		top := TopHeading(seg.Section)
		for _, h := range f.SkipHeadings {
			// EqualFold first: it is cheap, and whatever ToLower makes
			// equal it calls equal too; ToLower then decides, as
			// PostgreSQL compares the lowered section key (σ and ς fold
			// together but lower apart).
			//lint:ignore SA6005 the meaning is ToLower's, EqualFold only skips the allocation
			if h != "" && strings.EqualFold(h, top) && strings.ToLower(h) == strings.ToLower(top) {
				return false
			}
		}
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
