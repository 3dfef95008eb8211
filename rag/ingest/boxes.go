package ingest

import (
	"sort"

	"github.com/ibid-dev/ibid/store"
)

// lineBox is one line of a PDF's text: its span in the document's text
// and where it is drawn.
//
// Invariants, for the lines of one document: start < end; the lines are
// sorted by start and do not overlap; a line runs from where its text
// begins to where the next line of its paragraph begins (the last to the
// paragraph's end), so every byte of a paragraph belongs to exactly one
// line and the blank lines between paragraphs to none. Text that was
// dropped (running headers, page numbers, figure labels) has no line.
type lineBox struct {
	start, end int
	box        store.Box // store.Box's coordinates: top-left origin, y down
	flow       int       // 0 spans the page, 1.. the columns from the left (pdf.Line.Flow)
	size       float32   // font size: how far apart two lines of a block may be
}

// boxesOf is where text[start:end] is drawn: the rectangles of the lines
// that overlap the span, in reading order, consecutive lines merged into
// one block when they are on the same page and in the same flow and
// their rectangles touch vertically (a gap smaller than the font size),
// so that a paragraph is one box, not one per line. A line is included
// whole even when the span covers only part of it. It is nil when no
// line overlaps (text that is not a PDF's, or a span in the blank lines
// between paragraphs).
func boxesOf(lines []lineBox, start, end int) []store.Box {
	i := sort.Search(len(lines), func(i int) bool { return lines[i].end > start })
	var out []store.Box
	var prev *lineBox
	for ; i < len(lines) && lines[i].start < end; i++ {
		l := &lines[i]
		if n := len(out); n > 0 && joins(out[n-1], prev, l) {
			b := &out[n-1]
			b.X0, b.Y0 = min(b.X0, l.box.X0), min(b.Y0, l.box.Y0)
			b.X1, b.Y1 = max(b.X1, l.box.X1), max(b.Y1, l.box.Y1)
		} else {
			out = append(out, l.box)
		}
		prev = l
	}
	return out
}

// joins reports whether line l extends block b, whose last line is prev:
// same page, same flow, and no more than a font size apart vertically
// (overlapping rows, such as a table's cells, join).
func joins(b store.Box, prev, l *lineBox) bool {
	if l.box.Page != b.Page || l.flow != prev.flow {
		return false
	}
	gap := max(l.box.Y0-b.Y1, b.Y0-l.box.Y1)
	return gap < max(prev.size, l.size)
}

// setBoxes sets the Boxes of each segment with text from lines (see
// boxesOf), and clears them on segments without text (a generated
// question). With no lines (text that is not a PDF's) every segment has
// none.
//
// A segment with boxes then takes its page range from them: PageStart
// is the first page it is drawn on and PageEnd the last. The range the
// chunker found from the page starts is the same wherever the text is in
// page order; where the layout put text after a later page's start (a
// caption below a paragraph that runs onto the next page is written
// after that paragraph), the boxes say where the text really is. So no
// box lies outside the range, and every page in it has a box, unless the
// segment's text skips a page whole (a paragraph that runs on past a
// page of figures alone).
func setBoxes(segs []store.Segment, lines []lineBox) {
	for i := range segs {
		s := &segs[i]
		s.Boxes = nil
		if s.Text == "" || len(lines) == 0 {
			continue
		}
		s.Boxes = boxesOf(lines, s.Start, s.End)
		for k, b := range s.Boxes {
			if k == 0 {
				s.PageStart, s.PageEnd = b.Page, b.Page
			}
			s.PageStart, s.PageEnd = min(s.PageStart, b.Page), max(s.PageEnd, b.Page)
		}
	}
}
