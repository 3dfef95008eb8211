package ingest

import (
	"slices"
	"testing"

	"github.com/ibid-dev/ibid/store"
)

// textLines are hand-made lines: a paragraph of three lines in the left
// column of page 1 (bytes 0-30), a blank line, a right-column paragraph
// whose first line is on page 1 and second on page 2 (32-52), a blank
// line, then a table row of two cells on one baseline and a row far below
// (54-70).
var textLines = []lineBox{
	{start: 0, end: 10, box: store.Box{Page: 1, X0: 72, Y0: 100, X1: 294, Y1: 110}, flow: 1, size: 10},
	{start: 10, end: 20, box: store.Box{Page: 1, X0: 72, Y0: 112, X1: 294, Y1: 122}, flow: 1, size: 10},
	{start: 20, end: 30, box: store.Box{Page: 1, X0: 72, Y0: 124, X1: 200, Y1: 134}, flow: 1, size: 10},
	{start: 32, end: 42, box: store.Box{Page: 1, X0: 318, Y0: 700, X1: 540, Y1: 710}, flow: 2, size: 10},
	{start: 42, end: 52, box: store.Box{Page: 2, X0: 72, Y0: 60, X1: 250, Y1: 70}, flow: 1, size: 10},
	{start: 54, end: 58, box: store.Box{Page: 2, X0: 72, Y0: 100, X1: 100, Y1: 110}, flow: 0, size: 10},
	{start: 58, end: 62, box: store.Box{Page: 2, X0: 200, Y0: 100, X1: 230, Y1: 110}, flow: 0, size: 10},
	{start: 62, end: 70, box: store.Box{Page: 2, X0: 72, Y0: 140, X1: 100, Y1: 150}, flow: 0, size: 10},
}

func TestBoxesOf(t *testing.T) {
	for _, c := range []struct {
		name       string
		start, end int
		want       []store.Box
	}{
		{"a paragraph is one block", 0, 30, []store.Box{{Page: 1, X0: 72, Y0: 100, X1: 294, Y1: 134}}},
		{"part of a line takes the whole line", 12, 15, []store.Box{{Page: 1, X0: 72, Y0: 112, X1: 294, Y1: 122}}},
		{"only the lines the span overlaps", 10, 20, []store.Box{{Page: 1, X0: 72, Y0: 112, X1: 294, Y1: 122}}},
		{"the blank line between paragraphs is nowhere", 30, 32, nil},
		{"a column and a page apart are boxes apart", 0, 52, []store.Box{
			{Page: 1, X0: 72, Y0: 100, X1: 294, Y1: 134},
			{Page: 1, X0: 318, Y0: 700, X1: 540, Y1: 710},
			{Page: 2, X0: 72, Y0: 60, X1: 250, Y1: 70},
		}},
		{"cells of a row join, a row a gap below does not", 54, 70, []store.Box{
			{Page: 2, X0: 72, Y0: 100, X1: 230, Y1: 110},
			{Page: 2, X0: 72, Y0: 140, X1: 100, Y1: 150},
		}},
		{"past the last line", 70, 80, nil},
	} {
		if got := boxesOf(textLines, c.start, c.end); !slices.Equal(got, c.want) {
			t.Errorf("%s: boxesOf(%d, %d) = %v, want %v", c.name, c.start, c.end, got, c.want)
		}
	}
	if got := boxesOf(nil, 0, 10); got != nil {
		t.Errorf("boxesOf without lines = %v, want none", got)
	}
}

func TestSetBoxes(t *testing.T) {
	segs := []store.Segment{
		{Text: "x", Start: 0, End: 30, PageStart: 1, PageEnd: 1},
		{Text: "x", Start: 32, End: 52, PageStart: 2, PageEnd: 2}, // pages the chunker got wrong
		{IndexText: "a question?", Start: 0, End: 0, PageStart: 1, PageEnd: 1, Boxes: []store.Box{{Page: 1}}},
	}
	setBoxes(segs, textLines)
	if len(segs[0].Boxes) != 1 || segs[0].PageStart != 1 || segs[0].PageEnd != 1 {
		t.Errorf("segment 0: pages %d-%d, boxes %v", segs[0].PageStart, segs[0].PageEnd, segs[0].Boxes)
	}
	if len(segs[1].Boxes) != 2 || segs[1].PageStart != 1 || segs[1].PageEnd != 2 {
		t.Errorf("segment 1: pages %d-%d, boxes %v; want the pages it is drawn on, 1-2", segs[1].PageStart, segs[1].PageEnd, segs[1].Boxes)
	}
	if segs[2].Boxes != nil || segs[2].PageStart != 1 {
		t.Errorf("a question row: pages %d-%d, boxes %v; want its pages kept and no box", segs[2].PageStart, segs[2].PageEnd, segs[2].Boxes)
	}
	// Without lines (not a PDF) no segment has a box, and pages stay.
	segs[0].Boxes = []store.Box{{Page: 1}}
	setBoxes(segs, nil)
	if segs[0].Boxes != nil || segs[1].PageStart != 1 || segs[1].PageEnd != 2 {
		t.Errorf("without lines: %+v", segs[:2])
	}
}
