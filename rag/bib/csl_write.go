package bib

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// bibtexTypes maps BibTeX and BibLaTeX entry types to CSL types.
var bibtexTypes = map[string]string{
	"article": "article-journal", "inproceedings": "paper-conference", "conference": "paper-conference",
	"proceedings": "book", "book": "book", "mvbook": "book", "inbook": "chapter", "incollection": "chapter",
	"bookinbook": "chapter", "collection": "book", "phdthesis": "thesis", "mastersthesis": "thesis",
	"thesis": "thesis", "techreport": "report", "report": "report", "manual": "report",
	"online": "webpage", "electronic": "webpage", "www": "webpage", "misc": "document",
	"unpublished": "manuscript", "booklet": "pamphlet", "patent": "patent", "dataset": "dataset",
	"software": "software", "preprint": "article",
}

// zoteroTypes maps Zotero item types to CSL types.
var zoteroTypes = map[string]string{
	"journalArticle": "article-journal", "conferencePaper": "paper-conference", "book": "book",
	"bookSection": "chapter", "thesis": "thesis", "report": "report", "preprint": "article",
	"magazineArticle": "article-magazine", "newspaperArticle": "article-newspaper",
	"webpage": "webpage", "blogPost": "post-weblog", "computerProgram": "software",
	"presentation": "speech", "document": "document", "manuscript": "manuscript", "dataset": "dataset",
	"patent": "patent", "encyclopediaArticle": "entry-encyclopedia", "dictionaryEntry": "entry-dictionary",
	"attachment": "document",
}

// cslType maps a source's type name to a CSL type through table:
// "document" when unknown, "" for "".
func cslType(table map[string]string, t string) string {
	if t == "" {
		return ""
	}
	if c, ok := table[t]; ok {
		return c
	}
	if c, ok := table[strings.ToLower(t)]; ok {
		return c
	}
	return "document"
}

// publisherTypes are the CSL types whose venue is a publisher or an
// institution rather than a container.
var publisherTypes = map[string]bool{"book": true, "thesis": true, "report": true, "pamphlet": true, "software": true, "dataset": true}

// CSLItem is e as a CSL JSON item, for a citation processor (pandoc
// --citeproc): id, type, title, author, issued, container-title or
// publisher, DOI, URL.
func CSLItem(e Entry) map[string]any {
	typ := e.Type
	if typ == "" {
		typ = "document"
		if e.Venue != "" {
			typ = "article-journal"
		}
	}
	it := map[string]any{"id": e.Key, "type": typ}
	if e.Title != "" {
		it["title"] = e.Title
	}
	if len(e.Authors) > 0 {
		names := make([]map[string]string, 0, len(e.Authors))
		for _, a := range e.Authors {
			n := map[string]string{}
			switch {
			case a.Given == "" && a.Particle == "" && a.Suffix == "":
				n["literal"] = a.Family
			default:
				n["family"] = a.Family
				if a.Given != "" {
					n["given"] = a.Given
				}
				if a.Particle != "" {
					n["non-dropping-particle"] = a.Particle
				}
				if a.Suffix != "" {
					n["suffix"] = a.Suffix
				}
			}
			names = append(names, n)
		}
		it["author"] = names
	}
	if y, err := strconv.Atoi(e.Year); err == nil {
		it["issued"] = map[string]any{"date-parts": [][]int{{y}}}
	}
	if e.Venue != "" {
		if publisherTypes[typ] {
			it["publisher"] = e.Venue
		} else {
			it["container-title"] = e.Venue
		}
	}
	if e.DOI != "" {
		it["DOI"] = e.DOI
	}
	if e.URL != "" {
		it["URL"] = e.URL
	}
	if l := cslLanguage(e.Language); l != "" {
		it["language"] = l
	}
	return it
}

// WriteCSL is entries as a CSL JSON array, indented, in the order given.
func WriteCSL(entries []Entry) ([]byte, error) {
	items := make([]map[string]any, len(entries))
	for i, e := range entries {
		items[i] = CSLItem(e)
	}
	b, err := json.MarshalIndent(items, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// ErrNotCSL is wrapped by the error of content that should be a CSL JSON
// array and is not.
var ErrNotCSL = errors.New("not a CSL JSON array")

// MergeCSL adds entries to a CSL JSON array (existing; empty for none),
// keeping its items exactly as they are and adding each entry whose id
// it lacks, in order. It returns the new file and how many were added;
// existing content that is not a CSL JSON array is an error, and nothing
// is merged.
func MergeCSL(existing []byte, entries []Entry) ([]byte, int, error) {
	var items []json.RawMessage
	if len(bytes.TrimSpace(existing)) > 0 {
		if err := json.Unmarshal(existing, &items); err != nil {
			return nil, 0, fmt.Errorf("%w: %s", ErrNotCSL, jsonProblem(existing, err))
		}
	}
	have := map[string]bool{}
	for _, it := range items {
		var id struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(it, &id) == nil {
			have[jsonScalar(id.ID)] = true
		}
	}
	added := 0
	for _, e := range entries {
		if have[e.Key] {
			continue
		}
		have[e.Key] = true
		b, err := json.Marshal(CSLItem(e))
		if err != nil {
			return nil, 0, err
		}
		items = append(items, b)
		added++
	}
	if items == nil {
		items = []json.RawMessage{}
	}
	out, err := json.MarshalIndent(items, "", "  ")
	if err != nil {
		return nil, 0, err
	}
	return append(out, '\n'), added, nil
}

// babelLanguages maps the language names BibLaTeX (langid) and people
// write to the codes CSL reads.
var babelLanguages = map[string]string{
	"english": "en", "american": "en-US", "british": "en-GB", "german": "de", "ngerman": "de",
	"austrian": "de-AT", "naustrian": "de-AT", "swissgerman": "de-CH", "french": "fr", "italian": "it",
	"spanish": "es", "portuguese": "pt", "brazilian": "pt-BR", "dutch": "nl", "swedish": "sv",
	"danish": "da", "norwegian": "nb", "finnish": "fi", "polish": "pl", "czech": "cs",
	"russian": "ru", "greek": "el", "turkish": "tr", "japanese": "ja", "chinese": "zh", "korean": "ko",
	"latin": "la", "catalan": "ca", "hungarian": "hu", "croatian": "hr", "romanian": "ro",
}

// cslLanguage is a language as CSL wants it (a code: "de", "en-US"):
// codes are kept, BibLaTeX's and plain names mapped, anything else left
// out.
func cslLanguage(l string) string {
	l = strings.TrimSpace(l)
	if c, ok := babelLanguages[strings.ToLower(l)]; ok {
		return c
	}
	if len(l) == 2 || len(l) == 5 && (l[2] == '-' || l[2] == '_') {
		return strings.ReplaceAll(l, "_", "-")
	}
	return ""
}

// jsonProblem says in words why data did not decode as a JSON array
// (err is json.Unmarshal's): where the syntax breaks, by line and column,
// or what kind of value it holds instead; Go's own message otherwise.
func jsonProblem(data []byte, err error) string {
	var syntax *json.SyntaxError
	var kind *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		line, col := 1, 1
		for _, c := range data[:min(int(syntax.Offset), len(data))] {
			if c == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
		}
		return fmt.Sprintf("it is not valid JSON (line %d, column %d: %s)", line, col, syntax.Error())
	case errors.As(err, &kind) && kind.Field == "":
		return fmt.Sprintf("it holds a JSON %s, not an array of items", kind.Value)
	}
	return err.Error()
}
