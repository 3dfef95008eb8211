package viewer

import (
	"strings"
	"unicode/utf8"

	"github.com/ibid-dev/ibid/rag"
)

// focusMark is the gutter mark of the lines of the cited segment that
// matched best (the source's focus).
const focusMark = "█ "

// focusIn is src's focus inside seg's text, the cited segment's: ok is
// false when src has none or its offsets do not fall inside text (the
// document changed since the answer).
func focusIn(src rag.Source, text string) (a, b int, ok bool) {
	a, b = src.FocusStart, src.FocusEnd
	return a, b, a >= 0 && a < b && b <= len(text)
}

// focusLines reports which of lines, text reflowed (reflow), show a byte
// of text[a:b]. Each line is found in text by its words, in order; a blank
// line is marked when the lines on both sides of it are, so that a focus
// spanning paragraphs is drawn as one block.
func focusLines(text string, lines []string, a, b int) []bool {
	return markSpans(lineSpans(text, lines), lines, a, b)
}

// markSpans is focusLines with the lines already placed in the text
// (lineSpans).
func markSpans(spans [][2]int, lines []string, a, b int) []bool {
	marked := make([]bool, len(lines))
	for i, sp := range spans {
		marked[i] = sp[0] >= 0 && sp[0] < b && sp[1] > a
	}
	for i := 1; i+1 < len(lines); i++ {
		if strings.TrimSpace(lines[i]) == "" && marked[i-1] && marked[i+1] {
			marked[i] = true
		}
	}
	return marked
}

// lineSpans places each of lines, text reflowed, in text: [start, end) runs
// from its first word's first byte to its last word's last byte, {-1, -1}
// for a line without words. Reflowing only joins, breaks and trims lines,
// so the words of the lines appear in text in the same order; a word not
// found (it should not happen) leaves its line unplaced or shortened and
// the search where it was.
func lineSpans(text string, lines []string) [][2]int {
	out := make([][2]int, len(lines))
	at := 0
	for i, l := range lines {
		out[i] = [2]int{-1, -1}
		for _, w := range strings.Fields(l) {
			j := strings.Index(text[at:], w)
			if j < 0 {
				continue
			}
			if out[i][0] < 0 {
				out[i][0] = at + j
			}
			at += j + len(w)
			out[i][1] = at
		}
	}
	return out
}

// focusSpan is the part of line, a line of text reflowed that lineSpans
// placed at off, that shows bytes of text[a:b): byte offsets [x0, x1) into
// line, (0, 0) when none of it does. The line's runes are matched to
// text's in order, white space skipped on both sides (reflowing only
// joins, breaks and trims), so a sentence that ends inside a line (in
// Chinese text, where lines hold no spaces) is cut where it ends. Should a
// rune not match (it should not happen), the rest of the line counts as
// shown where the last match was.
func focusSpan(text, line string, off, a, b int) (x0, x1 int) {
	if off < 0 {
		return 0, 0
	}
	x0, x1 = -1, -1
	j := off
	for i, r := range line {
		if r == ' ' || r == '\t' {
			continue
		}
		for j < len(text) && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r') {
			j++
		}
		at := j
		if tr, n := utf8.DecodeRuneInString(text[min(j, len(text)):]); j < len(text) && tr == r {
			j += n
		}
		if at >= a && at < b {
			if x0 < 0 {
				x0 = i
			}
			x1 = i + utf8.RuneLen(r)
		}
	}
	if x0 < 0 {
		return 0, 0
	}
	return x0, x1
}

// focusRow is the row of the body, from the top of the view, where a focus
// of n lines in a view of h lines begins: the top third, or higher when the
// focus would not fit below it, keeping a line of context above.
func focusRow(n, h int) int {
	row := h / 3
	if n > h-row {
		row = max(h-n, min(1, row))
	}
	return row
}
