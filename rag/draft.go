package rag

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ibid-dev/ibid/rag/ingest"
)

// This file reads a manuscript's Pandoc citations ([@key], [@key, p. 5],
// [see @a, pp. 3–4; @b], @key [p. 5]) with the sentence each one cites,
// for `ibid verify DRAFT.md`.

// DraftCitation is one citation of a work in a manuscript.
type DraftCitation struct {
	Key string `json:"citekey"` // without @ or braces
	// Page and PageEnd are the page locator (PageEnd 0 for one page);
	// both 0 when the citation names no page.
	Page    int `json:"page,omitempty"`
	PageEnd int `json:"page_end,omitempty"`
	// Locator is the locator as written ("p. 5", "chap. 3"), "" for none.
	Locator string `json:"locator,omitempty"`
	// Claim is the sentence that cites the work, its citations taken out.
	Claim string `json:"claim"`
	Line  int    `json:"line"` // 1-based line of the citation in the manuscript
}

// citeKeyRE is a citekey after '@': Pandoc's plain form (letters, digits,
// _, and :.#$%&-+?<>~/ inside) or {anything}.
var citeKeyRE = regexp.MustCompile(`^(?:\{([^{}]+)\}|([\p{L}\p{N}_](?:[\p{L}\p{N}_:.#$%&\-+?<>~/]*[\p{L}\p{N}_])?))`)

// pageLocRE is a page locator: "p. 5", "pp. 5–7", "page 5", "pages 5-7",
// or a bare number (Pandoc's default label is the page).
var pageLocRE = regexp.MustCompile(`(?i)^(?:(?:p|pp|pg|pgs|page|pages)\.?\s*)?(\d{1,5})(?:\s*(?:-|–|—|--)\s*(\d{1,5}))?\b`)

// otherLocRE is a locator of another kind ("chap. 3", "sec. 2.1"), kept
// as written; such a citation is checked against the whole work.
var otherLocRE = regexp.MustCompile(`(?i)^(?:chap|chapter|sec|section|fig|figure|tab|table|para|paragraph|note|n|vol|volume|art|article|l|line|col|column|v|verse|bk|book|pt|part|s\.v|sub verbo)\.?\s*\S+`)

// draftCite is a citation found in a block's text, before claims.
type draftCite struct {
	key, locator  string
	page, pageEnd int
	at            int // byte offset in the block's text without citations
	line          int
}

// ParseDraft reads a Markdown manuscript's Pandoc citations, each with
// the sentence it cites: the sentence of the text (its citations taken
// out) that ends at or holds the citation. Citations in code spans,
// fenced code and the YAML metadata block are not read; nor is an
// escaped \@ or an e-mail address.
func ParseDraft(md string) []DraftCitation {
	var out []DraftCitation
	lines := strings.SplitAfter(md, "\n")
	i := 0
	// A YAML metadata block at the top.
	if len(lines) > 0 && strings.TrimSpace(lines[0]) == "---" {
		for j := 1; j < len(lines); j++ {
			if t := strings.TrimSpace(lines[j]); t == "---" || t == "..." {
				i = j + 1
				break
			}
		}
	}
	var block strings.Builder
	blockLine := 0
	var fence string
	flush := func() {
		if block.Len() > 0 {
			out = append(out, draftBlock(block.String(), blockLine)...)
			block.Reset()
		}
	}
	for ; i < len(lines); i++ {
		l := lines[i]
		t := strings.TrimSpace(l)
		switch {
		case fence != "":
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			flush()
			fence = t[:3]
			continue
		case t == "":
			flush()
			continue
		}
		if block.Len() == 0 {
			blockLine = i + 1
		}
		block.WriteString(l)
	}
	flush()
	return out
}

// draftBlock finds the citations of one paragraph (text starting at line
// first) and their claims.
func draftBlock(text string, first int) []DraftCitation {
	plain, cites := stripCitations(text, first)
	if len(cites) == 0 {
		return nil
	}
	spans := ingest.Sentences(plain)
	out := make([]DraftCitation, 0, len(cites))
	for _, c := range cites {
		out = append(out, DraftCitation{Key: c.key, Page: c.page, PageEnd: c.pageEnd, Locator: c.locator,
			Claim: sentenceAt(plain, spans, c.at), Line: c.line})
	}
	return out
}

// sentenceAt is the sentence a citation at byte at cites: the one that
// holds at, or the last one that ends before it (a citation after the
// full stop); markup and space trimmed.
func sentenceAt(text string, spans []ingest.Span, at int) string {
	k := -1
	for i, s := range spans {
		if s.Start < at || s.Start == at && i == 0 {
			k = i
		}
	}
	if k < 0 {
		return ""
	}
	s := text[spans[k].Start:spans[k].End]
	s = strings.Map(func(r rune) rune {
		if r == '*' || r == '_' || r == '`' || r == '#' {
			return -1
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// stripCitations takes the Pandoc citations out of a paragraph and
// returns the text without them and each citation with its offset in
// that text. Inline code is text, never a citation.
func stripCitations(text string, first int) (string, []draftCite) {
	var b []byte
	var cites []draftCite
	line := first
	code := 0 // the backtick run that opened a code span, 0 outside
	// cut drops the spaces before a citation taken out ("labels [@x]."
	// reads "labels.") and returns where it stood.
	cut := func() int {
		for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\n') {
			b = b[:len(b)-1]
		}
		return len(b)
	}
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '\n':
			line++
		case c == '`':
			n := 1
			for i+n < len(text) && text[i+n] == '`' {
				n++
			}
			switch {
			case code == 0:
				code = n
			case code == n:
				code = 0
			}
			b = append(b, text[i:i+n]...)
			i += n
			continue
		case code > 0:
		case c == '\\' && i+1 < len(text):
			b = append(b, text[i:i+2]...)
			i += 2
			continue
		case c == '[':
			end, cs, link := bracketCitation(text[i:])
			switch {
			case end > 0 && link:
				// A link or a note: its text is no citation.
				line += strings.Count(text[i:i+end], "\n")
				b = append(b, text[i:i+end]...)
				i += end
				continue
			case end > 0:
				at := cut()
				for _, x := range cs {
					x.at, x.line = at, line
					cites = append(cites, x)
				}
				line += strings.Count(text[i:i+end], "\n")
				i += end
				continue
			}
		case c == '@' && !letterBefore(text, i):
			if end, x, ok := inTextCitation(text[i:]); ok {
				x.at, x.line = len(b)+1, line
				// The author stays in the sentence: "Smith says".
				b = append(b, x.key...)
				cites = append(cites, x)
				i += end
				continue
			}
		}
		b = append(b, c)
		i++
	}
	return string(b), cites
}

// bracketCitation reads "[…@key…]" at the start of s: the byte length
// and its citations; link is true (with the length of the bracket) for
// a link or a footnote, whose text holds no citation; 0 when it is
// neither.
func bracketCitation(s string) (n int, cites []draftCite, link bool) {
	end := -1
	depth := 0
	for j := 0; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				end = j
			}
		case '\n':
			if j+1 < len(s) && s[j+1] == '\n' {
				return 0, nil, false
			}
		}
		if end >= 0 {
			break
		}
	}
	switch {
	case end < 0:
		return 0, nil, false
	case strings.HasPrefix(s, "[^"):
		return end + 1, nil, true // a footnote
	case strings.HasPrefix(s[end+1:], "("):
		if k := strings.IndexByte(s[end+1:], ')'); k > 0 {
			return end + 1 + k + 1, nil, true // a link with its target
		}
		return end + 1, nil, true
	}
	inner := s[1:end]
	var out []draftCite
	for _, item := range strings.Split(inner, ";") {
		at := strings.Index(item, "@")
		if at < 0 || at > 0 && !(item[at-1] == ' ' || item[at-1] == '-' || item[at-1] == '\n') {
			return 0, nil, false // every item of a citation names a key
		}
		m := citeKeyRE.FindStringSubmatch(item[at+1:])
		if m == nil {
			return 0, nil, false
		}
		x := draftCite{key: m[1] + m[2]}
		locate(&x, item[at+1+len(m[0]):])
		out = append(out, x)
	}
	if len(out) == 0 {
		return 0, nil, false
	}
	return end + 1, out, false
}

// inTextCitation reads "@key" or "@key [p. 5]" at the start of s.
func inTextCitation(s string) (int, draftCite, bool) {
	m := citeKeyRE.FindStringSubmatch(s[1:])
	if m == nil {
		return 0, draftCite{}, false
	}
	n := 1 + len(m[0])
	x := draftCite{key: m[1] + m[2]}
	if rest := s[n:]; strings.HasPrefix(rest, " [") {
		if j := strings.IndexByte(rest, ']'); j > 0 && !strings.Contains(rest[:j], "@") && !strings.Contains(rest[:j], "\n") {
			locate(&x, rest[2:j])
			n += j + 1
		}
	}
	return n, x, true
}

// locate reads the locator of a citation's suffix (", p. 5", " pp. 3–4,
// emphasis added").
func locate(x *draftCite, suffix string) {
	s := strings.TrimLeft(suffix, " ,\n")
	if m := pageLocRE.FindStringSubmatch(s); m != nil {
		x.page, _ = strconv.Atoi(m[1])
		if m[2] != "" {
			x.pageEnd, _ = strconv.Atoi(m[2])
			if x.pageEnd <= x.page {
				x.pageEnd = 0
			}
		}
		x.locator = strings.TrimSpace(m[0])
		return
	}
	if m := otherLocRE.FindString(s); m != "" {
		x.locator = strings.TrimRight(m, ",;")
	}
}

// letterBefore reports whether the rune before s[i] is a letter or digit
// (an e-mail address's user, not a citation).
func letterBefore(s string, i int) bool {
	if i == 0 {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_'
}
