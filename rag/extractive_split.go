package rag

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// abbreviations end with a full stop that does not end a sentence.
var abbreviations = map[string]bool{
	"al.": true, "e.g.": true, "i.e.": true, "fig.": true, "figs.": true, "cf.": true, "vs.": true, "etc.": true,
	"eq.": true, "eqs.": true, "sec.": true, "no.": true, "dr.": true, "mr.": true, "ms.": true, "prof.": true,
	"approx.": true, "resp.": true, "tab.": true, "ref.": true, "refs.": true, "ch.": true, "vol.": true, "pp.": true, "p.": true,
}

// splitSentences splits a passage into whole sentences: after '.', '!',
// '?' and their full-width forms when followed by a space or the end, and
// at line breaks before blank lines, list items, headings and table rows;
// never after an abbreviation ("et al.", "e.g.", "Fig.") or inside an
// inline code span, so no sentence ends with an open backtick. Fenced code
// blocks, headings, table rows and very short fragments are dropped; list
// markers and bold markers are taken off, and a lead-in's final ':'
// becomes '.'.
func splitSentences(text string) []string {
	text = dropFences(text)
	var out []string
	add := func(s string) {
		s = strings.Join(strings.Fields(s), " ")
		s = strings.TrimLeft(s, "-*+> ")
		s = strings.NewReplacer("**", "", "__", "").Replace(s)
		if len(s) < 12 || strings.HasPrefix(s, "#") || strings.HasPrefix(s, "|") || !closedSpans(s) {
			return
		}
		if strings.HasSuffix(s, ":") {
			s = s[:len(s)-1] + "."
		}
		out = append(out, s)
	}
	start := 0
	code := false // inside an inline code span
	for i, r := range text {
		end := -1
		switch r {
		case '`':
			if i == 0 || text[i-1] != '`' {
				code = !code // a run opens or closes a span (its length is checked in add)
			}
		case '.', '!', '?':
			if next := i + 1; !code && (next == len(text) || unicode.IsSpace(rune(text[next]))) && !(r == '.' && abbreviated(text[start:next])) {
				end = next
			}
		case '。', '！', '？':
			if !code {
				end = i + utf8.RuneLen(r)
			}
		case '\n':
			line := strings.TrimLeft(text[i+1:], " \t")
			for _, p := range []string{"\n", "- ", "* ", "+ ", "#", "|"} {
				if strings.HasPrefix(line, p) {
					end = i
					code = false // a span does not cross a paragraph
					break
				}
			}
		}
		if end > start {
			add(text[start:end])
			start = end
		}
	}
	add(text[start:])
	return out
}

// abbreviated reports whether s ends with an abbreviation or an initial
// ("J."), whose full stop does not end the sentence.
func abbreviated(s string) bool {
	w := s[strings.LastIndexFunc(s, unicode.IsSpace)+1:]
	w = strings.TrimLeft(w, "([\"'")
	if abbreviations[strings.ToLower(w)] {
		return true
	}
	r, n := utf8.DecodeRuneInString(w)
	return n == len(w)-1 && unicode.IsUpper(r) // an initial
}

// dropFences removes fenced code blocks (``` or ~~~ lines and what lies
// between them), which are no sentences to quote.
func dropFences(text string) string {
	if !strings.Contains(text, "```") && !strings.Contains(text, "~~~") {
		return text
	}
	var b strings.Builder
	in := false
	for line := range strings.Lines(text) {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			in = !in
			b.WriteString("\n")
			continue
		}
		if !in {
			b.WriteString(line)
		}
	}
	return b.String()
}

// closedSpans reports whether every run of backticks in s is closed by a
// later run of the same length, as CommonMark pairs code spans; a sentence
// with an unclosed run would turn the citation after it into code.
func closedSpans(s string) bool {
	open := 0 // length of the run that opened the span we are in; 0 outside
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '`' {
			j++
		}
		switch n := j - i; {
		case open == 0:
			open = n
		case open == n:
			open = 0
		}
		i = j
	}
	return open == 0
}
