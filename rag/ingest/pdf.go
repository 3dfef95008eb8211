package ingest

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ibid-dev/ibid/rag/ingest/pdf"
)

// loadPDF reads a PDF with the PDF engine (package pdf) and writes its
// blocks as a document's text: blocks in reading order joined by a blank
// line, sections from the headings, footnotes as sections of their own.
// Page i+1 starts at pageStarts[i].
func (l *Loader) loadPDF(ctx context.Context, path string, data []byte) (*parsed, error) {
	doc, err := l.pdf.Read(ctx, data)
	if err != nil {
		var pe *pdf.Error
		if errors.As(err, &pe) {
			return nil, skip(path, "%s", pe.Reason)
		}
		return nil, err
	}
	p := assemblePDF(doc)
	if strings.TrimSpace(p.text) == "" {
		return nil, skip(path, "%s", pdf.ReasonNoText)
	}
	p.title, p.author, p.heads = doc.Title, doc.Author, doc.RunningHeads
	for i, pg := range doc.Pages {
		if pg.OCR {
			p.ocrPages = append(p.ocrPages, strconv.Itoa(i+1))
		}
	}
	return p, nil
}

// abstractHeadings name an abstract; before any other heading on page 1,
// it joins the title and authors in the first section.
var abstractHeadings = map[string]bool{"abstract": true, "摘要": true, "摘 要": true, "要旨": true}

// assemblePDF writes a document's blocks as text, one blank line apart,
// and finds the sections: each heading starts one (its path from the
// heading levels); the title, authors and abstract share the first
// section (path "Abstract" when there is one); each footnote and each
// turned block (sideways text) is a section of its own under the current
// path, so it is a segment of its own. It
// records where each page starts and where each line is drawn.
func assemblePDF(doc *pdf.Document) *parsed {
	var b strings.Builder
	p := &parsed{pageStarts: make([]int, len(doc.Pages))}
	for _, pg := range doc.Pages {
		p.pageLabels = append(p.pageLabels, pg.Label)
	}
	set := make([]bool, len(doc.Pages))
	startPage := func(pg, off int) {
		for k := 0; k <= pg && k < len(set); k++ {
			if !set[k] {
				p.pageStarts[k], set[k] = off, true
			}
		}
	}
	var stack, path []string
	secStart := 0
	newSection := func(at int, next []string) {
		if at > secStart {
			p.sections = append(p.sections, section{path: path, start: secStart, end: at})
		}
		secStart, path = at, next
	}
	headings := 0
	abstractAt := -1 // where the abstract's text begins, after its heading
	cited := tableSections(doc)
	var resume []string // the path to go back to after a table
	inTable, afterTable := false, false
	for i, blk := range doc.Blocks {
		if strings.TrimSpace(blk.Text) == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		off := b.Len()
		startPage(blk.Lines[0].Page(), off)
		// A table and its caption are a section of their own, under the
		// section whose text cites the table (else the one around it).
		n := tableNumber(doc.Blocks, i)
		wasTable := afterTable
		afterTable = false
		if wasTable && n == "" {
			newSection(off, resume) // the blank line before is the table's
		}
		if n != "" && !inTable {
			if !wasTable {
				resume = path
			}
			inTable = true
			at := path
			if p, ok := cited[n]; ok {
				at = p
			}
			newSection(off, at)
		}
		switch blk.Kind {
		case pdf.Heading:
			t := blk.Text
			if headings == 0 && abstractHeadings[strings.ToLower(t)] && blk.Lines[0].Page() == 0 {
				path = []string{t} // the front matter and the abstract are one section
				abstractAt = off + len(t)
			} else {
				stack = pushHeading(stack, blk.Level, t)
				newSection(off, slices.Clone(stack))
			}
			headings++
		case pdf.Footnote:
			newSection(off, path)
		default:
			if blk.Turned && !inTable {
				newSection(off, path)
			}
		}
		b.WriteString(blk.Text)
		p.lines = blockLines(p.lines, blk, off)
		for k := 1; k < len(blk.Lines); k++ {
			if pg := blk.Lines[k].Page(); pg != blk.Lines[k-1].Page() {
				startPage(pg, off+blk.Lines[k].Start)
			}
		}
		if blk.Kind == pdf.Footnote || blk.Turned {
			newSection(b.Len(), path)
		}
		if blk.Kind == pdf.Table && inTable {
			inTable, afterTable = false, true // back to resume at the next block
		}
	}
	startPage(len(doc.Pages)-1, b.Len())
	p.text = b.String()
	newSection(len(p.text), nil)
	if abstractAt >= 0 {
		for _, sec := range p.sections {
			if sec.start <= abstractAt && abstractAt < sec.end {
				p.abstract = strings.TrimSpace(p.text[abstractAt:sec.end])
				break
			}
		}
	}
	return p
}

// pushHeading is the path of headings stack after a heading t of level
// (1 the top one): the headings above that level kept, t last. A level
// deeper than the stack (a 3 right under a 1) is the one just below it;
// one below 1 is 1. The stack's array is reused.
func pushHeading(stack []string, level int, t string) []string {
	d := min(max(level, 1), len(stack)+1)
	return append(stack[:d-1], t)
}

// blockLines appends the lines of blk, whose text was written at byte off
// of the document's text, to lines (see lineBox); lines with no text are
// left out.
func blockLines(lines []lineBox, blk pdf.Block, off int) []lineBox {
	for k, l := range blk.Lines {
		start, end := l.Start, len(blk.Text)
		if k+1 < len(blk.Lines) {
			end = blk.Lines[k+1].Start
		}
		if start >= end {
			continue
		}
		lines = append(lines, lineBox{start: off + start, end: off + end, box: l.Box, flow: l.Flow, size: l.Size})
	}
	return lines
}

// tableCaptionRE reads a table's number from its caption.
var tableCaptionRE = regexp.MustCompile(`^(?:Table|TABLE|Tab\.|表)\s*([0-9A-Z]+)`)

// tableNumber is the number of the table that block i opens: a table
// block, or the caption just before one; "" for any other block.
func tableNumber(blocks []pdf.Block, i int) string {
	switch {
	case blocks[i].Kind == pdf.Caption && i+1 < len(blocks) && blocks[i+1].Kind == pdf.Table:
	case blocks[i].Kind == pdf.Table && (i == 0 || blocks[i-1].Kind != pdf.Caption):
		return "?" // a table without its caption before it
	default:
		return ""
	}
	if m := tableCaptionRE.FindStringSubmatch(blocks[i].Text); m != nil {
		return m[1]
	}
	return "?"
}

// tableMentionRE finds "Table 4", "Tables 4, 5, and 6", "Table 18, 19 and
// 20" in running text.
var tableMentionRE = regexp.MustCompile(`\bTables?\s+([0-9A-Z]+(?:(?:\s*,\s*|\s*,?\s*and\s+|\s*[–-]\s*)[0-9A-Z]+)*)`)

// tableNumberRE is one table number of a tableMentionRE match's list.
var tableNumberRE = regexp.MustCompile(`[0-9A-Z]+`)

// tableMentions is the table numbers text mentions, in order. Text
// without "Table" (every mention has it) is not handed to the regexp: it
// is asked of every paragraph of every PDF.
func tableMentions(text string) []string {
	if !strings.Contains(text, "Table") {
		return nil
	}
	var out []string
	for _, m := range tableMentionRE.FindAllStringSubmatch(text, -1) {
		out = append(out, tableNumberRE.FindAllString(m[1], -1)...)
	}
	return out
}

// tableSections maps each table number cited in the body text to the
// heading path of the first body block that cites it.
func tableSections(doc *pdf.Document) map[string][]string {
	out := map[string][]string{}
	var stack []string
	for _, blk := range doc.Blocks {
		switch blk.Kind {
		case pdf.Heading:
			stack = pushHeading(stack, blk.Level, blk.Text)
		case pdf.Body:
			for _, n := range tableMentions(blk.Text) {
				if _, ok := out[n]; !ok && len(stack) > 0 {
					out[n] = slices.Clone(stack)
				}
			}
		}
	}
	return out
}
