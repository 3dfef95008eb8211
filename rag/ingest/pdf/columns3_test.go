package pdf

import (
	"slices"
	"testing"

	"github.com/ibid-dev/ibid/rag/ingest/pdf/pdftest"
)

// ragged lays out lines from y down, 12 points apart, unjustified (the
// lines of a narrow column, each close to its width).
func ragged(x, y float64, lines ...string) []pdftest.Item {
	var out []pdftest.Item
	for i, l := range lines {
		out = append(out, pdftest.Item{X: x, Y: y - 12*float64(i), Size: 10, Text: l})
	}
	return out
}

// Three columns 132 points wide (22 Courier characters) with gutters of
// 54 points.
const col1X, col2X, col3X = 54.0, 240.0, 426.0

// threeColumns is a page's three columns, each a paragraph of its own,
// from y down.
func threeColumns(y float64) []pdftest.Item {
	var page []pdftest.Item
	page = append(page, ragged(col1X, y,
		"Alpha reads the first",
		"column from its top",
		"to its foot, then the",
		"reader moves on right.")...)
	page = append(page, ragged(col2X, y,
		"Beta is the middle of",
		"the page and it comes",
		"second in the order a",
		"reader takes it in.")...)
	page = append(page, ragged(col3X, y,
		"Gamma closes the page",
		"on the right and its",
		"lines are read after",
		"the other two columns.")...)
	return page
}

var threeColumnParas = []string{
	"body: Alpha reads the first column from its top to its foot, then the reader moves on right.",
	"body: Beta is the middle of the page and it comes second in the order a reader takes it in.",
	"body: Gamma closes the page on the right and its lines are read after the other two columns.",
}

// A three-column page reads column by column from the left; with a title
// and authors across the top, those come first; a footnote at the foot
// of the middle column is a paragraph of its own, after the columns'
// text.
func TestThreeColumnPages(t *testing.T) {
	t.Run("three columns", func(t *testing.T) {
		lay := layoutOf(t, pdftest.Paper([][]pdftest.Item{threeColumns(600)}))
		if got := paraList(lay); !slices.Equal(got, threeColumnParas) {
			t.Errorf("paragraphs:\n got %q\nwant %q", got, threeColumnParas)
		}
	})
	t.Run("title band above", func(t *testing.T) {
		page := []pdftest.Item{
			{X: 120, Y: 720, Size: 16, Bold: true, Text: "Reading Order Across Three Columns"},
			{X: 180, Y: 696, Size: 10, Text: "Ada Lovelace and Alan Turing"},
		}
		page = append(page, threeColumns(640)...)
		page = append(page,
			pdftest.Item{X: col2X, Y: 104, Size: 6, Text: "1"},
			pdftest.Item{X: col2X + 4, Y: 100, Size: 8, Text: "A note at the foot."},
		)
		lay := layoutOf(t, pdftest.Paper([][]pdftest.Item{page}))
		want := append([]string{"title: Reading Order Across Three Columns", "authors: Ada Lovelace and Alan Turing"}, threeColumnParas...)
		want = append(want, "footnote: 1 A note at the foot.")
		if got := paraList(lay); !slices.Equal(got, want) {
			t.Errorf("paragraphs:\n got %q\nwant %q", got, want)
		}
		for _, l := range lay.pages[0].lines {
			if l.text == "Beta is the middle of" && l.flow != 2 || l.text == "Gamma closes the page" && l.flow != 3 {
				t.Errorf("line %q in flow %d", l.text, l.flow)
			}
		}
	})
}

// A table inside the left column of a two-column page leaves a gap in
// that column only: the page still has two columns, not three uneven
// ones.
func TestTableGapIsNoColumn(t *testing.T) {
	var page []pdftest.Item
	page = append(page, pdftest.Column(pdftest.LeftX, 700, pdftest.ColW,
		"The scores of the three models are in",
		"the table below, one row to a model.")...)
	for i, row := range [][2]string{{"Alpha", "0.91"}, {"Beta", "0.87"}, {"Gamma", "0.78"}} {
		y := 670 - 12*float64(i)
		page = append(page, pdftest.Item{X: pdftest.LeftX, Y: y, Size: 10, Text: row[0]}, pdftest.Item{X: pdftest.LeftX + 150, Y: y, Size: 10, Text: row[1]})
	}
	page = append(page, pdftest.Column(pdftest.RightX, 700, pdftest.ColW,
		"The right column holds the discussion",
		"of these scores, which goes on for a",
		"few lines and ends with a full stop.")...)
	lay := layoutOf(t, pdftest.Paper([][]pdftest.Item{page}))
	want := []string{
		"body: The scores of the three models are in the table below, one row to a model.",
		"body: Alpha | 0.91 Beta | 0.87 Gamma | 0.78",
		"body: The right column holds the discussion of these scores, which goes on for a few lines and ends with a full stop.",
	}
	if got := paraList(lay); !slices.Equal(got, want) {
		t.Errorf("paragraphs:\n got %q\nwant %q", got, want)
	}
	for _, l := range lay.pages[0].lines {
		if want := map[bool]int{true: 1, false: 2}[l.x1 < pdftest.RightX]; l.flow != want {
			t.Errorf("line %q in flow %d, want %d", l.text, l.flow, want)
		}
	}
}
