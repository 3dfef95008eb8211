package pdf

import (
	"slices"
	"strings"
	"unicode"
)

// fragment is a run of characters on one baseline with no wide gap: a word
// group of one line, in one column, as the content stream drew it.
type fragment struct {
	text           []rune
	x0, y0, x1, y1 float32
	size           float32 // the largest character size in the run
	bold, allBold  bool    // some / every character bold
	boldStart      bool    // the first character bold (a run-in head)
	chars          int
	inFigure       bool
	heading        int8 // tagged heading depth of all its characters, else 0
}

// wideSpace stands for a gap of more than half an em inside a fragment.
const wideSpace = '\u2003'

// textLine is the fragments of one visual line of one column, left to right.
//
// Invariant: text is the fragments' text joined with one space where they
// are apart (a table's cells with " | "); size is the size most of its
// characters have; the box covers all fragments.
type textLine struct {
	frags          []*fragment
	text           string
	x0, y0, x1, y1 float32
	size           float32
	bold           bool // every fragment bold
	page           int  // 0-based
	flow           int  // 0 spans the page, 1.. the columns from the left
	colX0, colX1   float32
	drop           bool // header, footer, page number, figure text, tiny text
	turn           int8 // the frame its coordinates are in (see frame)
}

func (l *textLine) height() float32 { return l.y1 - l.y0 }

// sameRow reports whether two boxes share a baseline: their vertical
// extents overlap by at least half the smaller one.
func sameRow(ay0, ay1, by0, by1 float32) bool {
	lo, hi := max(ay0, by0), min(ay1, by1)
	h := min(ay1-ay0, by1-by0)
	return h > 0 && hi-lo >= 0.5*h
}

// fragments groups a page's characters into runs. A run ends at a line
// break pdfium inserted, at a character on another baseline, or at a gap
// wider than the font size (a column gutter or a table cell). A space
// pdfium reports, or a gap wider than a fifth of the size, becomes one
// space.
func fragmentsOf(p *rawPage) []*fragment {
	var out []*fragment
	var cur *fragment
	var last *char
	space := false
	flush := func() {
		if cur != nil && len(cur.text) > 0 {
			out = append(out, cur)
		}
		cur, last, space = nil, nil, false
	}
	for i := range p.chars {
		c := &p.chars[i]
		if c.skew || c.unmapped || !finite(c.x0, c.y0, c.x1, c.y1, c.size) {
			continue
		}
		if c.r == '\r' || c.r == '\n' {
			flush()
			continue
		}
		if c.generated || unicode.IsSpace(c.r) || c.r == 0 || c.x1 <= c.x0 && c.y1 <= c.y0 {
			if cur != nil {
				space = true
			}
			continue
		}
		if cur != nil {
			gap := c.x0 - last.x1
			sz := max(c.size, last.size, 1)
			// A change of size ends the run too, so a superscript mark
			// is a fragment of its own.
			if !sameRow(c.y0, c.y1, last.y0, last.y1) || gap > sz || c.x1 < last.x0 || abs32(c.size-last.size) > 1 {
				flush()
			} else if gap > 0.2*sz {
				space = true
			}
		}
		if cur == nil {
			cur = &fragment{x0: c.x0, y0: c.y0, x1: c.x1, y1: c.y1, allBold: true, boldStart: c.bold, heading: c.heading}
		} else if space {
			// A wide space (over 0.8 of the size) separates names in an
			// author list; it reads as one space elsewhere.
			if c.x0-last.x1 > 0.8*max(c.size, 1) {
				cur.text = append(cur.text, wideSpace)
			} else {
				cur.text = append(cur.text, ' ')
			}
		}
		space = false
		cur.text = append(cur.text, c.r)
		cur.x0, cur.x1 = min(cur.x0, c.x0), max(cur.x1, c.x1)
		cur.y0, cur.y1 = min(cur.y0, c.y0), max(cur.y1, c.y1)
		cur.size = max(cur.size, c.size)
		cur.bold = cur.bold || c.bold
		cur.allBold = cur.allBold && c.bold
		if c.heading != cur.heading {
			cur.heading = 0
		}
		cur.chars++
		last = c
	}
	flush()
	return out
}

// buildLines merges fragments on one baseline that are close together
// (closer than the font size) into lines.
func buildLines(frags []*fragment, page int, turn int8) []*textLine {
	var lines []*textLine
	for _, f := range frags {
		var into *textLine
		for k := len(lines) - 1; k >= 0 && k >= len(lines)-12; k-- {
			l := lines[k]
			if !sameRow(f.y0, f.y1, l.y0, l.y1) {
				continue
			}
			sz := max(f.size, l.size)
			if f.x0-l.x1 < sz && l.x0-f.x1 < sz {
				into = l
				break
			}
		}
		if into == nil {
			into = &textLine{x0: f.x0, y0: f.y0, x1: f.x1, y1: f.y1, page: page, turn: turn}
			lines = append(lines, into)
		}
		into.frags = append(into.frags, f)
		into.x0, into.x1 = min(into.x0, f.x0), max(into.x1, f.x1)
		into.y0, into.y1 = min(into.y0, f.y0), max(into.y1, f.y1)
		into.size = max(into.size, f.size)
	}
	for _, l := range lines {
		finishLine(l)
	}
	return lines
}

// finishLine orders a line's fragments and sets its text, size and style.
// A raised footnote mark after a word is written in superscript digits
// (see raisedMark) and does not count for the line's style.
func finishLine(l *textLine) {
	slices.SortStableFunc(l.frags, func(a, b *fragment) int {
		switch {
		case a.x0 < b.x0:
			return -1
		case a.x0 > b.x0:
			return 1
		}
		return 0
	})
	var b strings.Builder
	sizes := map[float32]int{}
	l.bold = true
	l.size = 0
	for i, f := range l.frags {
		if i > 0 {
			prev := l.frags[i-1]
			if f.x0-prev.x1 > 0.2*max(f.size, prev.size) {
				b.WriteByte(' ')
			}
		}
		if raisedMark(l.frags, i) {
			b.WriteString(superscript(string(f.text)))
			continue
		}
		b.WriteString(string(f.text))
		sizes[roundSize(f.size)] += f.chars
		l.bold = l.bold && f.allBold
	}
	l.text = b.String()
	best := 0
	for s, n := range sizes {
		if n > best || n == best && s > l.size {
			best, l.size = n, s
		}
	}
}

// roundSize rounds a font size to half points, so 10.9 and 10.95 agree.
func roundSize(s float32) float32 {
	return float32(int(s*2+0.5)) / 2
}

// finite reports whether every v is a number (not NaN or infinite): a
// character pdfium gives no sane box is left out.
func finite(vs ...float32) bool {
	for _, v := range vs {
		if v-v != 0 {
			return false
		}
	}
	return true
}
