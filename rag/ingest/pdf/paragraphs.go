package pdf

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// layoutPage is one page's lines in reading order, with what was learnt
// about it.
//
// Invariant: width, height and the lines' coordinates are in the page's
// frame (see frame: the page turned so its main text is upright);
// pageW and pageH are the page's own size. sideways holds the page's text
// turned another way, a page of its frame each (same index, no label).
type layoutPage struct {
	index         int // 0-based
	width, height float32
	pageW, pageH  float32
	lines         []*textLine
	label         string // the page number printed on it, if found
	sideways      []*layoutPage
	tables        []*paragraph // taken off lines by findTables
}

// paragraph is a paragraph: lines of one flow that belong together.
//
// Invariant: lines are in reading order and all on page; text is their
// cleaned text joined by joinLines (set by the document pass).
type paragraph struct {
	lines []*textLine
	kind  Kind
	page  int
	text  string
	level int // heading depth, 1 outermost
	// pageOffs holds, for a paragraph that runs onto later pages, where
	// in text each of them begins.
	pageOffs []pageOff
	// lineOffs holds where each line's text begins in text (one per
	// line, nondecreasing; set by paraText).
	lineOffs []int
	// right is the right edge of the lines while paragraphsOf groups
	// them (the widest line's x1).
	right float32
	// sideways is text turned away from its page's text: read after the
	// page's text, as a float, never joined to other paragraphs.
	sideways bool
	// caption is a table's caption line and sources the page's lines its
	// cells come from (kind Table; see findTables).
	caption *textLine
	sources []*textLine
}

// pageOff is a byte offset in a paragraph's text where a page begins.
type pageOff struct{ page, off int }

func (p *paragraph) first() *textLine { return p.lines[0] }
func (p *paragraph) last() *textLine  { return p.lines[len(p.lines)-1] }

// captionRE matches the start of a figure or table caption: the label
// and its number, then a colon or full stop, a capitalised word ("Table 1
// Results of ..."), a Chinese character, or nothing. A sentence that names
// a table ("Table 17 shows ...", "Table 22, 23, and 24") is no caption.
var captionRE = regexp.MustCompile(`^(Figure|Fig\.|Table|Algorithm|Listing|图|表)\s*[0-9A-Z]+(\s*[.:：]|\s+\p{Lu}|\s*\p{Han}|\s*$)`)

// footnoteMarkRE matches a footnote's first line: a number or a symbol,
// then its text; a number followed by a full stop, a comma, a colon or a
// semicolon is a number of the text ("1.75", "11 ,253" in a listing).
var footnoteMarkRE = regexp.MustCompile(`^(?:[0-9]{1,3}\s?[^\s.,:;0-9]|[*†‡§¶]\s?\S)`)

// markSmallText drops text that is not prose: characters drawn inside a
// figure (an image or a form XObject that is not the whole page) and tiny
// lines (axis labels, tick marks) well below the body size.
func markSmallText(lines []*textLine, body float32) {
	for _, l := range lines {
		fig := true
		for _, f := range l.frags {
			fig = fig && f.inFigure
		}
		if fig && l.size < body+1 {
			l.drop = true
			continue
		}
		if l.size < 0.7*body && (len(strings.Fields(l.text)) <= 4 || letterShare(l.text) < 0.5) {
			l.drop = true
		}
	}
}

// markTicks drops tick labels: a row of bare numbers in small type, with
// no words beside them (a table row has its label).
func markTicks(lines []*textLine, body float32) {
	var rows *rowIndex // built at the first candidate: most pages have none
	for _, l := range lines {
		if l.drop || l.size >= body-0.5 || !bareNumbers(l.text) {
			continue
		}
		if rows == nil {
			rows = newRowIndex(lines)
		}
		// The row's live lines: more than 8 numbers, or a word, and
		// it is no row of ticks.
		n := 0
		words := rows.any(l, func(o *textLine) bool {
			if o.drop {
				return false
			}
			n += len(strings.Fields(o.text))
			return n > 8 || !bareNumbers(o.text)
		})
		if !words {
			l.drop = true
		}
	}
}

// tickRE matches a bare number as an axis shows it: "80", "0.5", "-1",
// "40%".
var tickRE = regexp.MustCompile(`^[-+−]?\d+([.,]\d+)?%?$`)

// bareNumbers reports whether every word of s is a bare number.
func bareNumbers(s string) bool {
	f := strings.Fields(s)
	for _, w := range f {
		if !tickRE.MatchString(w) {
			return false
		}
	}
	return len(f) > 0
}

// letterShare is the fraction of a text's non-space runes that are
// letters.
func letterShare(s string) float64 {
	n, letters := 0, 0
	for _, r := range s {
		if unicode.IsSpace(r) {
			continue
		}
		n++
		if unicode.IsLetter(r) {
			letters++
		}
	}
	if n == 0 {
		return 0
	}
	return float64(letters) / float64(n)
}

// splitFootnotes takes the footnotes off the bottom of each column of a
// page: a block of lines clearly smaller than the body text, below the
// last body line, whose first line starts with a footnote mark. Each
// footnote (a mark and its lines) becomes its own paragraph; the lines
// left are returned. The body text is the page's own where it is larger
// than the document's: a manual whose code listings outnumber its prose
// in characters (ElegantPaper's) has its prose's size there.
func splitFootnotes(p *layoutPage, body float32) (rest []*textLine, notes []*paragraph) {
	body = max(body, pageBody(p))
	byFlow := map[int][]*textLine{}
	cols := 0
	for _, l := range p.lines {
		if !l.drop {
			byFlow[l.flow] = append(byFlow[l.flow], l)
			cols = max(cols, l.flow)
		}
	}
	// Columns from the left, then the text across the page.
	flows := make([]int, 0, cols+1)
	for f := 1; f <= cols; f++ {
		flows = append(flows, f)
	}
	flows = append(flows, 0)
	isNote := map[*textLine]bool{}
	for _, flow := range flows {
		ls := byFlow[flow]
		// Lines from the bottom up while they are small and low.
		start := len(ls)
		for start > 0 {
			l := ls[start-1]
			if l.size > 0.9*body || l.y1 > 0.45*p.height {
				break
			}
			start--
		}
		for start < len(ls) && !isFootnoteStart(ls[start]) {
			start++
		}
		if start == len(ls) {
			continue
		}
		var cur *paragraph
		for _, l := range ls[start:] {
			isNote[l] = true
			if cur == nil || isFootnoteStart(l) && l.x0 <= cur.first().x0+2 {
				cur = &paragraph{kind: Footnote, page: p.index}
				notes = append(notes, cur)
			}
			cur.lines = append(cur.lines, l)
		}
	}
	for _, l := range p.lines {
		if !isNote[l] {
			rest = append(rest, l)
		}
	}
	// Notes in reading order: columns from the left, then across the
	// page.
	return rest, notes
}

// pageBody is the size of most of a page's live text, by the width it
// takes (a CJK character is as wide as two Latin ones); 0 for none.
func pageBody(p *layoutPage) float32 {
	width := map[float32]float32{}
	var best, size float32
	for _, l := range p.lines {
		if l.drop {
			continue
		}
		s := roundSize(l.size)
		width[s] += l.x1 - l.x0
		if w := width[s]; w > best || w == best && s < size {
			best, size = w, s
		}
	}
	return size
}

// isFootnoteStart reports whether a line begins with a footnote mark: a
// raised or smaller number or symbol, or a number and text.
func isFootnoteStart(l *textLine) bool {
	if len(l.frags) > 1 {
		f := l.frags[0]
		t := strings.TrimSpace(string(f.text))
		if f.size < l.size-0.5 && t != "" && utf8.RuneCountInString(t) <= 3 && strings.IndexFunc(t, unicode.IsLetter) < 0 {
			return true
		}
	}
	return footnoteMarkRE.MatchString(l.text)
}

// footnoteText writes a footnote mark apart from its text: "1Our code"
// becomes "1 Our code", "2英文模式下" "2 英文模式下". A mark drawn in the
// same run as its text is told from a number of the text by what
// follows it: a CJK character, or a capital starting a word ("3D" stays).
func footnoteText(l *textLine) string {
	if len(l.frags) > 1 {
		f := l.frags[0]
		t := strings.TrimSpace(string(f.text))
		ft := cleanLine(string(f.text))
		if f.size < l.size-0.5 && t != "" && utf8.RuneCountInString(t) <= 3 && strings.HasPrefix(l.text, ft) {
			return cleanLine(t) + " " + strings.TrimLeft(l.text[len(ft):], " ")
		}
	}
	if m := gluedMarkRE.FindStringSubmatchIndex(l.text); m != nil {
		return l.text[:m[3]] + " " + l.text[m[3]:]
	}
	return l.text
}

// gluedMarkRE matches a footnote's number glued to its text: before a
// CJK character, or before a capitalised word.
var gluedMarkRE = regexp.MustCompile(`^([0-9]{1,3})(?:[\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}]|\p{Lu}\p{Ll})`)

// paragraphsOf groups a page's live lines into paragraphs. A paragraph
// breaks at a change of flow (kept together later if the text runs on), a
// gap wider than the line spacing, a change of size or boldness (not
// inside a bold run-in head, see runsInto), after a line that stops well
// short of the column's right edge, before an indented line that follows
// a sentence end, and before a caption.
func paragraphsOf(p *layoutPage, lines []*textLine) []*paragraph {
	var out []*paragraph
	var cur *paragraph
	for _, l := range lines {
		if l.drop {
			continue
		}
		if cur == nil || breaksBefore(cur, l) {
			cur = &paragraph{page: p.index, right: l.x1}
			out = append(out, cur)
		}
		cur.lines = append(cur.lines, l)
		cur.right = max(cur.right, l.x1)
	}
	return out
}

// breaksBefore reports whether line l starts a new paragraph after
// paragraph cur. A line stops short when it ends well before the
// paragraph's right edge (the widest of its lines and l).
func breaksBefore(cur *paragraph, l *textLine) bool {
	prev := cur.last()
	right := max(cur.right, l.x1)
	sz := max(prev.size, l.size)
	r, _ := utf8.DecodeRuneInString(l.text)
	switch {
	case prev.flow != l.flow:
		return true
	case strings.HasSuffix(prev.text, "-") && unicode.IsLower(r) && abs32(prev.size-l.size) <= 0.8 && prev.y0-l.y1 <= 0.9*sz:
		return false // a word broken at the line end goes on (a bold run-in heading, too)
	case abs32(prev.size-l.size) > 0.8:
		return true
	case prev.bold != l.bold && !runsInto(prev, l):
		return true
	case prev.y0-l.y1 > 0.9*sz:
		return true // a gap
	case len(cur.lines) >= 2 && !sameRow(cur.lines[len(cur.lines)-2].y0, cur.lines[len(cur.lines)-2].y1, prev.y0, prev.y1) &&
		prev.y0-l.y1 > cur.lines[len(cur.lines)-2].y0-prev.y1+0.4*sz:
		return true // wider than the paragraph's line spacing
	case l.y1 > prev.y1+0.5*sz && !sameRow(prev.y0, prev.y1, l.y0, l.y1):
		return true // moved up: a new band or column
	case lineHeading(prev) != lineHeading(l):
		return true // in or out of a tagged heading
	case captionRE.MatchString(l.text):
		return true
	case isNamedHeading(l.text) || isHeadingLine(l.text):
		return true // a heading set in the body's style
	case isNamedHeading(prev.text) || isHeadingLine(prev.text):
		return true
	case sameRow(prev.y0, prev.y1, l.y0, l.y1):
		return false // a table's next cell
	case prev.x1 < right-1.5*sz:
		return true // the previous line stops short
	case l.x0 > l.colX0+0.7*sz && prev.x0 < prev.colX0+0.7*sz && endsSentence(prev.text):
		return true // an indented first line
	}
	return false
}

// runsInto reports whether bold line prev and line l are one run-in
// head going on: l starts in bold and turns regular. A heading on a line
// of its own before a paragraph whose first words are bold is still kept
// apart by the rules after the change of style in breaksBefore (it stops
// short of the column's edge, or reads as a heading).
func runsInto(prev, l *textLine) bool {
	return prev.bold && !l.bold && l.frags[0].boldStart
}

// lineHeading is the tagged heading depth of all of a line, or 0.
func lineHeading(l *textLine) int8 {
	h := l.frags[0].heading
	for _, f := range l.frags[1:] {
		if f.heading != h {
			return 0
		}
	}
	return h
}

// isHeadingLine reports whether a line reads like a numbered heading.
func isHeadingLine(s string) bool {
	_, ok := parseHeading(s)
	return ok
}

// endsSentence reports whether text ends with sentence punctuation
// (closing quotes and brackets aside).
func endsSentence(text string) bool {
	t := strings.TrimRight(text, " \"'”’)]}」』）")
	if u := strings.TrimRight(t, "0123456789*†‡"+superscripts); u != t && strings.ContainsAny(u[max(0, len(u)-1):], ".!?") {
		t = u // a footnote mark after the full stop
	}
	r, _ := utf8.DecodeLastRuneInString(t)
	return strings.ContainsRune(".!?:。！？：", r)
}
