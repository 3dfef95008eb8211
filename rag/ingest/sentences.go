package ingest

import (
	"bytes"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	uax "github.com/clipperhouse/uax29/v2/sentences"
)

// abbreviations are words that end in a full stop without ending a
// sentence (compared lower-case, without the final stop).
var abbreviations = map[string]bool{
	"al": true, "e.g": true, "i.e": true, "cf": true, "vs": true, "fig": true,
	"figs": true, "eq": true, "eqs": true, "sec": true, "dr": true,
	"mr": true, "mrs": true, "ms": true, "prof": true, "st": true, "vol": true,
	"pp": true, "p": true, "approx": true, "ref": true, "refs": true, "tab": true,
	"ch": true, "resp": true, "incl": true, "viz": true,
}

// bracketReach is how far (bytes) a citation bracket holds a sentence
// together: a stop inside "[...]" ends no sentence when the bracket opened
// at most this far before it and closes at most this far after it.
const bracketReach = 256

// Sentences splits text into sentences and returns their byte spans in
// order, trimmed of white space; together they hold every non-space byte
// of text. Boundaries are Unicode's (UAX #29, so "3.14", "e.g., the" and
// CJK full stops behave), with these changes for documents:
//
//   - a single line break is a space (hard-wrapped prose), unless the next
//     line starts a list item, heading, table row or block quote; a blank
//     line always ends a sentence;
//   - no sentence ends after an abbreviation ("et al.", "e.g.", "Fig.",
//     "vs.", "Dr.", an initial like "J.") or inside a citation bracket
//     ("[Smith et al. 2020]");
//   - a fenced code block is one sentence of its own, and no sentence ends
//     inside an inline code span, so none leaves a backtick open.
//
// It runs in time linear in len(text).
func Sentences(text string) []Span {
	if text == "" {
		return nil
	}
	fences := FencedBlocks(text)
	spans := codeSpans(text, fences)
	protected := mergeSpans(fences, spans)

	b := []byte(text)
	softenLineBreaks(b)
	var breaks []int
	for _, f := range fences {
		breaks = append(breaks, f.Start, f.End)
	}
	it := uax.FromBytes(b)
	var lastBreak int
	var depth, open int // '[' not yet closed since lastBreak; offset of the oldest
	scan := 0
	for it.Next() {
		p := openersBack(text, it.End())
		if p >= len(text) {
			break
		}
		if p <= lastBreak {
			continue // moved back onto the last break
		}
		for ; scan < p; scan++ {
			switch text[scan] {
			case '[':
				if depth == 0 {
					open = scan
				}
				depth++
			case ']':
				if depth > 0 {
					depth--
				}
			}
		}
		if inside(protected, p) {
			continue
		}
		paraEnd := b[p-1] == '\n'
		if !paraEnd {
			if endsWithAbbreviation(text[lastBreak:p]) {
				continue
			}
			if depth > 0 && p-open <= bracketReach && strings.IndexByte(text[p:min(len(text), p+bracketReach)], ']') >= 0 {
				continue
			}
		}
		breaks = append(breaks, p)
		lastBreak, depth = p, 0
	}
	sort.Ints(breaks)
	var out []Span
	start := 0
	for _, br := range append(breaks, len(text)) {
		if br <= start {
			continue
		}
		if sp, ok := trim(text, span{start, br}); ok {
			out = append(out, Span{sp.start, sp.end})
		}
		start = br
	}
	return out
}

// openersBack moves a break at p back before opening brackets and quotes
// that UAX #29 leaves at the end of the sentence before ("！「引用"):
// they open the next one.
func openersBack(text string, p int) int {
	q := p
	for q > 0 {
		r, n := utf8.DecodeLastRuneInString(text[:q])
		if !unicode.Is(unicode.Ps, r) && !unicode.Is(unicode.Pi, r) {
			break
		}
		q -= n
	}
	if q == 0 {
		return p
	}
	return q
}

// softenLineBreaks turns each line break that neither ends nor precedes
// a blank line (white space only), nor precedes a Markdown block (see
// blockStart), into a space, and every carriage return into a space, in
// place: same length, so offsets hold.
func softenLineBreaks(b []byte) {
	var lines []Span
	for ls := 0; ls < len(b); {
		le := bytes.IndexByte(b[ls:], '\n')
		if le < 0 {
			lines = append(lines, Span{ls, len(b)})
			break
		}
		lines = append(lines, Span{ls, ls + le})
		ls += le + 1
	}
	blank := func(k int) bool {
		return k >= len(lines) || len(bytes.TrimSpace(b[lines[k].Start:lines[k].End])) == 0
	}
	for k, l := range lines {
		if l.End < len(b) && !blank(k) && !blank(k+1) && !blockStart(b[lines[k+1].Start:lines[k+1].End]) {
			b[l.End] = ' '
		}
	}
	for i, c := range b {
		if c == '\r' {
			b[i] = ' '
		}
	}
}

// blockStart reports whether line starts a Markdown block that is not a
// paragraph's continuation: a list item, a heading, a table row or a
// block quote.
func blockStart(line []byte) bool {
	t := bytes.TrimLeft(line, " \t")
	if len(t) == 0 {
		return false
	}
	switch t[0] {
	case '#', '|', '>':
		return true
	case '-', '*', '+':
		return len(t) > 1 && (t[1] == ' ' || t[1] == '\t')
	}
	i := 0
	for i < len(t) && i < 9 && '0' <= t[i] && t[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && (t[i+1] == ' ' || t[i+1] == '\t')
}

// endsWithAbbreviation reports whether s, trimmed, ends with a known
// abbreviation and its stop, or a single capital initial ("J.").
func endsWithAbbreviation(s string) bool {
	s = strings.TrimRightFunc(s, unicode.IsSpace)
	if !strings.HasSuffix(s, ".") {
		return false
	}
	s = s[:len(s)-1]
	k := strings.LastIndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == '(' || r == '[' })
	word := s[k+1:]
	if utf8.RuneCountInString(word) == 1 {
		r, _ := utf8.DecodeRuneInString(word)
		return unicode.IsUpper(r)
	}
	return abbreviations[strings.ToLower(word)]
}

// codeSpans finds inline code spans outside fences: a run of n backticks
// up to the next run of exactly n backticks in the same paragraph
// (CommonMark's rule; a run without a partner is literal text). Blank
// lines and fences end paragraphs.
func codeSpans(text string, fences []Span) []Span {
	type run struct{ pos, n, para int }
	var runs []run
	para, scanned, f := 0, 0, 0 // paragraph number of text[scanned]; next fence
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '`')
		if j < 0 {
			break
		}
		i += j
		k := i
		for k < len(text) && text[k] == '`' {
			k++
		}
		para += blankLines(text[scanned:i])
		scanned = i
		// A fence ends the paragraph before it; runs in it are code.
		for f < len(fences) && fences[f].End <= i {
			f++
			para++
		}
		if f == len(fences) || i < fences[f].Start {
			runs = append(runs, run{i, k - i, para})
		}
		i = k
	}
	if len(runs) < 2 {
		return nil
	}
	byLen := map[int][]int{} // run length → indexes into runs, ascending
	for i, r := range runs {
		byLen[r.n] = append(byLen[r.n], i)
	}
	next := map[int]int{} // run length → position in byLen[n] not yet passed
	var out []Span
	for i := 0; i < len(runs); i++ {
		r := runs[i]
		idx := byLen[r.n]
		p := next[r.n]
		for p < len(idx) && idx[p] <= i {
			p++
		}
		next[r.n] = p
		if p == len(idx) || runs[idx[p]].para != r.para {
			continue
		}
		c := runs[idx[p]]
		out = append(out, Span{r.pos, c.pos + c.n})
		i = idx[p]
	}
	return out
}

// blankLines counts the blank lines (white space only) that begin in s
// after a line break.
func blankLines(s string) int {
	n := 0
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			return n
		}
		s = s[i+1:]
		j := strings.IndexByte(s, '\n')
		if j >= 0 && strings.TrimSpace(s[:j]) == "" {
			n++
		}
	}
}

// mergeSpans merges two ordered lists of spans into one ordered list of
// disjoint spans (overlapping ones joined).
func mergeSpans(a, b []Span) []Span {
	all := append(append([]Span(nil), a...), b...)
	sort.Slice(all, func(i, j int) bool { return all[i].Start < all[j].Start })
	var out []Span
	for _, s := range all {
		if n := len(out); n > 0 && s.Start < out[n-1].End {
			out[n-1].End = max(out[n-1].End, s.End)
			continue
		}
		out = append(out, s)
	}
	return out
}

// inside reports whether p lies strictly inside one of the ordered,
// non-overlapping spans.
func inside(spans []Span, p int) bool {
	i := sort.Search(len(spans), func(i int) bool { return spans[i].End > p })
	return i < len(spans) && spans[i].Start < p
}
