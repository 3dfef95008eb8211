package bib

import (
	"encoding/json"
	"strings"
)

// The keys of store.Document.Meta that hold a document's bibliographic
// metadata. Values are single lines; MetaAuthors is a JSON array of
// "Family, Given" (Name.String), and a "; "-joined list is read too.
const (
	MetaCitekey = "citekey"
	MetaAuthors = "authors"
	MetaYear    = "year"
	MetaVenue   = "venue"
	MetaDOI     = "doi"
	MetaURL     = "url"
	// MetaSource says where the metadata came from: the bibliography's
	// absolute path, or "zotero:" (the Zotero library), or
	// "zotero:collection/NAME".
	MetaSource = "bib_source"
	// MetaTitle is the bibliography's title for the work (the document's
	// own title, from its file, stays Document.Title when it has one).
	MetaTitle = "bib_title"
	// MetaType is the work's CSL type ("article-journal", "book"), for
	// writing it back out as CSL JSON.
	MetaType = "bib_type"
	// MetaLanguage is the work's language as the manager wrote it.
	MetaLanguage = "bib_language"
	// MetaEtAl is "1" when the bibliography's author list ended in
	// "and others".
	MetaEtAl = "bib_etal"
)

// MetaKeys are all the keys Meta may set, so that an update can clear
// the ones an entry no longer has.
var MetaKeys = []string{MetaCitekey, MetaAuthors, MetaYear, MetaVenue, MetaDOI, MetaURL, MetaSource, MetaTitle, MetaType, MetaLanguage, MetaEtAl}

// Meta is e's metadata as document metadata keys, from source (see
// MetaSource); empty fields are left out.
func (e *Entry) Meta(source string) map[string]string {
	m := map[string]string{}
	set := func(k, v string) {
		if v = oneLine(v); v != "" {
			m[k] = v
		}
	}
	set(MetaCitekey, e.Key)
	if len(e.Authors) > 0 {
		b, _ := json.Marshal(e.authorStrings())
		m[MetaAuthors] = string(b)
	}
	if e.EtAl {
		m[MetaEtAl] = "1"
	}
	set(MetaYear, e.Year)
	set(MetaVenue, e.Venue)
	set(MetaDOI, e.DOI)
	set(MetaURL, e.URL)
	set(MetaSource, source)
	set(MetaTitle, e.Title)
	set(MetaType, e.Type)
	set(MetaLanguage, e.Language)
	return m
}

// FromMeta is the entry that document metadata describes (Files empty;
// Key empty when the document has no citekey). title is the document's
// title, used when the metadata has none.
func FromMeta(title string, meta map[string]string) Entry {
	e := Entry{
		Key:   meta[MetaCitekey],
		Type:  meta[MetaType],
		Title: meta[MetaTitle],
		Year:  meta[MetaYear],
		Venue: meta[MetaVenue],
		DOI:   meta[MetaDOI],
		URL:   meta[MetaURL],
		EtAl:  meta[MetaEtAl] == "1",

		Language: meta[MetaLanguage],
	}
	if e.Title == "" {
		e.Title = title
	}
	for _, a := range MetaAuthorList(meta[MetaAuthors]) {
		e.Authors = append(e.Authors, ParseName(a))
	}
	return e
}

// MetaAuthorList reads the authors key: a JSON array of strings, or
// names joined by "; ".
func MetaAuthorList(v string) []string {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil
	}
	if strings.HasPrefix(v, "[") {
		var list []string
		if json.Unmarshal([]byte(v), &list) == nil {
			out := list[:0]
			for _, a := range list {
				if a = oneLine(a); a != "" {
					out = append(out, a)
				}
			}
			return out
		}
	}
	var out []string
	for _, a := range strings.Split(v, ";") {
		if a = oneLine(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

// AuthorYear is how a work is named in a footnote: "Gao 2023", "Gao and
// Ma 2023", "Gao et al. 2023", the family names with their particles; the
// year alone, or the authors alone, when the other is not known; "" when
// neither is.
func AuthorYear(authors []Name, etAl bool, year string) string {
	var who string
	switch {
	case len(authors) == 0:
	case len(authors) == 1 && !etAl:
		who = authors[0].FamilyName()
	case len(authors) == 2 && !etAl:
		who = authors[0].FamilyName() + " and " + authors[1].FamilyName()
	default:
		who = authors[0].FamilyName() + " et al."
	}
	return strings.TrimSpace(who + " " + year)
}

// AuthorYear is e's author–year label (see AuthorYear).
func (e *Entry) AuthorYear() string {
	return AuthorYear(e.Authors, e.EtAl, e.Year)
}
