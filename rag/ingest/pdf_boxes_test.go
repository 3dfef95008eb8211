package ingest

import (
	"context"
	"fmt"
	"github.com/ibid-dev/ibid/rag/ingest/pdf/pdftest"
	"slices"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/store"
)

// The fixture pages are US Letter.
const pageW, pageH = 612, 792

// checkBoxes asserts the rules of Segment.Boxes on every segment of ld:
// Text[Start:End] == Text; a segment without text has no box; with pdf,
// every segment with text has boxes, each inside the page and well
// formed, in reading order by page, their pages exactly
// PageStart..PageEnd; without pdf, no segment has any.
func checkBoxes(t *testing.T, ld *Loaded, pdf bool) {
	t.Helper()
	for i, s := range ld.Segments {
		if s.Text != "" && ld.Text[s.Start:s.End] != s.Text {
			t.Fatalf("segment %d: Text[%d:%d] != Segment.Text", i, s.Start, s.End)
		}
		if s.Text == "" || !pdf {
			if len(s.Boxes) > 0 {
				t.Errorf("segment %d (%q, pdf %v) has boxes %v", i, s.Text, pdf, s.Boxes)
			}
			continue
		}
		if len(s.Boxes) == 0 {
			t.Errorf("segment %d has no box: %q", i, s.Text)
			continue
		}
		pages := map[int]bool{}
		for _, b := range s.Boxes {
			if b.X0 < 0 || b.Y0 < 0 || b.X1 > pageW || b.Y1 > pageH || b.X0 > b.X1 || b.Y0 > b.Y1 {
				t.Errorf("segment %d: box %+v is not a rectangle inside the page", i, b)
			}
			pages[b.Page] = true
		}
		for p := range pages {
			if p < s.PageStart || p > s.PageEnd {
				t.Errorf("segment %d: box on page %d outside pages %d-%d", i, p, s.PageStart, s.PageEnd)
			}
		}
		for p := s.PageStart; p <= s.PageEnd; p++ {
			if !pages[p] {
				t.Errorf("segment %d: pages %d-%d but no box on page %d", i, s.PageStart, s.PageEnd, p)
			}
		}
	}
}

// drawn is a line a fixture drew: its page (1-based), its origin (x, y
// up from the bottom, the baseline) and text.
type drawn struct {
	page       int
	x, y, size float64
	text       string
}

// inside reports whether the middle of the line's first character lies
// in one of boxes.
func (d drawn) inside(boxes []store.Box) bool {
	x, y := float32(d.x+0.3*d.size), float32(pageH-d.y-0.3*d.size)
	for _, b := range boxes {
		if b.Page == d.page && b.X0 <= x && x <= b.X1 && b.Y0 <= y && y <= b.Y1 {
			return true
		}
	}
	return false
}

// checkDrawn asserts, for every segment with text and every drawn line
// (each a sentence, so no segment holds part of one), that the segment's
// boxes cover the line exactly when its text holds the line's text.
func checkDrawn(t *testing.T, what string, segs []store.Segment, lines []drawn) {
	t.Helper()
	for i, s := range segs {
		if s.Text == "" {
			continue
		}
		for _, d := range lines {
			if in, covered := strings.Contains(s.Text, d.text), d.inside(s.Boxes); in != covered {
				t.Errorf("%s %d: holds %q: %v, its boxes cover it: %v (boxes %v)", what, i, d.text, in, covered, s.Boxes)
			}
		}
	}
}

// claimsPaper is one long paragraph of one-sentence lines in the left
// column, 12 points apart, that runs onto page 2 (its last sentence
// broken across the page break), then a short paragraph there. It returns
// the PDF and the lines as drawn (the sentence across the page as its
// two parts).
func claimsPaper() ([]byte, []drawn) {
	var lines []drawn
	var texts []string
	// Lines nearly as wide as the column, so that justifying them leaves
	// word gaps well below the font size.
	words := []string{"read", "clear", "sound", "right", "whole"}
	for i := 1; i <= 24; i++ {
		texts = append(texts, fmt.Sprintf("Claim %02d says the layout is %s.", i, words[i%len(words)]))
	}
	texts = append(texts, "Claim 25 runs on across the page")
	p1 := pdftest.Column(pdftest.LeftX, 700, pdftest.ColW, texts...)
	p1[len(p1)-1].Width = pdftest.ColW // mid-sentence: justified to the column's edge
	p2 := pdftest.Column(pdftest.LeftX, 720, pdftest.ColW, "break and it ends on the next page.", "Claim 26 ends the paragraph.")
	p2 = append(p2, pdftest.Column(pdftest.LeftX, 680, pdftest.ColW, "Claim 27 is a paragraph of its own", "and a second line of it.")...)
	for _, it := range p1 {
		lines = append(lines, drawn{1, it.X, it.Y, it.Size, it.Text})
	}
	for _, it := range p2 {
		lines = append(lines, drawn{2, it.X, it.Y, it.Size, it.Text})
	}
	return pdftest.Paper([][]pdftest.Item{p1, p2}), lines
}

// loadBudget loads data with a Loader that packs segments up to budget
// tokens (sharing the tests' PDF engine).
func loadBudget(t *testing.T, name string, data []byte, budget int) *Loaded {
	t.Helper()
	l := &Loader{budget: budget, pdf: testLoader(t).pdf}
	ld, err := l.LoadBytes(context.Background(), name, data)
	if err != nil {
		t.Fatalf("LoadBytes(%s): %v", name, err)
	}
	return ld
}

// boxesAt is where s, found in ld's text, is drawn (boxesOf), failing
// when the text lacks it.
func boxesAt(t *testing.T, ld *Loaded, s string) []store.Box {
	t.Helper()
	i := strings.Index(ld.Text, s)
	if i < 0 {
		t.Fatalf("text lacks %q:\n%s", s, ld.Text)
	}
	return boxesOf(ld.lines, i, i+len(s))
}

// near reports whether got is within tol of want.
func near(got float32, want, tol float64) bool {
	return float64(got) >= want-tol && float64(got) <= want+tol
}

func TestPDFBoxesTwoColumns(t *testing.T) {
	ld := loadBytes(t, "paper.pdf", pdftest.TwoColumnPaper())
	checkBoxes(t, ld, true)
	t.Run("a paragraph is one box where it was drawn", func(t *testing.T) {
		// Drawn at x 72, baselines 572 and 560, the first line justified
		// to the column's width (222), in 10-point type.
		bs := boxesAt(t, ld, "A first paragraph starts the section and it cites a footnote here.")
		if len(bs) != 1 {
			t.Fatalf("boxes %v, want one", bs)
		}
		b := bs[0]
		if b.Page != 1 || !near(b.X0, 72, 0.5) || !near(b.X1, 72+222, 0.5) ||
			!near(b.Y0, pageH-572-5, 5) || !near(b.Y1, pageH-560+0, 5) {
			t.Errorf("box %+v, want page 1, x 72-294, y about %d-%d from the top", b, pageH-572, pageH-560)
		}
	})
	t.Run("a paragraph across the columns", func(t *testing.T) {
		bs := boxesOf(ld.lines, strings.Index(ld.Text, "Models that we use"), strings.Index(ld.Text, "looked at them.")+len("looked at them."))
		if len(bs) != 2 || bs[0].X0 < 70 || bs[0].X1 > pageW/2 || bs[1].X0 < pageW/2 || bs[1].X1 > pageW-70 {
			t.Fatalf("boxes %v, want the left column's then the right one's", bs)
		}
		// The left part has six lines from baseline 548 down to 488; the
		// right part two from 650.
		if !near(bs[0].Y0, pageH-548-5, 5) || !near(bs[0].Y1, pageH-488, 5) || !near(bs[1].Y0, pageH-650-5, 5) || !near(bs[1].Y1, pageH-638, 5) {
			t.Errorf("boxes %v, want the left part at y %d-%d and the right at %d-%d", bs, pageH-548, pageH-488, pageH-650, pageH-638)
		}
	})
	t.Run("a paragraph across the page", func(t *testing.T) {
		s := ld.Segments[segmentWith(t, ld, "across the page break and ends on the second page.")]
		bs := boxesAt(t, ld, "The last paragraph of this page goes on across the line and across the page break and ends on the second page.")
		if len(bs) != 2 || bs[0].Page != 1 || !near(bs[0].X0, pdftest.RightX, 0.5) || bs[1].Page != 2 || !near(bs[1].X0, pdftest.LeftX, 0.5) || !near(bs[1].Y0, pageH-720-5, 5) {
			t.Errorf("boxes %v, want one in page 1's right column, then one at the top of page 2's left one", bs)
		}
		if last := s.Boxes[len(s.Boxes)-1]; s.PageStart != 1 || s.PageEnd != 2 || last != bs[1] {
			t.Errorf("segment pages %d-%d, boxes %v: want 1-2 ending with %v", s.PageStart, s.PageEnd, s.Boxes, bs[1])
		}
	})
	t.Run("a footnote's box is at the page's bottom", func(t *testing.T) {
		s := ld.Segments[segmentWith(t, ld, "See https://example.org/fixture")]
		if len(s.Boxes) != 1 || s.Boxes[0].Page != 1 || !near(s.Boxes[0].X0, 72, 0.5) {
			t.Fatalf("footnote boxes %v, want one on page 1 at x 72", s.Boxes)
		}
		for _, o := range ld.Segments {
			for _, b := range o.Boxes {
				if o.Index != s.Index && b.Page == 1 && b.Y1 >= s.Boxes[0].Y0 {
					t.Errorf("segment %d's box %v is not above the footnote's %v", o.Index, b, s.Boxes[0])
				}
			}
		}
	})
	t.Run("dropped text has no box", func(t *testing.T) {
		dropped := []drawn{
			{1, 72, 760, 8, "running header"}, {2, 72, 760, 8, "running header"},
			{1, 300, 40, 9, "page number"}, {2, 300, 40, 9, "page number"},
			{1, pdftest.RightX + 90, 585, 5, "a tick label"}, {1, pdftest.RightX + 90, 578, 5, "the axis label"},
		}
		for _, s := range ld.Segments {
			for _, d := range dropped {
				if d.inside(s.Boxes) {
					t.Errorf("segment %d's boxes %v cover %s", s.Index, s.Boxes, d.text)
				}
			}
		}
	})
	t.Run("table cells", func(t *testing.T) {
		s := ld.Segments[segmentWith(t, ld, "Model | Score")]
		for _, d := range []drawn{{2, pdftest.LeftX, 620, 10, "Model"}, {2, pdftest.LeftX + 120, 620, 10, "Score"}, {2, pdftest.LeftX + 120, 608, 10, "0.91"}} {
			if !d.inside(s.Boxes) {
				t.Errorf("the table's boxes %v miss %q", s.Boxes, d.text)
			}
		}
	})
}

func TestPDFBoxesBudget(t *testing.T) {
	data, lines := claimsPaper()
	ld := loadBudget(t, "claims.pdf", data, 40)
	if len(ld.Segments) < 6 {
		t.Fatalf("%d segments; the fixture should need several at 40 tokens", len(ld.Segments))
	}
	checkBoxes(t, ld, true)
	checkDrawn(t, "segment", ld.Segments, lines)
	s := ld.Segments[segmentWith(t, ld, "page break and it ends on the next page.")]
	if s.PageStart != 1 || s.PageEnd != 2 || len(s.Boxes) != 2 {
		t.Errorf("the sentence across the page: pages %d-%d, boxes %v; want 1-2, one box on each", s.PageStart, s.PageEnd, s.Boxes)
	}
	for _, s := range ld.Segments {
		if s.PageEnd == 1 && len(s.Boxes) != 1 {
			t.Errorf("segment %q of one column of one page has boxes %v, want one", s.Text, s.Boxes)
		}
	}
}

func TestPDFBoxesHierarchical(t *testing.T) {
	data, lines := claimsPaper()
	ld := loadBudget(t, "claims.pdf", data, 40)
	MakeHierarchical(ld, 150)
	p := checkLayout(t, ld)
	if p < 2 || p == len(ld.Segments) {
		t.Fatalf("%d parents of %d segments; the fixture should give several parents with rows", p, len(ld.Segments))
	}
	checkBoxes(t, ld, true)
	checkDrawn(t, "parent", ld.Segments[:p], lines)
	checkDrawn(t, "row", ld.Segments[p:], lines)
	byID := map[string]store.Segment{}
	for _, s := range ld.Segments[:p] {
		byID[s.ID] = s
	}
	for _, row := range ld.Segments[p:] {
		par := byID[row.Parent]
		for _, b := range row.Boxes {
			if !slices.ContainsFunc(par.Boxes, func(o store.Box) bool {
				return o.Page == b.Page && o.X0 <= b.X0 && o.Y0 <= b.Y0 && b.X1 <= o.X1 && b.Y1 <= o.Y1
			}) {
				t.Errorf("row %d's box %v lies in none of its parent's %v", row.Index, b, par.Boxes)
			}
		}
	}
}

func TestPDFBoxesSemantic(t *testing.T) {
	data, lines := claimsPaper()
	ld := loadBudget(t, "claims.pdf", data, 40)
	before := len(ld.Segments)
	if err := MakeSemanticPercentile(context.Background(), ld, bagEmbed, 60, 50); err != nil {
		t.Fatal(err)
	}
	if len(ld.Segments) == before {
		t.Logf("semantic chunking kept %d segments", before)
	}
	checkBoxes(t, ld, true)
	checkDrawn(t, "semantic segment", ld.Segments, lines)
}

func TestPDFBoxesQuestions(t *testing.T) {
	data, _ := claimsPaper()
	ld := loadBudget(t, "claims.pdf", data, 40)
	p := len(ld.Segments)
	AddQuestions(ld, [][]string{{"What does claim 1 say?", "Which claim is first?"}, nil, {"What does claim 8 say?"}})
	checkBoxes(t, ld, true)
	rows := ld.Segments[p:]
	if len(rows) != 5 {
		t.Fatalf("%d rows, want 5 (two mirrors, three questions)", len(rows))
	}
	for _, r := range rows {
		par := ld.Segments[segmentIndex(t, r.Parent)]
		switch {
		case r.Text != "" && !slices.Equal(r.Boxes, par.Boxes):
			t.Errorf("mirror %d has boxes %v, its passage %v", r.Index, r.Boxes, par.Boxes)
		case r.Text != "" && &r.Boxes[0] == &par.Boxes[0]:
			t.Errorf("mirror %d shares its passage's boxes", r.Index)
		case r.Text == "" && r.Boxes != nil:
			t.Errorf("question %q has boxes %v", r.IndexText, r.Boxes)
		}
	}
}

// segmentIndex is the index in an ID "doc:index".
func segmentIndex(t *testing.T, id string) int {
	t.Helper()
	var i int
	if _, err := fmt.Sscanf(id[strings.LastIndexByte(id, ':')+1:], "%d", &i); err != nil {
		t.Fatalf("id %q: %v", id, err)
	}
	return i
}

// A caption set below a paragraph that runs onto the next page is
// written after that paragraph, past where the next page's text begins;
// its boxes, and so its pages, are where it is drawn.
func TestPDFBoxesFloatAfterRunOn(t *testing.T) {
	p1 := pdftest.Column(pdftest.LeftX, 700, pdftest.ColW, "A paragraph starts the page and", "goes on to the end of the column")
	p1[len(p1)-1].Width = pdftest.ColW
	p1 = append(p1, pdftest.Column(pdftest.LeftX, 600, pdftest.ColW, "Figure 2: A float below the text.")...)
	p2 := pdftest.Column(pdftest.LeftX, 720, pdftest.ColW, "and ends at the top of page two.", "Another paragraph follows it here.")
	ld := loadBudget(t, "float.pdf", pdftest.Paper([][]pdftest.Item{p1, p2}), 10)
	checkBoxes(t, ld, true)
	s := ld.Segments[segmentWith(t, ld, "Figure 2: A float below the text.")]
	if s.PageStart != 1 || s.PageEnd != 1 || len(s.Boxes) != 1 || s.Boxes[0].Page != 1 || !near(s.Boxes[0].Y0, pageH-600-5, 5) {
		t.Errorf("caption pages %d-%d, boxes %v; want page 1 at y about %d", s.PageStart, s.PageEnd, s.Boxes, pageH-600)
	}
}

func TestBoxesNotPDF(t *testing.T) {
	for name, data := range map[string]string{
		"notes.md":  "# Title\n\nA paragraph of Markdown text.\n\n## Part\n\nAnother paragraph here.\n",
		"notes.txt": "Plain text, first paragraph.\n\nSecond paragraph of plain text.\n",
	} {
		ld := loadBytes(t, name, []byte(data))
		checkBoxes(t, ld, false)
		MakeHierarchical(ld, 0)
		checkBoxes(t, ld, false)
	}
}

func TestALCEBoxes(t *testing.T) {
	ld := load(t, sharedPDF(t, "alce-gao2023-citations.pdf"))
	checkBoxes(t, ld, true)
	s := ld.Segments[segmentWith(t, ld, "We argue that the absence of automated evaluation")]
	if s.PageStart != 1 || s.PageEnd != 2 || s.Boxes[0].Page != 1 || s.Boxes[len(s.Boxes)-1].Page != 2 {
		t.Errorf("the paragraph across pages 1-2: pages %d-%d, boxes %v", s.PageStart, s.PageEnd, s.Boxes)
	}
	boxes := 0
	for _, s := range ld.Segments {
		boxes += len(s.Boxes)
	}
	t.Logf("%d passages, %d boxes", len(ld.Segments), boxes)
	MakeHierarchical(ld, 0)
	checkLayout(t, ld)
	checkBoxes(t, ld, true)
}
