package ui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ibid-dev/ibid/ui/render"
)

// wheelLines is how far one wheel notch scrolls.
const wheelLines = 3

// The root sends mouse messages to the pane under the pointer, moved into
// the pane's own coordinates (0,0 is its top-left cell); see Model.mouse.

// at moves a mouse event by (-x, -y).
func at(m tea.Mouse, x, y int) tea.Mouse {
	m.X -= x
	m.Y -= y
	return m
}

// click selects the reference node under the pointer; a click on the node
// already selected opens its source.
func (t *transcript) click(m tea.Mouse) tea.Cmd {
	if m.Button != tea.MouseLeft {
		return nil
	}
	i, ok := t.nodeAt(m.X, t.offset+m.Y)
	if !ok {
		return nil
	}
	if i == t.sel {
		return t.openSelected()
	}
	t.selectNode(i)
	return nil
}

func (t *transcript) wheel(m tea.Mouse) {
	switch m.Button {
	case tea.MouseWheelUp:
		t.scroll(-wheelLines, t.lineCount())
	case tea.MouseWheelDown:
		t.scroll(wheelLines, t.lineCount())
	}
}

// chipSpan is where a node's chip is drawn on a line: cells [start, end).
type chipSpan struct{ node, start, end int }

// chipSpans finds the chips drawn on line, in order: the line's nodes are
// found by their chip text ([n] or [?]) in the drawn line.
func (t *transcript) chipSpans(line int) []chipSpan {
	tail, tp := t.tailLines()
	var drawn string
	switch {
	case line < 0:
		return nil
	case line < len(t.stable):
		drawn = t.stable[line]
	case line-len(t.stable) < len(tail):
		drawn = tail[line-len(t.stable)]
	default:
		return nil
	}
	all := t.nodes
	if len(tp) > 0 {
		all = append(append([]placed(nil), t.nodes...), tp...)
	}
	plain := ansi.Strip(drawn)
	from := 0 // byte offset in plain after the previous chip
	var out []chipSpan
	for _, p := range all {
		if p.line != line {
			continue
		}
		nd := t.turns[p.ref.turn].doc.nodes[p.ref.node]
		chip := render.ChipText(nd.kind, nd.num)
		j := strings.Index(plain[from:], chip)
		if j < 0 {
			continue
		}
		start := ansi.StringWidth(plain[:from+j])
		from += j + len(chip)
		out = append(out, chipSpan{t.firstNode(p.ref.turn) + p.ref.node, start, start + len(chip)})
	}
	return out
}

// nodeAt finds the node whose chip covers cell x of line.
func (t *transcript) nodeAt(x, line int) (int, bool) {
	for _, c := range t.chipSpans(line) {
		if x >= c.start && x < c.end {
			return c.node, true
		}
	}
	return 0, false
}

// click moves the cursor to the entry under the pointer; a click on the
// entry already under the cursor opens it.
func (p *sourcesPane) click(m tea.Mouse) tea.Cmd {
	if m.Button != tea.MouseLeft || m.Y < 0 || m.Y >= len(p.entryAt) {
		return nil
	}
	i := p.entryAt[m.Y]
	if i < 0 {
		return nil
	}
	if i == p.cursor && p.clicked {
		return p.open()
	}
	p.cursor, p.clicked = i, true
	return nil
}

func (p *sourcesPane) wheel(m tea.Mouse) {
	switch m.Button {
	case tea.MouseWheelUp:
		p.offset = max(p.offset-wheelLines, 0)
	case tea.MouseWheelDown:
		p.offset += wheelLines
	}
	p.scrolled = true
}
