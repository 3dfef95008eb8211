package ingest

import (
	"cmp"
	"slices"
)

// gutter finds the gap between two columns on a page: an x position in
// the middle 40% of the page that no line crosses (or very few: a wide
// title, a figure caption) with at least three lines wholly on each side.
// It returns the gap's middle and whether there is one.
func gutter(lines []*pdfLine, width float32) (float32, bool) {
	var live []*pdfLine
	for _, l := range lines {
		if !l.drop {
			live = append(live, l)
		}
	}
	if len(live) < 6 || width <= 0 {
		return 0, false
	}
	type cand struct {
		x           float32
		cross, l, r int
	}
	var cs []cand
	for x := width * 0.3; x <= width*0.7; x += 1 {
		c := cand{x: x}
		for _, l := range live {
			switch {
			case l.x1 <= x:
				c.l++
			case l.x0 >= x:
				c.r++
			default:
				c.cross++
			}
		}
		cs = append(cs, c)
	}
	best := slices.MinFunc(cs, func(a, b cand) int { return cmp.Compare(a.cross, b.cross) })
	if best.cross*5 > len(live) {
		return 0, false
	}
	// The longest run of positions with the fewest crossings and lines on
	// both sides.
	runStart, bestStart, bestLen := -1, 0, 0
	for i := 0; i <= len(cs); i++ {
		ok := i < len(cs) && cs[i].cross == best.cross && cs[i].l >= 3 && cs[i].r >= 3
		if ok && runStart < 0 {
			runStart = i
		}
		if !ok && runStart >= 0 {
			if i-runStart > bestLen {
				bestStart, bestLen = runStart, i-runStart
			}
			runStart = -1
		}
	}
	if bestLen < 4 {
		return 0, false
	}
	return cs[bestStart+bestLen/2].x, true
}

// readingOrder sorts a page's lines for reading: on a two-column page,
// lines that cross the gutter (title, abstract across the page, wide
// figures and tables) cut the page into bands; each band is read left
// column first, then right column. Each line's flow and column extent are
// set.
func readingOrder(lines []*pdfLine, width float32) []*pdfLine {
	top := func(a, b *pdfLine) int {
		if c := cmp.Compare(b.y1, a.y1); c != 0 && !sameRow(a.y0, a.y1, b.y0, b.y1) {
			return c
		}
		return cmp.Compare(a.x0, b.x0)
	}
	g, two := gutter(lines, width)
	if !two {
		slices.SortStableFunc(lines, top)
		setColumn(lines, 0)
		return lines
	}
	var spans, left, right []*pdfLine
	for _, l := range lines {
		switch {
		case l.x1 <= g:
			l.flow = 1
			left = append(left, l)
		case l.x0 >= g:
			l.flow = 2
			right = append(right, l)
		default:
			l.flow = 0
			spans = append(spans, l)
		}
	}
	// A column line on the row of a line across the page (author names
	// side by side under the title) is part of the page-wide text.
	keep := func(col []*pdfLine) []*pdfLine {
		var out []*pdfLine
		for _, l := range col {
			if slices.ContainsFunc(spans, func(s *pdfLine) bool { return sameRow(s.y0, s.y1, l.y0, l.y1) }) {
				spans = append(spans, l)
				continue
			}
			out = append(out, l)
		}
		return out
	}
	left, right = keep(left), keep(right)
	setColumn(left, 1)
	setColumn(right, 2)
	setColumn(spans, 0)
	slices.SortStableFunc(spans, top)
	slices.SortStableFunc(left, top)
	slices.SortStableFunc(right, top)
	out := make([]*pdfLine, 0, len(lines))
	take := func(col []*pdfLine, above float32) []*pdfLine {
		for len(col) > 0 && col[0].y0 >= above {
			out = append(out, col[0])
			col = col[1:]
		}
		return col
	}
	for _, s := range spans {
		// Column lines above this spanning line come first.
		left = take(left, s.y1-0.5*s.height())
		right = take(right, s.y1-0.5*s.height())
		out = append(out, s)
	}
	take(left, -1e9)
	take(right, -1e9)
	return out
}

// setColumn records the horizontal extent of a column's live lines on
// each of them.
func setColumn(lines []*pdfLine, flow int) {
	var x0, x1 float32 = 1e9, -1e9
	for _, l := range lines {
		if l.drop {
			continue
		}
		x0, x1 = min(x0, l.x0), max(x1, l.x1)
	}
	for _, l := range lines {
		l.flow, l.colX0, l.colX1 = flow, x0, x1
	}
}
