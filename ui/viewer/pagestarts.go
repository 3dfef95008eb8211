package viewer

import (
	"unicode"
	"unicode/utf8"

	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/store"
)

// pageBreak is where a page begins inside a passage: at, a byte offset
// into the segment's Text at the start of a word, and the pages first to
// last that begin there (more than one when a page holds no text).
type pageBreak struct{ at, first, last int }

// pageBreaks are the pages that begin inside s, in order, from starts (Content.PageStarts; nil gives nil). A page that begins inside a word (a word
// hyphenated across the page turn, joined by the loader) begins, for the
// viewer, at the next word, so no word is cut; a page whose text begins
// inside the passage's last word is left out.
//
// Invariant: 0 < at < len(s.Text), at increasing, s.PageStart < first <=
// last <= s.PageEnd.
func pageBreaks(s store.Segment, starts []int) []pageBreak {
	if s.PageEnd <= s.PageStart || s.PageStart < 1 || len(starts) < s.PageEnd {
		return nil
	}
	var out []pageBreak
	for p := s.PageStart + 1; p <= s.PageEnd; p++ {
		o := starts[p-1] - s.Start
		if o <= 0 || o >= len(s.Text) {
			continue
		}
		if o = wordAt(s.Text, o); o >= len(s.Text) {
			continue
		}
		if n := len(out); n > 0 && out[n-1].at >= o {
			out[n-1].last = p
			continue
		}
		out = append(out, pageBreak{o, p, p})
	}
	return out
}

// wordAt is the offset of the first word of text that begins at or after
// o: o itself when a word begins there; past the rest of the word when o
// falls inside one (a CJK character is a word of its own); past white
// space.
func wordAt(text string, o int) int {
	o = min(max(o, 0), len(text))
	for o < len(text) && !utf8.RuneStart(text[o]) {
		o++
	}
	if o > 0 && o < len(text) {
		prev, _ := utf8.DecodeLastRuneInString(text[:o])
		for o < len(text) {
			r, n := utf8.DecodeRuneInString(text[o:])
			if unicode.IsSpace(r) || wide(r) || unicode.IsSpace(prev) || wide(prev) {
				break
			}
			o += n
		}
	}
	for o < len(text) {
		r, n := utf8.DecodeRuneInString(text[o:])
		if !unicode.IsSpace(r) {
			break
		}
		o += n
	}
	return o
}

// wide reports a character of a script written without spaces between
// words (Han, kana, Hangul).
func wide(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// flowPiece is a run of a passage's reflowed lines on one page (or, without
// exact page starts, on the passage's pages): marker is the label of the
// marker line drawn above it ("" for none).
type flowPiece struct {
	marker       string
	lines        []string
	pStart, pEnd int
}

// flowPages reflows s at width, cut where pages begin (breaks): the first
// piece holds the text before the first break, on the pages before it;
// each further one a marker naming the pages that begin there and the
// text on the last of them. Without breaks it is one piece on all of the
// passage's pages.
func flowPages(s store.Segment, breaks []pageBreak, width int) []flowPiece {
	ps, pe := s.PageStart, max(s.PageStart, s.PageEnd)
	if len(breaks) == 0 {
		return []flowPiece{{lines: reflow(s.Text, width), pStart: ps, pEnd: pe}}
	}
	out := []flowPiece{{lines: reflow(s.Text[:breaks[0].at], width), pStart: ps, pEnd: breaks[0].first - 1}}
	for i, b := range breaks {
		end := len(s.Text)
		if i+1 < len(breaks) {
			end = breaks[i+1].at
		}
		out = append(out, flowPiece{marker: rag.Pages(b.first, b.last), lines: reflow(s.Text[b.at:end], width), pStart: b.last, pEnd: b.last})
	}
	return out
}

// joinedLines are the pieces' lines, in order, for focusLines (the marker
// lines left out: they are not the passage's text).
func joinedLines(pieces []flowPiece) []string {
	var out []string
	for _, p := range pieces {
		out = append(out, p.lines...)
	}
	return out
}
