package pdf

import (
	"cmp"
	"container/heap"
	"slices"
	"sort"
)

// gapScan is how the live lines of a page lie around an x position: how
// many cross it, and how many lie wholly left or right of it.
type gapScan struct {
	x           float32
	cross, l, r int
}

// maxScan bounds the positions scanGaps looks at: one a point on any
// real page (A0 is 2,384 points wide), evenly spread on a larger one, so
// that a page's size costs no more than its text.
const maxScan = 4096

// scanGaps scans the middle 70% of a page one point at a time (see
// maxScan). The grid holds the points width*0.3 + k, so gutter sees the
// positions it always saw. It sorts the lines' edges once and walks them
// with the scan, so its work is O(n log n) in the lines plus the
// positions.
func scanGaps(live []*textLine, width float32) []gapScan {
	// A line is left of x when x1 <= x, else right when x0 >= x, else it
	// crosses x. A line of no width (x0 == x1) is left from x0 on and
	// right before it.
	var ends, starts, points []float32
	for _, l := range live {
		ends = append(ends, l.x1)
		if l.x0 < l.x1 {
			starts = append(starts, l.x0)
		} else {
			points = append(points, l.x0)
		}
	}
	slices.Sort(ends)
	slices.Sort(starts)
	slices.Sort(points)
	from, to := width*0.3-float32(int(width*0.15)), width*0.85
	step := float32(1)
	if n := to - from; n > maxScan {
		step = n / maxScan
	}
	var cs []gapScan
	left, startsBefore, pointsAtOrBefore := 0, 0, 0
	for x := from; x <= to; x += step {
		for left < len(ends) && ends[left] <= x {
			left++
		}
		for startsBefore < len(starts) && starts[startsBefore] < x {
			startsBefore++
		}
		for pointsAtOrBefore < len(points) && points[pointsAtOrBefore] <= x {
			pointsAtOrBefore++
		}
		right := len(starts) - startsBefore + len(points) - pointsAtOrBefore
		cs = append(cs, gapScan{x: x, l: left, r: right, cross: len(live) - left - right})
	}
	return cs
}

// gutter finds the gap between two columns on a page from its scan: an x
// position in the middle 40% of the page that no line crosses (or very
// few: a wide title, a figure caption) with at least three lines wholly
// on each side. It returns the gap's middle and whether there is one.
func gutter(scan []gapScan, live int, width float32) (float32, bool) {
	var cs []gapScan
	for _, c := range scan {
		if c.x >= width*0.3-0.5 && c.x <= width*0.7 {
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 {
		return 0, false
	}
	best := slices.MinFunc(cs, func(a, b gapScan) int { return cmp.Compare(a.cross, b.cross) })
	if best.cross*5 > live {
		return 0, false
	}
	// The longest run of positions with the fewest crossings and lines on
	// both sides.
	bestStart, bestLen := longestRun(len(cs), func(i int) bool {
		return cs[i].cross == best.cross && cs[i].l >= 3 && cs[i].r >= 3
	})
	if bestLen < 4 {
		return 0, false
	}
	return cs[bestStart+bestLen/2].x, true
}

// longestRun is the first longest run of consecutive indexes below n
// for which ok holds: its start and length (0, 0 when there is none).
func longestRun(n int, ok func(i int) bool) (start, length int) {
	from := -1
	for i := 0; i <= n; i++ {
		in := i < n && ok(i)
		if in && from < 0 {
			from = i
		}
		if !in && from >= 0 {
			if i-from > length {
				start, length = from, i-from
			}
			from = -1
		}
	}
	return start, length
}

// gutters finds the gaps between a page's columns, left to right: each
// is an x position in the middle 70% of the page that few lines cross
// (at most a fifth of them: a wide title, a figure caption) with at least
// three lines wholly on each side, in the middle of the widest stretch
// with the fewest crossings. Three or more columns count only when every
// column holds three lines and the columns are about as wide as each
// other (the narrowest at least 70% of the widest), so that a table's
// gap inside one column of a two-column page splits nothing; otherwise
// the page has at most the two columns gutter finds.
func gutters(lines []*textLine, width float32) []float32 {
	var live []*textLine
	for _, l := range lines {
		if !l.drop {
			live = append(live, l)
		}
	}
	if len(live) < 6 || width <= 0 {
		return nil
	}
	scan := scanGaps(live, width)
	var gs []float32
	var run []gapScan // positions few lines cross, with lines on both sides
	flush := func() {
		if len(run) == 0 {
			return
		}
		least := slices.MinFunc(run, func(a, b gapScan) int { return cmp.Compare(a.cross, b.cross) }).cross
		bestS, bestN := longestRun(len(run), func(i int) bool { return run[i].cross == least })
		if bestN >= 4 {
			gs = append(gs, run[bestS+bestN/2].x)
		}
		run = run[:0]
	}
	for _, c := range scan {
		if c.cross*5 <= len(live) && c.l >= 3 && c.r >= 3 {
			run = append(run, c)
			continue
		}
		flush()
	}
	flush()
	if len(gs) >= 2 && evenColumns(live, gs) {
		return gs
	}
	if g, ok := gutter(scan, len(live), width); ok {
		return []float32{g}
	}
	return nil
}

// evenColumns reports whether the gutters gs cut the lines into columns
// of three lines or more each, about equally wide.
func evenColumns(live []*textLine, gs []float32) bool {
	type extent struct {
		x0, x1 float32
		n      int
	}
	cols := make([]extent, len(gs)+1)
	for i := range cols {
		cols[i] = extent{x0: 1e9, x1: -1e9}
	}
	for _, l := range live {
		if k := columnOf(l, gs); k > 0 {
			c := &cols[k-1]
			c.x0, c.x1 = min(c.x0, l.x0), max(c.x1, l.x1)
			c.n++
		}
	}
	var lo, hi float32 = 1e9, 0
	for _, c := range cols {
		if c.n < 3 {
			return false
		}
		lo, hi = min(lo, c.x1-c.x0), max(hi, c.x1-c.x0)
	}
	return lo >= 0.7*hi
}

// columnOf is the column a line lies in wholly (1 is the leftmost), or 0
// for a line that crosses a gutter. gs is in increasing order; the search
// is binary.
func columnOf(l *textLine, gs []float32) int {
	// The leftmost column k+1 with gs[k-1] <= x0 and x1 <= gs[k]: only
	// the column that holds x0 can, unless the line has no width and lies
	// on a gutter (then the column left of the first such gutter).
	k := sort.Search(len(gs), func(i int) bool { return gs[i] > l.x0 })
	if l.x1 <= l.x0 {
		if i := sort.Search(len(gs), func(i int) bool { return gs[i] >= l.x0 }); i < k && l.x1 <= gs[i] {
			return i + 1
		}
	}
	if k == len(gs) || l.x1 <= gs[k] {
		return k + 1
	}
	return 0
}

// readingOrder sorts a page's lines for reading: on a page of columns
// (see gutters), lines that cross a gutter (title, abstract across the
// page, wide figures and tables) cut the page into bands; each band is
// read column by column, from the left. Each line's flow (0 across the
// page, 1.. the columns from the left) and column extent are set.
func readingOrder(lines []*textLine, width float32) []*textLine {
	top := func(a, b *textLine) int {
		if c := cmp.Compare(b.y1, a.y1); c != 0 && !sameRow(a.y0, a.y1, b.y0, b.y1) {
			return c
		}
		return cmp.Compare(a.x0, b.x0)
	}
	gs := gutters(lines, width)
	if len(gs) == 0 {
		slices.SortStableFunc(lines, top)
		setColumn(lines, 0)
		return lines
	}
	var spans []*textLine
	cols := make([][]*textLine, len(gs)+1)
	for _, l := range lines {
		if k := columnOf(l, gs); k > 0 {
			cols[k-1] = append(cols[k-1], l)
		} else {
			spans = append(spans, l)
		}
	}
	// A column line on the row of a line across the page (author names
	// side by side under the title) is part of the page-wide text.
	rows := newRowIndex(spans)
	for k, col := range cols {
		var kept []*textLine
		for _, l := range col {
			if rows.any(l, func(*textLine) bool { return true }) {
				spans = append(spans, l)
				rows.add(l)
				continue
			}
			kept = append(kept, l)
		}
		cols[k] = kept
	}
	for k, col := range cols {
		setColumn(col, k+1)
		slices.SortStableFunc(col, top)
	}
	setColumn(spans, 0)
	slices.SortStableFunc(spans, top)
	out := make([]*textLine, 0, len(lines))
	// take writes, column by column from the left, the lines at the top
	// of each column down to above. The columns wait in a heap by the
	// top of their next line, so a take looks only at the columns it
	// takes from.
	heads := &columnHeap{cols: cols}
	for k, col := range cols {
		if len(col) > 0 {
			heads.ks = append(heads.ks, k)
		}
	}
	heap.Init(heads)
	var ks []int
	take := func(above float32) {
		ks = ks[:0]
		for heads.Len() > 0 && cols[heads.ks[0]][0].y0 >= above {
			ks = append(ks, heap.Pop(heads).(int))
		}
		slices.Sort(ks)
		for _, k := range ks {
			col := cols[k]
			for len(col) > 0 && col[0].y0 >= above {
				out = append(out, col[0])
				col = col[1:]
			}
			cols[k] = col
			if len(col) > 0 {
				heap.Push(heads, k)
			}
		}
	}
	for _, s := range spans {
		// Column lines above this spanning line come first.
		take(s.y1 - 0.5*s.height())
		out = append(out, s)
	}
	take(-1e9)
	return out
}

// setColumn records the horizontal extent of a column's live lines on
// each of them.
func setColumn(lines []*textLine, flow int) {
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

// columnHeap holds column indexes, the column whose next line is highest
// on the page first (the leftmost of equals).
type columnHeap struct {
	cols [][]*textLine
	ks   []int
}

func (h *columnHeap) Len() int { return len(h.ks) }
func (h *columnHeap) Less(i, j int) bool {
	a, b := h.cols[h.ks[i]][0].y0, h.cols[h.ks[j]][0].y0
	return a > b || a == b && h.ks[i] < h.ks[j]
}
func (h *columnHeap) Swap(i, j int) { h.ks[i], h.ks[j] = h.ks[j], h.ks[i] }
func (h *columnHeap) Push(x any)    { h.ks = append(h.ks, x.(int)) }
func (h *columnHeap) Pop() any {
	k := h.ks[len(h.ks)-1]
	h.ks = h.ks[:len(h.ks)-1]
	return k
}
