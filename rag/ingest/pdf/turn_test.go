package pdf

import (
	"slices"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/rag/ingest/pdf/pdftest"
)

// Turning a box into any quarter turn's frame and back gives the box.
func TestFrameRoundTrip(t *testing.T) {
	const w, h = 612, 792
	for turn := int8(0); turn < 4; turn++ {
		x0, y0, x1, y1 := toFrame(turn, w, h, 72, 100, 300, 112)
		if x0 > x1 || y0 > y1 {
			t.Errorf("turn %d: frame box %v %v %v %v is inside out", turn, x0, y0, x1, y1)
		}
		if a, b, c, d := fromFrame(turn, w, h, x0, y0, x1, y1); a != 72 || b != 100 || c != 300 || d != 112 {
			t.Errorf("turn %d: back to %v %v %v %v", turn, a, b, c, d)
		}
	}
}

// sideways draws lines turned a quarter counter-clockwise (text read
// upwards, "0 1 -1 0 x y Tm"), each 14 points right of the one before,
// as a landscape page is set on a portrait one.
func sideways(x, y float64, lines ...string) []pdftest.Item {
	return turned(1, x, y, lines...)
}

// turned draws lines turned by turn quarters from (x, y), each 14 points
// further down in the turned text's own frame.
func turned(turn int, x, y float64, lines ...string) []pdftest.Item {
	var out []pdftest.Item
	for i, l := range lines {
		step := [4][2]float64{{0, -14}, {14, 0}, {0, 14}, {-14, 0}}[turn]
		out = append(out, pdftest.Item{X: x + step[0]*float64(i), Y: y + step[1]*float64(i), Size: 10, Turn: turn, Text: l})
	}
	return out
}

// A page whose text is all sideways is read in reading order for its
// turn (upwards, upside down, downwards): a heading, then a paragraph of
// three lines, each line's box standing where its text is drawn.
func TestSidewaysPage(t *testing.T) {
	want := []string{
		"heading: 1 Results Set Sideways",
		"body: A landscape page sets its text along the long edge of the paper, read from the bottom up, each line right of the one before it, as a wide table needs.",
	}
	text := []string{
		"A landscape page sets its text along the long edge of",
		"the paper, read from the bottom up, each line right of",
		"the one before it, as a wide table needs."}
	// Where each turn's lines start: the heading, then the paragraph.
	for turn, at := range [][4]float64{1: {100, 72, 130, 72}, 2: {540, 300, 540, 330}, 3: {500, 720, 470, 720}} {
		if turn == 0 {
			continue
		}
		page := turned(turn, at[0], at[1], "1 Results Set Sideways")
		page[0].Bold = true
		page = append(page, turned(turn, at[2], at[3], text...)...)
		d := readDoc(t, pdftest.Paper([][]pdftest.Item{page}))
		var texts []string
		for _, b := range d.Blocks {
			texts = append(texts, b.Kind.String()+": "+b.Text)
		}
		if !slices.Equal(texts, want) {
			t.Errorf("turn %d: blocks:\n got %q\nwant %q", turn, texts, want)
			continue
		}
		if d.Pages[0].Width != 612 || d.Pages[0].Height != 792 {
			t.Errorf("turn %d: page size %gx%g, want the page's own 612x792", turn, d.Pages[0].Width, d.Pages[0].Height)
		}
		if turn != 1 {
			continue
		}
		// The paragraph's first line is drawn up the page from (130,
		// 72): its box is narrow and tall, at x about 120-133 and, y
		// down, from 792-72 up by its 53 characters of 6 points.
		b := d.Blocks[1].Lines[0].Box
		if b.Page != 1 || b.X0 < 115 || b.X1 > 135 || b.Y1 < 715 || b.Y1 > 722 || b.Y0 > 792-72-300 || b.Y0 < 792-72-330 {
			t.Errorf("first line's box %+v", b)
		}
	}
}

// Sideways text on an upright page (a rotated caption and table, the
// arXiv stamp in the margin) is read after the page's text, each block in
// its own turn's reading order, and never joined to the page's
// paragraphs.
func TestSidewaysOnUprightPage(t *testing.T) {
	page := pdftest.Column(pdftest.LeftX, 700, 336,
		"The upright text of the page comes first and ends with",
		"a sentence that runs on to the next page without a")
	page[1].Width = 336
	page = append(page, pdftest.Item{X: 30, Y: 300, Size: 20, Vertical: true, Text: "arXiv:2305.14627v1 [cs.CL] 24 May 2023"})
	page = append(page, sideways(300, 100, "Table 3: Scores turned to fit the page.")...)
	page = append(page, sideways(330, 100, "Model  Score")...)
	page2 := pdftest.Column(pdftest.LeftX, 700, 336, "full stop, on page two.")
	d := readDoc(t, pdftest.Paper([][]pdftest.Item{page, page2}))
	var texts []string
	for _, b := range d.Blocks {
		texts = append(texts, b.Kind.String()+": "+b.Text)
	}
	want := []string{
		"body: The upright text of the page comes first and ends with a sentence that runs on to the next page without a full stop, on page two.",
		"body: arXiv:2305.14627v1 [cs.CL] 24 May 2023",
		"caption: Table 3: Scores turned to fit the page.",
		"body: Model Score",
	}
	if !slices.Equal(texts, want) {
		t.Fatalf("blocks:\n got %q\nwant %q", texts, want)
	}
	if s := d.Blocks[1].Lines[0].Box; s.X1 > 40 || s.Y1-s.Y0 < 200 {
		t.Errorf("the stamp's box %+v: want tall and narrow in the left margin", s)
	}
	if !strings.Contains(d.text(), "without a full stop") {
		t.Error("the paragraph across the page break is split")
	}
}

// Characters turned by an angle that is no quarter turn (a label set at
// 45 degrees in a chart) are still left out.
func TestQuarterTurn(t *testing.T) {
	for _, c := range []struct {
		angle float32
		turn  int8
		skew  bool
	}{{0, 0, false}, {-1, 0, false}, {4.7124, 1, false}, {3.1416, 2, false}, {1.5708, 3, false}, {6.2832, 0, false}, {0.785, 0, true}, {1.3, 0, true}} {
		if turn, skew := quarterTurn(c.angle); turn != c.turn || skew != c.skew {
			t.Errorf("quarterTurn(%v) = %d, %v; want %d, %v", c.angle, turn, skew, c.turn, c.skew)
		}
	}
}
