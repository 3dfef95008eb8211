package bib

import (
	"fmt"
	"sort"
	"strings"
)

// ParseBibTeX reads a BibTeX or BibLaTeX file into entries, in the order
// written. What cannot be read (a syntax error, a duplicate citekey) is a
// Problem; everything else is read. Crossref'd fields are inherited
// (booktitle from a @proceedings entry). Bytes that are not UTF-8 are
// read as Windows-1252 (Latin-1), with one Problem saying so.
func ParseBibTeX(src []byte) ([]Entry, []Problem) {
	text, latin := asUTF8(src)
	raws, problems := parseRaw(text)
	if latin > 0 {
		problems = append([]Problem{{Line: latin, Note: true, Text: "the file is not UTF-8; bytes that are not were read as Latin-1 (Windows-1252): save it as UTF-8 if an accent looks wrong"}}, problems...)
	}
	byKey := make(map[string]int, len(raws))
	for i, r := range raws {
		if _, dup := byKey[strings.ToLower(r.key)]; !dup {
			byKey[strings.ToLower(r.key)] = i
		}
	}
	entries := make([]Entry, 0, len(raws))
	seen := make(map[string]int, len(raws))
	for _, r := range raws {
		k := strings.ToLower(r.key)
		if first, dup := seen[k]; dup {
			problems = append(problems, Problem{Line: r.line, Key: r.key,
				Text: fmt.Sprintf("duplicate citekey (first on line %d); this entry is left out", first)})
			continue
		}
		seen[k] = r.line
		if x := r.fields["crossref"]; x != "" {
			if j, ok := byKey[strings.ToLower(plainField(x))]; ok {
				inherit(&r, raws[j])
			}
		}
		entries = append(entries, fromRaw(r))
	}
	return entries, problems
}

// inherit copies into r the fields of its crossref'd parent that it
// lacks, the parent's title as booktitle, as BibTeX and biber do.
func inherit(r *raw, parent raw) {
	for name, v := range parent.fields {
		switch name {
		case "title":
			name = "booktitle"
		case "crossref", "file", "ids", "key":
			continue
		}
		if _, ok := r.fields[name]; !ok {
			r.fields[name] = v
			r.order = append(r.order, name)
		}
	}
}

// venueFields are the fields that name where a work appeared, best first.
var venueFields = []string{
	"journaltitle", "journal", "booktitle", "eventtitle", "publisher",
	"school", "institution", "organization", "howpublished", "series",
}

// fromRaw turns a raw entry into an Entry.
func fromRaw(r raw) Entry {
	f := r.fields
	e := Entry{Key: oneLine(r.key), Type: cslType(bibtexTypes, r.typ), Line: r.line}
	e.Title = oneLine(Latex(f["title"]))
	names := f["author"]
	if names == "" {
		names = f["editor"]
	}
	e.Authors, e.EtAl = bibNames(names)
	e.Year = year(f["year"])
	if e.Year == "" {
		e.Year = year(f["date"])
	}
	for _, v := range venueFields {
		if s := f[v]; s != "" {
			if v == "howpublished" && strings.Contains(s, `\url`) {
				continue
			}
			e.Venue = oneLine(Latex(s))
			break
		}
	}
	e.DOI = CleanDOI(plainField(f["doi"]))
	e.URL = oneLine(plainField(f["url"]))
	if e.URL == "" {
		if h := f["howpublished"]; strings.Contains(h, `\url`) {
			e.URL = oneLine(plainField(h))
		}
	}
	if e.URL == "" {
		e.URL = oneLine(plainField(f["bdsk-url-1"]))
	}
	e.Language = oneLine(Latex(f["langid"]))
	if e.Language == "" {
		e.Language = oneLine(Latex(f["language"]))
	}
	e.Files = bibFiles(r)
	return e
}

// bibFiles reads the attachments of an entry in each manager's spelling:
// file (Zotero, Better BibTeX, JabRef, Mendeley), bdsk-file-N (BibDesk,
// in number order), local-url and pdf (older BibDesk and others).
func bibFiles(r raw) []File {
	var files []File
	files = append(files, parseFileField(r.fields["file"])...)
	var bdsk []string
	for _, name := range r.order {
		if strings.HasPrefix(name, "bdsk-file-") {
			bdsk = append(bdsk, name)
		}
	}
	sort.Slice(bdsk, func(i, j int) bool {
		if len(bdsk[i]) != len(bdsk[j]) {
			return len(bdsk[i]) < len(bdsk[j])
		}
		return bdsk[i] < bdsk[j]
	})
	for _, name := range bdsk {
		if p, ok := bibDeskPath(r.fields[name]); ok {
			files = append(files, File{Path: p})
		}
	}
	for _, name := range []string{"local-url", "pdf"} {
		if v := plainField(r.fields[name]); v != "" {
			files = append(files, File{Path: fileURLPath(v)})
		}
	}
	return files
}

// year is the first run of four digits in s ("2023", "2023-05-12",
// "{2023a}"), or "".
func year(s string) string {
	run := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			run++
			if run == 4 && (i+1 >= len(s) || s[i+1] < '0' || s[i+1] > '9') {
				return s[i-3 : i+1]
			}
			continue
		}
		run = 0
	}
	return ""
}

// CleanDOI takes a DOI as written ("https://doi.org/10.1/X", "doi:10.1/X",
// " 10.1/X ") to its bare form ("10.1/X"); "" when s holds none.
func CleanDOI(s string) string {
	s = strings.TrimSpace(s)
	low := strings.ToLower(s)
	for _, p := range []string{"https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/", "doi.org/", "doi:", "doi "} {
		if strings.HasPrefix(low, p) {
			s = strings.TrimSpace(s[len(p):])
			break
		}
	}
	if !strings.HasPrefix(s, "10.") || !strings.Contains(s, "/") {
		return ""
	}
	return oneLine(s)
}
