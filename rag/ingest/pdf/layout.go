package pdf

import (
	"context"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// layout is a PDF read as a paper: its paragraphs in reading order,
// with headers, footers, page numbers and figure text gone, footnotes as
// paragraphs of their own, and the front matter recognised.
//
// Invariant: paras are in reading order; a paragraph's lines may run onto
// the next page (a paragraph broken by a page break is one paragraph) but
// footnotes of a page come before any paragraph that starts on a later
// page; labels has one entry per page.
type layout struct {
	pages   []*layoutPage
	paras   []*paragraph
	labels  []string
	body    float32
	title   string
	authors []string
	heads   []string // running headers and footers taken out of the text
}

// layOut reads the pages' characters into paragraphs.
func layOut(ctx context.Context, raw []*rawPage, outline []outlineItem) *layout {
	lay := &layout{}
	sizes := map[float32]int{}
	for i, rp := range raw {
		checkCtx(ctx)
		var pg *layoutPage
		for _, f := range frames(rp) {
			frags := fragmentsOf(f.raw)
			markFigures(frags, f.raw)
			for _, fr := range frags {
				if !fr.inFigure {
					sizes[roundSize(fr.size)] += fr.chars
				}
			}
			p := &layoutPage{index: i, width: f.raw.width, height: f.raw.height, pageW: rp.width, pageH: rp.height, lines: buildLines(frags, i, f.turn)}
			if pg == nil {
				pg = p
			} else {
				pg.sideways = append(pg.sideways, p)
			}
		}
		lay.pages = append(lay.pages, pg)
	}
	best := 0
	for s, n := range sizes {
		if n > best || n == best && s < lay.body {
			best, lay.body = n, s
		}
	}
	if lay.body == 0 {
		lay.body = 10
	}
	for _, p := range lay.pages {
		checkCtx(ctx)
		p.lines, p.tables = findTables(p)
		for _, q := range withSideways(p) {
			markSmallText(q.lines, lay.body)
		}
	}
	lay.heads = dropMargins(lay.pages)
	for _, p := range lay.pages {
		checkCtx(ctx)
		for _, q := range withSideways(p) {
			markTicks(q.lines, lay.body)
		}
	}
	vocab := vocabulary{}
	for _, p := range lay.pages {
		checkCtx(ctx)
		for _, q := range withSideways(p) {
			q.lines = readingOrder(q.lines, q.width)
			broken := false
			for _, l := range q.lines {
				l.text = cleanLine(l.text)
				vocab.add(l.text, broken) // figure and table words count too
				broken = strings.HasSuffix(l.text, "-")
			}
		}
		lay.labels = append(lay.labels, p.label)
	}
	// Paragraphs of each page, footnotes apart.
	type pageParas struct{ body, notes, sideways []*paragraph }
	all := make([]pageParas, len(lay.pages))
	for i, p := range lay.pages {
		checkCtx(ctx)
		rest, notes := splitFootnotes(p, lay.body)
		all[i] = pageParas{body: paragraphsOf(p, rest), notes: notes}
		for _, q := range p.sideways {
			for _, para := range paragraphsOf(q, q.lines) {
				para.sideways = true
				classify(para, lay.body)
				all[i].sideways = append(all[i].sideways, para)
			}
		}
	}
	var bodies []*paragraph
	for i := range all {
		for _, para := range all[i].body {
			classify(para, lay.body)
			bodies = append(bodies, para)
		}
	}
	markHeadings(bodies, lay, outline)
	for i := range all {
		all[i].body = placeTables(all[i].body, lay.pages[i].tables)
		all[i].body = append(all[i].body, all[i].sideways...)
	}
	// Join paragraphs broken by a column or page break, then place each
	// page's footnotes before a paragraph that runs onto the next page.
	// A float (a figure, table or caption across the page) between the
	// two parts does not stop the join.
	var open *paragraph
	for i := range all {
		var kept []*paragraph
		for _, para := range all[i].body {
			if open != nil && runsOn(open, para) {
				open.lines = append(open.lines, para.lines...)
				continue
			}
			kept = append(kept, para)
			if open == nil || open.kind != Body || !isFloat(para, open, lay.body) {
				open = para
			}
		}
		all[i].body = kept
	}
	for i := range all {
		body := all[i].body
		// The footnotes go before the paragraph that runs on (and any
		// headings or floats just before it).
		at := len(body)
		for k := len(body) - 1; k >= 0; k-- {
			if body[k].last().page > i {
				at = k
				for at > 0 && (body[at-1].kind == Heading || body[at-1].kind == Caption) {
					at--
				}
				// A table of this page after the paragraph that runs on
				// (placed after its caption) goes before it, with its
				// caption, so that the text keeps to the page order.
				var tables []*paragraph
				rest := body[: k+1 : k+1]
				for j := k + 1; j < len(body); j++ {
					if body[j].kind == Table || body[j].kind == Caption && j+1 < len(body) && body[j+1].kind == Table {
						tables = append(tables, body[j])
					} else {
						rest = append(rest, body[j])
					}
				}
				if len(tables) > 0 {
					body = slices.Concat(body[:at], tables, rest[at:])
					at += len(tables)
				}
				break
			}
		}
		lay.paras = append(lay.paras, body[:at]...)
		lay.paras = append(lay.paras, all[i].notes...)
		lay.paras = append(lay.paras, body[at:]...)
	}
	for _, para := range lay.paras {
		checkCtx(ctx)
		paraText(para, vocab)
	}
	return lay
}

// placeTables puts each table right after the paragraph that holds its
// caption (at the end when none does).
func placeTables(body []*paragraph, tables []*paragraph) []*paragraph {
	for _, t := range tables {
		at := len(body)
		for k, para := range body {
			if slices.Contains(para.lines, t.caption) {
				at = k + 1
				break
			}
		}
		body = slices.Insert(body, at, t)
	}
	return body
}

// tableText writes a table's cells: " · " between the cells of a row, a
// blank line between rows.
func tableText(p *paragraph) {
	var text []byte
	for i, l := range p.lines {
		t := cleanLine(l.text)
		if f := strings.Fields(t); len(f) > 1 && bareNumbers(t) {
			t = strings.Join(f, " · ") // two columns of numbers set close
		}
		switch {
		case i == 0:
		case sameRow(p.lines[i-1].y0, p.lines[i-1].y1, l.y0, l.y1):
			text = append(text, " · "...)
		default:
			text = append(text, "\n\n"...)
		}
		p.lineOffs = append(p.lineOffs, len(text))
		text = append(text, t...)
	}
	p.text = string(text)
}

// withSideways is p and the pages of its sideways text.
func withSideways(p *layoutPage) []*layoutPage {
	if len(p.sideways) == 0 {
		return []*layoutPage{p}
	}
	return append([]*layoutPage{p}, p.sideways...)
}

// markFigures flags fragments drawn inside a figure region that is not
// most of the page.
func markFigures(frags []*fragment, rp *rawPage) {
	page := rp.width * rp.height
	for _, r := range rp.figures {
		if (r.x1-r.x0)*(r.y1-r.y0) > 0.7*page {
			continue
		}
		for _, f := range frags {
			cx, cy := (f.x0+f.x1)/2, (f.y0+f.y1)/2
			if cx >= r.x0 && cx <= r.x1 && cy >= r.y0 && cy <= r.y1 {
				f.inFigure = true
			}
		}
	}
}

// classify sets a paragraph's kind from its first line: a caption, or
// body (headings are found by markHeadings).
func classify(p *paragraph, body float32) {
	if captionRE.MatchString(p.first().text) {
		p.kind = Caption
	}
}

// runsOn reports whether next continues paragraph prev across a column or
// page break: both body text of one size, prev does not end a sentence or
// next starts in lower case, and next's first line is not indented.
func runsOn(prev, next *paragraph) bool {
	if prev.kind != Body || next.kind != Body || prev.sideways || next.sideways {
		return false
	}
	a, b := prev.last(), next.first()
	if a.flow == b.flow && a.page == b.page {
		return false // a break inside a column is a real one
	}
	if abs32(a.size-b.size) > 0.8 {
		return false
	}
	r, _ := utf8.DecodeRuneInString(strings.TrimSpace(b.text))
	if unicode.IsLower(r) && !endsSentence(a.text) {
		return true // even indented: a reference's hanging lines
	}
	if a.bold != b.bold || b.x0 > b.colX0+0.7*b.size {
		return false
	}
	if a.x1 < a.colX1-1.5*a.size && endsSentence(a.text) {
		return false
	}
	return !endsSentence(a.text) || unicode.IsLower(r)
}

// isFloat reports whether para is a figure, a table or a caption set
// apart from the column text that open belongs to: a caption, lines
// across the page while open is in a column, or text smaller than the
// body's size while open is not.
func isFloat(para, open *paragraph, body float32) bool {
	return para.kind == Caption || para.kind == Table || para.sideways || para.first().flow == 0 && open.last().flow != 0 ||
		para.first().size < body-0.8 && open.last().size >= body-0.8
}

// paraText joins a paragraph's lines: footnotes with their mark apart,
// table cells on one row with " | ", other lines by joinLines. It records
// where in the text each line begins (lineOffs) and each later page (a
// paragraph run onto the next page).
func paraText(p *paragraph, vocab vocabulary) {
	p.pageOffs = p.pageOffs[:0]
	p.lineOffs = p.lineOffs[:0]
	// Cells of a table (two rows or more with several cells) are kept
	// apart by " | "; a heading or a spaced-out word by a space.
	rows := 0
	for i := 1; i < len(p.lines); i++ {
		a, b := p.lines[i-1], p.lines[i]
		if sameRow(a.y0, a.y1, b.y0, b.y1) && (i == 1 || !sameRow(p.lines[i-2].y0, p.lines[i-2].y1, a.y0, a.y1)) {
			rows++
		}
	}
	sep := " "
	if rows >= 2 && p.kind != Heading {
		sep = " | "
	}
	if p.kind == Table {
		tableText(p)
		return
	}
	var text []byte
	for i, l := range p.lines {
		t := l.text
		if p.kind == Footnote && i == 0 {
			t = cleanLine(footnoteText(l))
		}
		if i > 0 && sameRow(p.lines[i-1].y0, p.lines[i-1].y1, l.y0, l.y1) && p.lines[i-1].page == l.page {
			text = append(append(text, sep...), t...)
		} else {
			text = joinTo(text, t, vocab)
		}
		at := len(text) - len(t) // where the line's text begins
		p.lineOffs = append(p.lineOffs, at)
		if i > 0 && l.page != p.lines[i-1].page {
			p.pageOffs = append(p.pageOffs, pageOff{l.page, at})
		}
	}
	p.text = string(text)
}
