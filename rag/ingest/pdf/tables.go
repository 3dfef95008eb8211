package pdf

import (
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// A table on a page is found from its rows, before small type is dropped
// (a results table is often set smaller than the body, and its numbers
// would read as tick labels): rows of short cells, several of them with
// numbers, one under the other, with a "Table N" caption just above or
// below them. Its cells are taken out of the page's lines and become one
// paragraph of kind Table, rows top down, cells left to right, placed
// right after its caption in reading order.

// tableCaptionRE matches a table's caption line.
var tableCaptionRE = regexp.MustCompile(`^(Table|TABLE|Tab\.|表)\s*[0-9A-Z]+`)

// isTableCaption is tableCaptionRE.MatchString(s), asked of the regexp
// only when s starts with a literal every match starts with: it is asked
// of every line of every page, and under the race detector the regexp's
// backtracker took a tenth of a second a paper.
func isTableCaption(s string) bool {
	return (strings.HasPrefix(s, "Tab") || strings.HasPrefix(s, "TABLE") || strings.HasPrefix(s, "表")) &&
		tableCaptionRE.MatchString(s)
}

// numericCellRE matches a cell that holds a number ("43.7", "(0.3)",
// "-1.2%", "21M").
var numericCellRE = regexp.MustCompile(`^[(\[]?[-+−±]?[0-9]`)

// tableCell is one cell: fragments of a line closer than half an em (a
// word in small capitals is several fragments).
type tableCell struct {
	frags []*fragment
	f     fragment // the cell's box and size (f.x0 .. f.y1, f.size)
	line  *textLine
	text  string
}

// tableRow is the cells that share a baseline, left to right.
type tableRow struct {
	cells  []tableCell
	y0, y1 float32
}

func (r *tableRow) height() float32 { return r.y1 - r.y0 }

// findTables takes the tables off a page's lines: it returns the lines
// left and one Table paragraph a table, each with the caption line it
// belongs to. A table lies in its caption's column (the whole page for a
// caption across it), next to the caption: the rows above it, or below it
// when none above read as a table, up to the first row of prose.
func findTables(p *layoutPage) (rest []*textLine, tables []*paragraph) {
	var captions []*textLine
	for _, l := range p.lines {
		if isTableCaption(strings.TrimSpace(l.text)) {
			captions = append(captions, l)
		}
	}
	if len(captions) == 0 {
		return p.lines, nil
	}
	rows := tableRows(p.lines)
	// The page's columns, from its prose alone: a table's own gaps (the
	// one after its row labels) are no columns.
	var prose []*textLine
	for _, l := range p.lines {
		if l.x1-l.x0 >= 0.25*p.width {
			prose = append(prose, l)
		}
	}
	gs := gutters(prose, p.width)
	taken := map[*textLine]bool{}
	for _, c := range captions {
		if taken[c] {
			continue
		}
		lo, hi := float32(-1e9), float32(1e9)
		if k := columnOf(c, gs); k > 0 {
			if k > 1 {
				lo = gs[k-2]
			}
			if k <= len(gs) {
				hi = gs[k-1]
			}
		}
		at := slices.IndexFunc(rows, func(r *tableRow) bool {
			return slices.ContainsFunc(r.cells, func(x tableCell) bool { return x.line == c })
		})
		t := tableNear(p, rows, at, -1, lo, hi, c, taken)
		if t == nil {
			t = tableNear(p, rows, at, 1, lo, hi, c, taken)
		}
		if t == nil {
			continue
		}
		for _, l := range t.lines {
			taken[l] = true
		}
		tables = append(tables, t)
	}
	if len(tables) == 0 {
		return p.lines, nil
	}
	taken = map[*textLine]bool{}
	for _, t := range tables {
		for _, l := range t.sources {
			taken[l] = true
		}
	}
	for _, l := range p.lines {
		if !taken[l] {
			rest = append(rest, l)
		}
	}
	return rest, tables
}

// tableNear reads the table next to caption c, whose row is rows[at],
// going up (dir -1) or down (dir 1) through the cells in [lo, hi]: rows
// of short cells, two or more of them with numbers (core rows), with at
// most three other rows of short cells in a row (group labels, headers),
// until a row with prose in it or a gap. It is nil when there is no such
// table.
func tableNear(p *layoutPage, rows []*tableRow, at, dir int, lo, hi float32, c *textLine, taken map[*textLine]bool) *paragraph {
	in := func(x tableCell) bool {
		return x.f.x0 >= lo-1 && x.f.x1 <= hi+1 && x.line != c && !taken[x.line]
	}
	short := func(x tableCell) bool {
		return utf8.RuneCountInString(x.text) <= 40 && x.f.x1-x.f.x0 <= 0.45*p.width && !isTableCaption(x.text)
	}
	var got []*tableRow
	cores, others := 0, 0
	prev := rows[at]
	for j := at + dir; j >= 0 && j < len(rows); j += dir {
		r := rows[j]
		n, num, prose := 0, 0, false
		for _, x := range r.cells {
			if !in(x) {
				continue
			}
			n++
			if !short(x) {
				prose = true
			} else if numericCellRE.MatchString(x.text) && letterShare(x.text) < 0.5 {
				num++
			}
		}
		if n == 0 {
			continue // nothing of this row in the caption's column
		}
		gap := prev.y0 - r.y1
		if dir > 0 {
			gap = r.y0 - prev.y1
		}
		if prose || gap > 2.5*max(prev.height(), r.height()) {
			break
		}
		if n >= 2 && num >= 1 {
			cores++
			others = 0
		} else if others++; others > 3 || n == 1 && proseTail(r, in) {
			break
		}
		got = append(got, r)
		prev = r
	}
	if cores < 2 {
		return nil
	}
	if dir < 0 {
		slices.Reverse(got)
	}
	t := &paragraph{kind: Table, page: p.index, caption: c}
	for _, r := range got {
		for _, x := range r.cells {
			if in(x) {
				t.lines = append(t.lines, cellLine(x))
				if !slices.Contains(t.sources, x.line) {
					t.sources = append(t.sources, x.line)
				}
			}
		}
	}
	return t
}

// tableRows groups lines into rows of cells (a line's fragments), top
// down.
func tableRows(lines []*textLine) []*tableRow {
	sorted := slices.Clone(lines)
	slices.SortStableFunc(sorted, func(a, b *textLine) int {
		switch {
		case a.y0+a.y1 > b.y0+b.y1:
			return -1
		case a.y0+a.y1 < b.y0+b.y1:
			return 1
		}
		return 0
	})
	var rows []*tableRow
	for _, l := range sorted {
		if n := len(rows); n == 0 || !sameRow(rows[n-1].y0, rows[n-1].y1, l.y0, l.y1) {
			rows = append(rows, &tableRow{y0: l.y0, y1: l.y1})
		}
		r := rows[len(rows)-1]
		r.y0, r.y1 = min(r.y0, l.y0), max(r.y1, l.y1)
		var cur *tableCell
		for _, f := range l.frags {
			if cur != nil && f.x0-cur.f.x1 <= 0.5*max(f.size, cur.f.size) {
				if f.x0-cur.f.x1 > 0.2*max(f.size, cur.f.size) {
					cur.text += " "
				}
				cur.frags = append(cur.frags, f)
				cur.text += string(f.text)
				cur.f.x0, cur.f.x1 = min(cur.f.x0, f.x0), max(cur.f.x1, f.x1)
				cur.f.y0, cur.f.y1 = min(cur.f.y0, f.y0), max(cur.f.y1, f.y1)
				cur.f.size = max(cur.f.size, f.size)
				continue
			}
			if cur != nil {
				cur.text = cleanLine(cur.text)
				r.cells = append(r.cells, *cur)
			}
			cur = &tableCell{frags: []*fragment{f}, f: *f, line: l, text: string(f.text)}
		}
		if cur != nil {
			cur.text = cleanLine(cur.text)
			r.cells = append(r.cells, *cur)
		}
	}
	for _, r := range rows {
		slices.SortStableFunc(r.cells, func(a, b tableCell) int {
			switch {
			case a.f.x0 < b.f.x0:
				return -1
			case a.f.x0 > b.f.x0:
				return 1
			}
			return 0
		})
	}
	return rows
}

// cellLine is a table cell as a line of its own: its fragments, box and
// text.
func cellLine(c tableCell) *textLine {
	if len(c.frags) == len(c.line.frags) {
		return c.line
	}
	l := *c.line
	l.frags = c.frags
	l.x0, l.y0, l.x1, l.y1 = c.f.x0, c.f.y0, c.f.x1, c.f.y1
	l.text = c.text
	l.size = c.f.size
	return &l
}

// proseTail reports whether a row's one cell in the table's column reads
// as prose or a heading (the last line of a paragraph ending a sentence,
// "C ALCE Catches Shortcut Cases"), not as a table's label or header.
func proseTail(r *tableRow, in func(tableCell) bool) bool {
	for _, x := range r.cells {
		if in(x) {
			return len(strings.Fields(x.text)) >= 3 && endsSentence(x.text) || isHeadingLine(x.text) || isNamedHeading(x.text)
		}
	}
	return false
}
