package bib

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// cslItem is a CSL JSON item as read: the fields ibid uses, each in the
// shapes tools write (Zotero, Better BibTeX, Pandoc, citation.js).
type cslItem struct {
	ID          json.RawMessage `json:"id"`
	CitationKey string          `json:"citation-key"`
	Type        string          `json:"type"`
	Title       string          `json:"title"`
	Author      []cslName       `json:"author"`
	Editor      []cslName       `json:"editor"`
	Issued      json.RawMessage `json:"issued"`
	Container   string          `json:"container-title"`
	Event       string          `json:"event-title"`
	EventOld    string          `json:"event"`
	Publisher   string          `json:"publisher"`
	DOI         string          `json:"DOI"`
	URL         string          `json:"URL"`
	Language    string          `json:"language"`
	// File is not CSL; some tools add it (a path, several joined by ';',
	// or a list).
	File json.RawMessage `json:"file"`
}

type cslName struct {
	Family      string `json:"family"`
	Given       string `json:"given"`
	Literal     string `json:"literal"`
	NonDropping string `json:"non-dropping-particle"`
	Dropping    string `json:"dropping-particle"`
	Suffix      string `json:"suffix"`
}

// ParseCSL reads CSL JSON: an array of items (Zotero's and Pandoc's
// export), or one item, or an object with an "items" array. An item
// without an id is a Problem; a file that is not CSL JSON at all is an
// error.
func ParseCSL(src []byte) ([]Entry, []Problem, error) {
	src = bytes.TrimPrefix(src, []byte("\ufeff"))
	trim := bytes.TrimSpace(src)
	var items []json.RawMessage
	switch {
	case len(trim) == 0:
		return nil, nil, fmt.Errorf("empty file; CSL JSON is an array of items")
	case trim[0] == '[':
		if err := json.Unmarshal(trim, &items); err != nil {
			return nil, nil, fmt.Errorf("not CSL JSON: %w", jsonErr(trim, err))
		}
	case trim[0] == '{':
		var wrap struct {
			Items []json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(trim, &wrap); err != nil {
			return nil, nil, fmt.Errorf("not CSL JSON: %w", jsonErr(trim, err))
		}
		items = wrap.Items
		if items == nil {
			items = []json.RawMessage{trim}
		}
	default:
		return nil, nil, fmt.Errorf("not CSL JSON: it should start with '[' (an array of items)")
	}
	var entries []Entry
	var problems []Problem
	seen := map[string]bool{}
	for i, raw := range items {
		var it cslItem
		if err := json.Unmarshal(raw, &it); err != nil {
			problems = append(problems, Problem{Text: fmt.Sprintf("item %d: %v", i+1, err)})
			continue
		}
		e := it.entry()
		if e.Key == "" {
			problems = append(problems, Problem{Text: fmt.Sprintf("item %d (%q) has no id; it is left out", i+1, e.Title)})
			continue
		}
		if seen[strings.ToLower(e.Key)] {
			problems = append(problems, Problem{Key: e.Key, Text: "duplicate id; this item is left out"})
			continue
		}
		seen[strings.ToLower(e.Key)] = true
		entries = append(entries, e)
	}
	return entries, problems, nil
}

// jsonErr adds the line to a JSON syntax error.
func jsonErr(src []byte, err error) error {
	if se, ok := err.(*json.SyntaxError); ok {
		line := bytes.Count(src[:min(int(se.Offset), len(src))], []byte("\n")) + 1
		return fmt.Errorf("line %d: %v", line, err)
	}
	return err
}

func (it *cslItem) entry() Entry {
	e := Entry{Key: oneLine(it.CitationKey), Type: oneLine(it.Type)}
	if e.Key == "" {
		e.Key = oneLine(jsonScalar(it.ID))
	}
	e.Title = oneLine(stripHTML(it.Title))
	names := it.Author
	if len(names) == 0 {
		names = it.Editor
	}
	for _, n := range names {
		name := Name{
			Given:    oneLine(joinNonEmpty(n.Given, n.Dropping)),
			Particle: oneLine(n.NonDropping),
			Family:   oneLine(n.Family),
			Suffix:   oneLine(n.Suffix),
		}
		if name.Family == "" {
			name.Family = oneLine(n.Literal)
		}
		if name.Family == "" && name.Given != "" {
			name.Family, name.Given = name.Given, ""
		}
		if name.Family != "" {
			e.Authors = append(e.Authors, name)
		}
	}
	e.Year = cslYear(it.Issued)
	for _, v := range []string{it.Container, it.Event, it.EventOld, it.Publisher} {
		if v = oneLine(stripHTML(v)); v != "" {
			e.Venue = v
			break
		}
	}
	e.DOI = CleanDOI(it.DOI)
	e.URL = oneLine(it.URL)
	e.Language = oneLine(it.Language)
	for _, p := range cslFiles(it.File) {
		e.Files = append(e.Files, File{Path: fileURLPath(p)})
	}
	return e
}

// joinNonEmpty joins the non-empty strings with a space.
func joinNonEmpty(s ...string) string {
	var out []string
	for _, x := range s {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return strings.Join(out, " ")
}

// jsonScalar is a JSON string or number as text.
func jsonScalar(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

// cslYear reads the year of a CSL date: {"date-parts": [[2023, 5]]}
// (numbers or strings), {"raw": "2023-05"}, {"literal": "Spring 2023"},
// or a bare string.
func cslYear(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var d struct {
		Parts   [][]json.RawMessage `json:"date-parts"`
		Raw     string              `json:"raw"`
		Literal string              `json:"literal"`
		Season  json.RawMessage     `json:"season"`
	}
	if json.Unmarshal(raw, &d) != nil {
		return year(jsonScalar(raw))
	}
	if len(d.Parts) > 0 && len(d.Parts[0]) > 0 {
		if y := jsonScalar(d.Parts[0][0]); y != "" {
			if n, err := strconv.Atoi(y); err == nil && n > 0 && n < 10000 {
				return fmt.Sprintf("%04d", n)
			}
		}
	}
	if y := year(d.Raw); y != "" {
		return y
	}
	return year(d.Literal)
}

// cslFiles reads the non-standard "file" field: a string (paths joined
// by ';') or a list of strings.
func cslFiles(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	var list []string
	if json.Unmarshal(raw, &list) != nil {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil
		}
		list = strings.Split(s, ";")
	}
	var out []string
	for _, p := range list {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// stripHTML drops the few HTML tags CSL allows in titles (<i>, <b>,
// <sup>, <sub>, <span class="nocase">).
func stripHTML(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := strings.IndexByte(s[i:], '>')
		tag := ""
		if j > 0 {
			tag = strings.ToLower(strings.TrimLeft(s[i+1:i+j], "/"))
			tag, _, _ = strings.Cut(tag, " ")
		}
		switch tag {
		case "i", "b", "sup", "sub", "span", "em", "strong", "sc":
			b.WriteString(s[:i])
			s = s[i+j+1:]
		default:
			b.WriteString(s[:i+1])
			s = s[i+1:]
		}
	}
}
