package library

import (
	"maps"
	"regexp"
	"strings"
	"unicode"

	"github.com/ibid-dev/ibid/rag/bib"
	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/store"
	"golang.org/x/text/unicode/norm"
)

// matcher finds the bibliography entry of a document: by DOI (the
// document's recorded DOI, or a DOI printed on its first pages), else by
// normalised title and first author (the document's title and author, or
// the entry's title and first author's family name printed on its first
// pages).
type matcher struct {
	entries []bib.Entry
	byDOI   map[string][]int // lower-case DOI → entries, in bibliography order
	titles  []string         // squashed titles (squash), by entry
	authors []string         // squashed first-author family names, by entry
}

func newMatcher(entries []bib.Entry) *matcher {
	m := &matcher{entries: entries, byDOI: map[string][]int{}, titles: make([]string, len(entries)), authors: make([]string, len(entries))}
	for i, e := range entries {
		if e.DOI != "" {
			d := strings.ToLower(e.DOI)
			m.byDOI[d] = append(m.byDOI[d], i)
		}
		m.titles[i] = squash(e.Title)
		if len(e.Authors) > 0 {
			m.authors[i] = squash(e.Authors[0].Family)
		}
	}
	return m
}

// minTitle is the shortest squashed title matched inside a page's text:
// shorter ones ("Notes", "Introduction") match too much.
const minTitle = 16

// match returns the index of doc's entry and how it matched ("DOI" or
// "title and first author"), or -1. head is the text of the document's
// first pages. Of several entries with the same DOI, the one whose title
// also matches wins, else the first.
func (m *matcher) match(doc store.Document, head string) (int, string) {
	dois := []string{}
	if d := doc.Meta[bib.MetaDOI]; d != "" {
		dois = append(dois, strings.ToLower(d))
	}
	dois = append(dois, findDOIs(head)...)
	sqHead := squash(head)
	sqTitle := squash(doc.Title)
	sqAuthor := squash(doc.Author)
	titleMatches := func(i int) bool {
		t := m.titles[i]
		if t == "" {
			return false
		}
		if t == sqTitle || len(t) >= minTitle && strings.Contains(sqHead, t) {
			a := m.authors[i]
			return a == "" || strings.Contains(sqAuthor, a) || strings.Contains(sqHead, a)
		}
		return false
	}
	for _, d := range dois {
		if idx := m.byDOI[d]; len(idx) > 0 {
			for _, i := range idx {
				if titleMatches(i) {
					return i, "DOI"
				}
			}
			return idx[0], "DOI"
		}
	}
	for i := range m.entries {
		if titleMatches(i) {
			return i, "title and first author"
		}
	}
	return -1, ""
}

// doiRE finds DOIs in running text.
var doiRE = regexp.MustCompile(`(?i)\b10\.\d{4,9}/[^\s"<>{}]+`)

// findDOIs are the DOIs printed in text, lower-case, trailing
// punctuation dropped.
func findDOIs(text string) []string {
	var out []string
	for _, d := range doiRE.FindAllString(text, 8) {
		d = strings.TrimRight(d, ".,;:)]'")
		out = append(out, strings.ToLower(d))
	}
	return out
}

// squash is s reduced to its lower-case letters and digits, accents
// dropped, so that "Zero-Shot\nRe- trieval" and "Zero-shot retrieval"
// compare equal, as PDFs break and hyphenate lines.
func squash(s string) string {
	var b strings.Builder
	for _, r := range norm.NFKD.String(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// withEntry is doc with an entry's metadata (bib.Entry.Meta) in place of
// the bibliography metadata it had; the bibliography's title replaces the
// document's only when the document has none of its own (its title is its
// file name, or the one a bibliography gave it before). changed reports
// whether anything differs.
func withEntry(doc store.Document, meta map[string]string) (store.Document, bool) {
	next := make(map[string]string, len(doc.Meta)+len(meta))
	for k, v := range doc.Meta {
		next[k] = v
	}
	for _, k := range bib.MetaKeys {
		delete(next, k)
	}
	for k, v := range meta {
		next[k] = v
	}
	title := doc.Title
	if t := meta[bib.MetaTitle]; t != "" && (doc.Title == "" || doc.Title == ingest.FileTitle(doc.Path) || doc.Title == doc.Meta[bib.MetaTitle]) {
		title = t
	}
	changed := title != doc.Title || !maps.Equal(next, doc.Meta)
	doc.Title = title
	if len(next) == 0 {
		next = nil
	}
	doc.Meta = next
	return doc, changed
}
