package ingest

import (
	"slices"
	"testing"
)

// ragged lays out lines from y down, 12 points apart, unjustified (the
// lines of a narrow column, each close to its width).
func ragged(x, y float64, lines ...string) []paperItem {
	var out []paperItem
	for i, l := range lines {
		out = append(out, paperItem{x: x, y: y - 12*float64(i), size: 10, text: l})
	}
	return out
}

// Three columns 132 points wide (22 Courier characters) with gutters of
// 54 points.
const col1X, col2X, col3X = 54.0, 240.0, 426.0

// threeColumns is a page's three columns, each a paragraph of its own,
// from y down.
func threeColumns(y float64) []paperItem {
	var page []paperItem
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
		lay := layoutOf(t, paperPDF([][]paperItem{threeColumns(600)}))
		if got := paraList(lay); !slices.Equal(got, threeColumnParas) {
			t.Errorf("paragraphs:\n got %q\nwant %q", got, threeColumnParas)
		}
	})
	t.Run("title band above", func(t *testing.T) {
		page := []paperItem{
			{x: 120, y: 720, size: 16, bold: true, text: "Reading Order Across Three Columns"},
			{x: 180, y: 696, size: 10, text: "Ada Lovelace and Alan Turing"},
		}
		page = append(page, threeColumns(640)...)
		page = append(page,
			paperItem{x: col2X, y: 104, size: 6, text: "1"},
			paperItem{x: col2X + 4, y: 100, size: 8, text: "A note at the foot."},
		)
		lay := layoutOf(t, paperPDF([][]paperItem{page}))
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
	var page []paperItem
	page = append(page, column(leftX, 700, colW,
		"The scores of the three models are in",
		"the table below, one row to a model.")...)
	for i, row := range [][2]string{{"Alpha", "0.91"}, {"Beta", "0.87"}, {"Gamma", "0.78"}} {
		y := 670 - 12*float64(i)
		page = append(page, paperItem{x: leftX, y: y, size: 10, text: row[0]}, paperItem{x: leftX + 150, y: y, size: 10, text: row[1]})
	}
	page = append(page, column(rightX, 700, colW,
		"The right column holds the discussion",
		"of these scores, which goes on for a",
		"few lines and ends with a full stop.")...)
	lay := layoutOf(t, paperPDF([][]paperItem{page}))
	want := []string{
		"body: The scores of the three models are in the table below, one row to a model.",
		"body: Alpha | 0.91 Beta | 0.87 Gamma | 0.78",
		"body: The right column holds the discussion of these scores, which goes on for a few lines and ends with a full stop.",
	}
	if got := paraList(lay); !slices.Equal(got, want) {
		t.Errorf("paragraphs:\n got %q\nwant %q", got, want)
	}
	for _, l := range lay.pages[0].lines {
		if want := map[bool]int{true: 1, false: 2}[l.x1 < rightX]; l.flow != want {
			t.Errorf("line %q in flow %d, want %d", l.text, l.flow, want)
		}
	}
}
