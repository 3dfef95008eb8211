package extractive

import (
	"regexp"
	"strings"

	"github.com/ibid-dev/ibid/rag/ingest"
)

// splitSentences splits a passage into the whole sentences the extractive
// answerer may quote: the text of splitQuotes.
func splitSentences(text string) []string {
	qs := splitQuotes(text)
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = q.text
	}
	return out
}

// quote is a sentence the extractive answerer may quote: its text as
// quoted, and where it lies in the passage.
type quote struct {
	text string
	// span is the sentence in the passage's text, without the white
	// space and the list, quote or bold markers around it; the quoted text
	// is this span with its white space runs made single spaces, its bold
	// markers taken off and a final ':' made '.'.
	span ingest.Span
}

// splitQuotes splits a passage into the whole sentences the extractive
// answerer may quote, with ingest.Sentences (abbreviations, decimals,
// initials and citation brackets do not end a sentence; no sentence ends
// inside an inline code span). Fenced code blocks, headings, table rows,
// very short fragments and sentences that would leave a code span open
// are dropped; list and quote markers and bold markers are taken off, and
// a lead-in's final ':' becomes '.'.
func splitQuotes(text string) []quote {
	fences := ingest.FencedBlocks(text)
	var out []quote
	for _, sp := range ingest.Sentences(text) {
		if inFence(sp, fences) {
			continue
		}
		s := strings.Join(strings.Fields(text[sp.Start:sp.End]), " ")
		s = strings.TrimLeft(s, markers)
		s = strings.NewReplacer("**", "", "__", "").Replace(s)
		// A sentence may start a line of the answer, where a run of three
		// backticks or tildes opens a fence for the citation engine (which
		// does not read info strings): such a quote would swallow its
		// citation.
		if len(s) < 12 || strings.HasPrefix(s, "#") || strings.HasPrefix(s, "|") || !closedSpans(s) ||
			strings.HasPrefix(s, "```") || strings.HasPrefix(s, "~~~") {
			continue
		}
		if strings.HasSuffix(s, ":") {
			s = s[:len(s)-1] + "."
		}
		out = append(out, quote{text: s, span: TrimSpan(text, sp)})
	}
	return out
}

// markers are what may stand before a sentence's first word: white space
// and list, quote and bold markers.
const markers = "-*+> \t\r\n"

// TrimSpan is sp without the markers before it (white space, list, quote
// and bold markers) and the white space after it; if nothing is left, sp
// itself.
func TrimSpan(text string, sp ingest.Span) ingest.Span {
	a, b := sp.Start, sp.End
	for a < b && strings.IndexByte(markers, text[a]) >= 0 {
		a++
	}
	for b > a && strings.IndexByte(" \t\r\n", text[b-1]) >= 0 {
		b--
	}
	if a == b {
		return sp
	}
	return ingest.Span{Start: a, End: b}
}

// inFence reports whether sp lies within one of the fenced blocks.
func inFence(sp ingest.Span, fences []ingest.Span) bool {
	for _, f := range fences {
		if sp.Start >= f.Start && sp.End <= f.End {
			return true
		}
	}
	return false
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

// reLink is a Markdown inline link or image: its text, then its
// destination and optional title in brackets.
var reLink = regexp.MustCompile(`!?\[([^\[\]\n]*)\]\(\s*<?[^()\s<>]*>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)`)

// linkText writes every Markdown inline link or image of s outside code
// spans as its text alone ("see [the guide](docs/x.md)" is quoted "see
// the guide"): a quote shows what the reader of the document reads, not
// where the link points.
func linkText(s string) string {
	if !strings.Contains(s, "](") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '`')
		if j < 0 {
			b.WriteString(reLink.ReplaceAllString(s[i:], "$1"))
			break
		}
		b.WriteString(reLink.ReplaceAllString(s[i:i+j], "$1"))
		// Copy the code span whole: its run of backticks, up to the
		// same run again.
		k := i + j
		n := k
		for n < len(s) && s[n] == '`' {
			n++
		}
		end := strings.Index(s[n:], s[k:n])
		if end < 0 {
			b.WriteString(s[k:])
			break
		}
		b.WriteString(s[k : n+end+(n-k)])
		i = n + end + (n - k)
	}
	return b.String()
}
