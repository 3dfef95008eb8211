package rag

import (
	"fmt"
	"strings"

	"github.com/ibid-dev/ibid/rag/bib"
	"github.com/ibid-dev/ibid/store"
)

// AuthorYear is how a footnote names the work a source cites: "Gao et
// al. 2023", "Gao and Ma 2023", "Gao 2023" (bib.AuthorYear), or "" when
// the document has no bibliography entry with authors or a year.
func (s Source) AuthorYear() string {
	names := make([]bib.Name, len(s.Authors))
	for i, a := range s.Authors {
		names[i] = bib.ParseName(a)
	}
	return bib.AuthorYear(names, false, s.Year)
}

// Label is a footnote's one-line label: the work (author–year, else the
// title), the pages and the section, joined by " · ":
// "Gao et al. 2023 · p. 5 · § 3.1".
func (s Source) Label() string {
	parts := []string{s.AuthorYear()}
	if parts[0] == "" {
		parts[0] = s.Title
	}
	if p := Pages(s.PageStart, s.PageEnd); p != "" {
		parts = append(parts, p)
	}
	if s.Section != "" {
		parts = append(parts, "§ "+s.Section)
	}
	return strings.Join(parts, " · ")
}

// CiteStyle is how Markdown output cites: Pandoc footnotes ([^n], the
// default), or Pandoc citations ([@key, p. 5]) for the documents that
// have a citekey, footnotes for the rest. It is not the model's citation
// format (citations.Mode): it is the output's.
type CiteStyle string

const (
	CiteFootnotes CiteStyle = "footnotes"
	CitePandoc    CiteStyle = "pandoc"
)

// CiteStyles lists the styles, for help texts.
var CiteStyles = []CiteStyle{CiteFootnotes, CitePandoc}

// ParseCiteStyle reads a style name; "" is CiteFootnotes.
func ParseCiteStyle(s string) (CiteStyle, error) {
	switch CiteStyle(strings.ToLower(strings.TrimSpace(s))) {
	case "", CiteFootnotes:
		return CiteFootnotes, nil
	case CitePandoc:
		return CitePandoc, nil
	}
	return "", fmt.Errorf("unknown citation style %q: use footnotes or pandoc", s)
}

// Citable reports whether a reference to s is written as a Pandoc
// citation: its document has a citekey and the reference was made by
// the answer (an inferred one stays a footnote, marked as such).
func Citable(s Source) bool { return s.Citekey != "" && !s.Inferred }

// CiteGroup gathers adjacent references ([1][2]) into one Pandoc
// citation, "[@gao2023, p. 5; @ma2022]", each work once.
type CiteGroup struct {
	items []string
	seen  map[string]bool
}

// Add adds a reference to s (Citable) to the group.
func (g *CiteGroup) Add(s Source) {
	item := pandocKey(s.Citekey)
	if loc := Pages(s.PageStart, s.PageEnd); loc != "" {
		item += ", " + loc
	}
	if g.seen == nil {
		g.seen = map[string]bool{}
	}
	if g.seen[item] {
		return
	}
	g.seen[item] = true
	g.items = append(g.items, item)
}

// Open reports whether the group holds references not yet written.
func (g *CiteGroup) Open() bool { return len(g.items) > 0 }

// Flush returns the group as a Pandoc citation ("" when empty) and
// empties it.
func (g *CiteGroup) Flush() string {
	if len(g.items) == 0 {
		return ""
	}
	s := "[" + strings.Join(g.items, "; ") + "]"
	g.items, g.seen = g.items[:0], nil
	return s
}

// pandocKey is "@key", or "@{key}" for a key with characters Pandoc's
// plain form does not take (it takes letters, digits and _, and
// :.#$%&-+?<>~/ inside).
func pandocKey(key string) string {
	plain := key != ""
	for i, r := range key {
		inner := strings.ContainsRune(":.#$%&-+?<>~/", r) && i > 0 && i < len(key)-1
		if !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127 && r != '\uFFFD' || inner) {
			plain = false
		}
	}
	if plain {
		return "@" + key
	}
	return "@{" + strings.NewReplacer("{", "", "}", "").Replace(key) + "}"
}

// CitedWorks are the bibliography entries of the cited documents that
// have a citekey, each once, in order of first citation: from the
// document's metadata (doc, when it finds the document), else from what
// the source carries.
func CitedWorks(sources []Source, doc func(id string) (store.Document, bool)) []bib.Entry {
	var out []bib.Entry
	seen := map[string]bool{}
	for _, s := range sources {
		if s.Citekey == "" || seen[s.Citekey] {
			continue
		}
		seen[s.Citekey] = true
		var e bib.Entry
		if d, ok := doc(s.DocumentID); ok && d.Meta[bib.MetaCitekey] == s.Citekey {
			e = bib.FromMeta(d.Title, d.Meta)
		} else {
			e = bib.Entry{Key: s.Citekey, Title: s.Title, Year: s.Year, DOI: s.DOI}
			for _, a := range s.Authors {
				e.Authors = append(e.Authors, bib.ParseName(a))
			}
		}
		out = append(out, e)
	}
	return out
}
