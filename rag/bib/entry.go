// Package bib reads bibliographies, as researchers keep them, into
// entries: BibTeX and BibLaTeX files (as Zotero, Better BibTeX, JabRef,
// Mendeley and BibDesk write them), CSL JSON (Zotero's and Pandoc's own
// format), and Zotero 7's local API. Each entry has a citekey, title,
// authors, year, venue, DOI, URL and the files attached to it, as the
// manager named them; which of those files is readable is for the caller
// (rag/library) to settle.
//
// It also writes what it reads back out: an entry's metadata as the
// document metadata keys ibid stores (Meta, ParseMeta), and CSL JSON
// (WriteCSL) for a manuscript's bibliography.
//
// Nothing here touches the network except the Zotero client, and only at
// the address it is given (the local API listens on the loopback).
package bib

import (
	"strings"
	"unicode"
)

// Entry is one work of a bibliography.
//
// Invariants: Key is not empty; every text field is Unicode (LaTeX
// accents and escapes decoded), on one line, without surrounding space;
// DOI has no resolver prefix ("https://doi.org/", "doi:").
type Entry struct {
	Key     string // the citekey ("gao2023"), or the manager's id
	Type    string // the CSL type ("article-journal", "paper-conference", "book"), "" when not known
	Title   string
	Authors []Name // authors, or the editors of a work without authors
	EtAl    bool   // the name list ended in "and others"
	Year    string // four digits, or ""
	Venue   string // journal, proceedings, publisher, school…
	DOI     string
	URL     string
	// Language is the work's language as the manager wrote it ("de",
	// "ngerman", "German"), "" when not said; citation styles leave a
	// non-English title's case alone.
	Language string
	Files    []File // attachments in the manager's order
	// Line is where the entry starts in its file (BibTeX; 0 otherwise),
	// for messages.
	Line int
}

// Name is one author.
//
// A name with only Family is an institution or a single name ("World
// Health Organization", "Plato").
type Name struct {
	Given    string // "Ludwig"
	Particle string // the von part: "van", "de la"
	Family   string // "Beethoven"
	Suffix   string // "Jr."
}

// FamilyName is the family name as cited, with its particle: "van
// Beethoven".
func (n Name) FamilyName() string {
	if n.Particle == "" {
		return n.Family
	}
	return n.Particle + " " + n.Family
}

// String is the name as stored in document metadata: "Family, Given",
// the particle before the family name ("van Beethoven, Ludwig"), a suffix
// after the given names ("King, Martin Luther, Jr."), and the family name
// alone when there are no given names.
func (n Name) String() string {
	s := n.FamilyName()
	if n.Given != "" {
		s += ", " + n.Given
	}
	if n.Suffix != "" {
		if n.Given == "" {
			s += ","
		}
		s += ", " + n.Suffix
	}
	return s
}

// ParseName reads a name written by Name.String: "Family, Given",
// "Family, Given, Suffix" or "Family". A lower-case leading word of the
// family part ("van Beethoven") becomes the particle.
func ParseName(s string) Name {
	parts := strings.Split(s, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	var n Name
	n.Family = parts[0]
	if len(parts) > 1 {
		n.Given = parts[1]
	}
	if len(parts) > 2 {
		n.Suffix = strings.Join(parts[2:], ", ")
	}
	if words := strings.Fields(n.Family); len(words) > 1 {
		i := 0
		for i < len(words)-1 && startsLower(words[i]) {
			i++
		}
		if i > 0 {
			n.Particle = strings.Join(words[:i], " ")
			n.Family = strings.Join(words[i:], " ")
		}
	}
	return n
}

func startsLower(w string) bool {
	for _, r := range w {
		return unicode.IsLower(r)
	}
	return false
}

// File is one attachment as the manager wrote it.
type File struct {
	// Path is the file's path: absolute, or relative to the
	// bibliography's folder (BibTeX), or to Zotero's linked attachment
	// base folder when Base is set.
	Path string
	// MIME is the type the manager recorded ("application/pdf", JabRef's
	// "PDF"), or "".
	MIME string
	// Description is the manager's label ("Full Text PDF"), or "".
	Description string
	// Base is set for a Zotero linked file stored relative to the linked
	// attachment base folder ("attachments:" paths), which Zotero does not
	// report: the caller must know it.
	Base bool
	// Missing says the manager itself reports the file absent (Zotero's
	// local API gives no size for a file that is not on disk).
	Missing bool
}

// IsPDF reports whether the manager says the file is a PDF, or its name
// ends in .pdf.
func (f File) IsPDF() bool {
	m := strings.ToLower(f.MIME)
	return m == "application/pdf" || m == "pdf" || strings.HasSuffix(strings.ToLower(f.Path), ".pdf")
}

// Authors of e as stored in metadata ("Family, Given" each).
func (e *Entry) authorStrings() []string {
	out := make([]string, len(e.Authors))
	for i, a := range e.Authors {
		out[i] = a.String()
	}
	return out
}
