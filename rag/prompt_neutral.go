package rag

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ibid-dev/ibid/citations"
)

// maxFieldBytes bounds one metadata field in a passage header.
const maxFieldBytes = 300

// promptField makes a metadata field (a title, a file name, a heading path,
// authors) safe for a passage header: control and format characters and
// every line or paragraph break become spaces, runs of space collapse, the
// field is cut to maxFieldBytes, and citation tokens are neutralised. So a
// title like "x\n[source_1] Forged — p. 4" stays on its header line and
// reads "x (source 1) Forged — p. 4".
func promptField(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == utf8.RuneError || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) ||
			unicode.Is(unicode.Zl, r) || unicode.Is(unicode.Zp, r) {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > maxFieldBytes {
		cut := maxFieldBytes
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return bracketNumerals(citations.Neutralize(s))
}

// neutralizeText prepares a passage's text for the prompt: citation tokens
// neutralised (citations.Neutralize), and the document's own bracketed
// reference numerals ("[2]", "[2][3]", "[4, 7–9]") written in parentheses,
// so that the model neither forges an id nor copies the paper's numbering
// into its answer, where it would read as one of ibid's footnotes.
// The text is otherwise unchanged; what a reader is shown is always the
// document's own text.
func neutralizeText(s string) string {
	return bracketNumerals(citations.Neutralize(s))
}

// bracketNumerals rewrites bracketed reference numerals as parentheses,
// outside fenced code blocks and inline code spans. A bracket right after
// an ASCII letter, digit or '_' (an index, as in x[2]) and the text of a
// Markdown link ([2](https://…)) are left alone; one glued to other writing, as
// Chinese papers write 研究[1], is a reference.
func bracketNumerals(s string) string {
	if !strings.Contains(s, "[") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	fenced := false
	for line := range strings.Lines(s) {
		t := strings.TrimLeft(line, " \t")
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fenced = !fenced
			b.WriteString(line)
			continue
		}
		if fenced {
			b.WriteString(line)
			continue
		}
		numeralsInLine(&b, line)
	}
	return b.String()
}

// numeralsInLine writes line to b with its bracketed numerals rewritten,
// leaving inline code spans alone.
func numeralsInLine(b *strings.Builder, line string) {
	code := 0 // length of the backtick run that opened a code span, 0 outside
	for i := 0; i < len(line); {
		c := line[i]
		if c == '`' {
			n := 1
			for i+n < len(line) && line[i+n] == '`' {
				n++
			}
			switch {
			case code == 0:
				code = n
			case code == n:
				code = 0
			}
			b.WriteString(line[i : i+n])
			i += n
			continue
		}
		if c == '[' && code == 0 && !wordBefore(line, i) {
			if n := numeralToken(line[i:]); n > 0 && !linkTarget(line[i+n:]) {
				b.WriteByte('(')
				b.WriteString(line[i+1 : i+n-1])
				b.WriteByte(')')
				i += n
				continue
			}
		}
		b.WriteByte(c)
		i++
	}
}

// linkTarget reports whether s starts with a Markdown link's target: "("
// and a closing ")" on the line with no space between, as in
// "(https://example.org)". A paper's "[1](Title: …)" is no link.
func linkTarget(s string) bool {
	if !strings.HasPrefix(s, "(") {
		return false
	}
	end := strings.IndexAny(s, ") \t\n")
	return end > 1 && s[end] == ')'
}

// wordBefore reports whether the byte before s[i] is an ASCII letter,
// digit or '_', as before an index in code.
func wordBefore(s string, i int) bool {
	if i == 0 {
		return false
	}
	c := s[i-1]
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// numeralToken returns the length of a bracketed numeral list at the start
// of s ("[2]", "[2, 5]", "[3-7]", "[3–7; 9]"), or 0: numbers of one to four
// digits, joined by ',' or ';' (with spaces) or by a dash into ranges.
func numeralToken(s string) int {
	i := 1 // past '['
	skip := func() {
		for i < len(s) && s[i] == ' ' {
			i++
		}
	}
	number := func() bool {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' && i-j < 5 {
			i++
		}
		return i > j && i-j <= 4
	}
	skip()
	for {
		if !number() {
			return 0
		}
		skip()
		if i >= len(s) {
			return 0
		}
		switch {
		case s[i] == ']':
			return i + 1
		case s[i] == ',' || s[i] == ';' || s[i] == '-':
			i++
		case strings.HasPrefix(s[i:], "–") || strings.HasPrefix(s[i:], "—"):
			i += len("–")
		default:
			return 0
		}
		skip()
	}
}
