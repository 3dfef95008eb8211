package ui

import (
	"cmp"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/ui/render"
)

// tooltipWidth is the widest the tooltip grows.
const tooltipWidth = 56

// chipCell finds where node i (reading order) is drawn: its line in the
// transcript and the cell its chip starts at.
func (t *transcript) chipCell(i int) (line, x int, ok bool) {
	line = t.lineOf(i)
	if line < 0 {
		return 0, 0, false
	}
	for _, c := range t.chipSpans(line) {
		if c.node == i {
			return line, c.start, true
		}
	}
	return 0, 0, false
}

// tooltip draws the selected node's source as a small box: the work
// (author–year when the document has a bibliography entry, else its
// title) and page, the verdict when the passage does not support the
// sentence (or supports only some of it), then the supporting sentence
// (else the start of the passage), at most width cells wide.
func (m *Model) tooltip(width int) []string {
	tu, nd, ok := m.tr.selected()
	if !ok || nd.kind == render.Unknown {
		return nil
	}
	src, ok := tu.source(nd.num, nd.kind == render.Inferred)
	if !ok {
		return nil
	}
	st := m.c.Styles
	inner := width - 2
	head := render.ChipText(nd.kind, nd.num) + " " + cmp.Or(src.AuthorYear(), src.Title, src.Path, src.URL, src.SegmentID)
	if pg := rag.Pages(src.PageStart, src.PageEnd); pg != "" {
		head += " · " + pg
	}
	var lines []string
	pad := func(s string, style styleRenderer) string {
		return style.Render(" " + s + strings.Repeat(" ", max(inner-ansi.StringWidth(s), 0)) + " ")
	}
	lines = append(lines, pad(render.Shorten(head, inner), st.Tooltip))
	sup := tu.doc.verdicts[nd.num]
	if nd.kind == render.Inferred {
		sup = nil
	}
	if note := rag.VerdictNote(sup); note != "" {
		mark := "~ "
		if sup.Verdict == rag.Unsupported {
			mark = "✗ "
		}
		for _, l := range strings.Split(ansi.Wrap(mark+note, inner, " "), "\n") {
			lines = append(lines, pad(l, st.TooltipWarn))
		}
	}
	snip := snippetText(rag.Quote(src, sup), innermost(src.Section), src.Title)
	if snip == "" {
		return lines
	}
	wrapped := strings.Split(ansi.Wrap(snip, inner, " "), "\n")
	if len(wrapped) > 3 {
		wrapped = wrapped[:3]
		wrapped[2] = render.Shorten(wrapped[2]+" …", inner)
	}
	for _, l := range wrapped {
		lines = append(lines, pad(l, st.TooltipDim))
	}
	return lines
}

// withTooltip lays the tooltip over the transcript's frame next to the
// selected chip: below it, or above when there is no room below. It shows
// only while the transcript has focus and the chip is on screen.
func (m *Model) withTooltip(frame string) string {
	t := m.tr
	if m.focus != focusTranscript || t.sel < 0 || t.width < 24 {
		return frame
	}
	line, x, ok := t.chipCell(t.sel)
	if !ok || !t.onScreen(line) {
		return frame
	}
	w := min(tooltipWidth, t.width-2)
	box := m.tooltip(w)
	if len(box) == 0 {
		return frame
	}
	rows := strings.Split(frame, "\n")
	y := line - t.offset + 1
	if y+len(box) > len(rows) {
		y = line - t.offset - len(box)
	}
	if y < 0 {
		return frame
	}
	x = min(x, t.width-w)
	for i, b := range box {
		r := rows[y+i]
		rows[y+i] = fitWidth(ansi.Truncate(r, x, "")+"\x1b[0m"+b+ansi.TruncateLeft(r, x+w, ""), t.width)
	}
	return strings.Join(rows, "\n")
}
