package bib

import (
	"context"
	"encoding/json"
	"net/url"
	"sort"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// zItem is an object of the web API v3 (an item or a collection), the
// fields ibid reads.
type zItem struct {
	Key   string `json:"key"`
	Links struct {
		// Enclosure is an imported file's local file:// URL; Length is
		// absent when the file is not on disk.
		Enclosure *struct {
			Href   string `json:"href"`
			Type   string `json:"type"`
			Title  string `json:"title"`
			Length *int64 `json:"length"`
		} `json:"enclosure"`
	} `json:"links"`
	Meta struct {
		NumChildren int    `json:"numChildren"`
		ParsedDate  string `json:"parsedDate"`
	} `json:"meta"`
	Data zData `json:"data"`
}

type zData struct {
	Key         string     `json:"key"`
	ItemType    string     `json:"itemType"`
	Title       string     `json:"title"`
	ParentItem  string     `json:"parentItem"`
	Creators    []zCreator `json:"creators"`
	Date        string     `json:"date"`
	DOI         string     `json:"DOI"`
	URL         string     `json:"url"`
	Extra       string     `json:"extra"`
	DateAdded   string     `json:"dateAdded"`
	CitationKey string     `json:"citationKey"`
	Language    string     `json:"language"`
	// attachments
	LinkMode    string `json:"linkMode"`
	ContentType string `json:"contentType"`
	Filename    string `json:"filename"`
	Path        string `json:"path"`
	// venues, best first
	PublicationTitle string `json:"publicationTitle"`
	ProceedingsTitle string `json:"proceedingsTitle"`
	ConferenceName   string `json:"conferenceName"`
	BookTitle        string `json:"bookTitle"`
	WebsiteTitle     string `json:"websiteTitle"`
	BlogTitle        string `json:"blogTitle"`
	ForumTitle       string `json:"forumTitle"`
	Repository       string `json:"repository"`
	University       string `json:"university"`
	Institution      string `json:"institution"`
	Publisher        string `json:"publisher"`
	// collections
	Name             string          `json:"name"`
	ParentCollection json.RawMessage `json:"parentCollection"`
}

// parent is a collection's parent key ("" at the top, where the API
// sends false).
func (d *zData) parent() string {
	var s string
	if json.Unmarshal(d.ParentCollection, &s) == nil {
		return s
	}
	return ""
}

type zCreator struct {
	CreatorType string `json:"creatorType"`
	FirstName   string `json:"firstName"`
	LastName    string `json:"lastName"`
	Name        string `json:"name"`
}

// entries turns API items into entries: each regular item with its
// child attachments, and each standalone attachment.
func (z *Zotero) entries(ctx context.Context, items []zItem) ([]Entry, error) {
	var parents []zItem
	children := map[string][]zItem{}
	for _, it := range items {
		switch it.Data.ItemType {
		case "attachment":
			if it.Data.ParentItem != "" {
				children[it.Data.ParentItem] = append(children[it.Data.ParentItem], it)
			} else {
				parents = append(parents, it) // a standalone file
			}
		case "note", "annotation", "":
		default:
			parents = append(parents, it)
		}
	}
	// A listing may leave children out (a collection's); ask for those of
	// items that say they have some.
	for _, p := range parents {
		if p.Meta.NumChildren > 0 && len(children[p.Key]) == 0 && p.Data.ItemType != "attachment" {
			kids, err := z.list(ctx, "users/0/items/"+url.PathEscape(p.Key)+"/children")
			if err != nil {
				return nil, err
			}
			for _, k := range kids {
				if k.Data.ItemType == "attachment" {
					children[p.Key] = append(children[p.Key], k)
				}
			}
		}
	}
	sort.SliceStable(parents, func(i, j int) bool {
		a, b := parents[i].Data.DateAdded, parents[j].Data.DateAdded
		if a != b {
			return a < b
		}
		return parents[i].Key < parents[j].Key
	})
	entries := make([]Entry, 0, len(parents))
	for _, p := range parents {
		e := zoteroEntry(p)
		if p.Data.ItemType == "attachment" {
			e.Files = attachmentFiles(p)
		} else {
			kids := children[p.Key]
			// PDFs first (the file to read), then in the order added.
			sort.SliceStable(kids, func(i, j int) bool {
				pi, pj := kids[i].Data.ContentType == "application/pdf", kids[j].Data.ContentType == "application/pdf"
				if pi != pj {
					return pi
				}
				if kids[i].Data.DateAdded != kids[j].Data.DateAdded {
					return kids[i].Data.DateAdded < kids[j].Data.DateAdded
				}
				return kids[i].Key < kids[j].Key
			})
			for _, c := range kids {
				e.Files = append(e.Files, attachmentFiles(c)...)
			}
		}
		entries = append(entries, e)
	}
	assignKeys(entries)
	return entries, nil
}

// zoteroEntry is an item's metadata as an entry (Key "" when the item
// has no citation key).
func zoteroEntry(it zItem) Entry {
	d := it.Data
	e := Entry{Type: cslType(zoteroTypes, d.ItemType), Title: oneLine(d.Title), URL: oneLine(d.URL), Language: oneLine(d.Language)}
	e.Key = oneLine(d.CitationKey)
	extra := extraFields(d.Extra)
	if e.Key == "" {
		e.Key = extra["citation key"]
	}
	e.DOI = CleanDOI(d.DOI)
	if e.DOI == "" {
		e.DOI = CleanDOI(extra["doi"])
	}
	e.Year = year(d.Date)
	if e.Year == "" {
		e.Year = year(it.Meta.ParsedDate)
	}
	for _, v := range []string{d.PublicationTitle, d.ProceedingsTitle, d.ConferenceName, d.BookTitle,
		d.WebsiteTitle, d.BlogTitle, d.ForumTitle, d.Repository, d.University, d.Institution, d.Publisher} {
		if v = oneLine(v); v != "" {
			e.Venue = v
			break
		}
	}
	e.Authors = creators(d.Creators, "author")
	if len(e.Authors) == 0 {
		e.Authors = creators(d.Creators, "editor")
	}
	if len(e.Authors) == 0 && len(d.Creators) > 0 {
		e.Authors = creators(d.Creators, d.Creators[0].CreatorType)
	}
	return e
}

// creators are the item's creators of one type, as names.
func creators(cs []zCreator, typ string) []Name {
	var out []Name
	for _, c := range cs {
		if c.CreatorType != typ {
			continue
		}
		n := Name{Given: oneLine(c.FirstName), Family: oneLine(c.LastName)}
		if c.Name != "" { // a single-field name: an institution
			n = Name{Family: oneLine(c.Name)}
		}
		if n.Family == "" {
			n.Family, n.Given = n.Given, ""
		}
		if n.Family == "" {
			continue
		}
		// Zotero keeps "van" in the last name: "van Beethoven".
		if p := ParseName(n.Family); p.Particle != "" && n.Given != "" {
			n.Particle, n.Family = p.Particle, p.Family
		}
		out = append(out, n)
	}
	return out
}

// extraFields reads the "Key: value" lines Zotero and Better BibTeX keep
// in an item's Extra field ("Citation Key: gao2023", "DOI: 10.1/x"),
// keys lower-cased.
func extraFields(extra string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(extra, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		k = strings.ToLower(strings.TrimSpace(k))
		if _, dup := m[k]; !dup && k != "" {
			m[k] = oneLine(v)
		}
	}
	return m
}

// attachmentFiles is the file of an attachment item: an imported file's
// local path (from its enclosure link), a linked file's path (absolute,
// or relative to the linked attachment base folder), none for a linked
// URL.
func attachmentFiles(it zItem) []File {
	d := it.Data
	f := File{MIME: d.ContentType, Description: oneLine(d.Title)}
	switch d.LinkMode {
	case "linked_url":
		return nil
	case "linked_file":
		p := d.Path
		if rest, ok := strings.CutPrefix(p, "attachments:"); ok {
			p, f.Base = rest, true
		}
		f.Path = fileURLPath(p)
	default: // imported_file, imported_url
		if enc := it.Links.Enclosure; enc != nil && enc.Href != "" {
			f.Path = fileURLPath(enc.Href)
			f.Missing = enc.Length == nil
			if f.MIME == "" {
				f.MIME = enc.Type
			}
		} else {
			// No enclosure: the file is not in this Zotero's storage (not
			// synced, or removed); name it for the report.
			f.Path = d.Filename
			f.Missing = true
		}
	}
	if f.Path == "" {
		return nil
	}
	return []File{f}
}

// assignKeys gives each entry without a citekey one, as Better BibTeX's
// simplest pattern makes them: the first author's family name in lower-
// case ASCII and the year ("gao2023"), then "gao2023a", "gao2023b" for the
// next works with the same label; keys already taken are skipped.
func assignKeys(entries []Entry) {
	taken := map[string]bool{}
	for _, e := range entries {
		if e.Key != "" {
			taken[strings.ToLower(e.Key)] = true
		}
	}
	for i := range entries {
		e := &entries[i]
		if e.Key != "" {
			continue
		}
		stem := ""
		if len(e.Authors) > 0 {
			stem = asciiWord(e.Authors[0].Family)
		}
		if stem == "" {
			stem = asciiWord(firstWord(e.Title))
		}
		if stem == "" {
			stem = "item"
		}
		stem += e.Year
		key := stem
		for n := 0; taken[strings.ToLower(key)]; n++ {
			key = stem + suffix(n)
		}
		taken[strings.ToLower(key)] = true
		e.Key = key
	}
}

// suffix is "a", "b", …, "z", "aa", "ab", … for n = 0, 1, ….
func suffix(n int) string {
	s := ""
	for {
		s = string(rune('a'+n%26)) + s
		n = n/26 - 1
		if n < 0 {
			return s
		}
	}
}

// asciiWord is s lower-cased with accents dropped and anything but
// letters and digits left out: "Müller-Lüdenscheidt" → "mullerludenscheidt".
func asciiWord(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		switch {
		case r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			b.WriteRune(unicode.ToLower(r))
		case r == 'ø' || r == 'Ø':
			b.WriteByte('o')
		case r == 'ß':
			b.WriteString("ss")
		case r == 'ł' || r == 'Ł':
			b.WriteByte('l')
		case r == 'æ' || r == 'Æ':
			b.WriteString("ae")
		}
	}
	return b.String()
}

func firstWord(s string) string {
	for _, w := range strings.Fields(s) {
		if len(w) > 3 {
			return w
		}
	}
	return ""
}
