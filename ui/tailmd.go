package ui

import (
	"bytes"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// tailMD is the rendered Markdown of the open block's first upto bytes. The
// open block is drawn as that render, continued by the rest of the block
// wrapped as plain text from where the render's last line ends, so text
// never jumps: a new render of a longer prefix draws the words already on
// screen where they were (greedy wrapping of a prefix does not move them),
// and only Markdown that closes later (a ** or a ` still open) changes.
//
// Renders are spaced geometrically: a new one waits until the block has
// grown by half of what was rendered (at least renderStep bytes), so a
// block of n bytes costs at most about 3n bytes of glamour however finely
// it streams, which keeps the render-ratio of BenchmarkStreamRender
// bounded; prose with no Markdown in it is not rendered before its block
// closes, since it wraps the same either way.
//
// Invariants: upto ends just before a space or newline of the open block
// (or is 0); raw is glamour's output for src[closed:closed+upto] with
// placeholders in; nodes counts them; lastW is the width of raw's last line.
type tailMD struct {
	upto  int
	width int
	raw   []string
	nodes int
	lastW int

	// drawn caches raw with chips, for selection sel and styles st.
	drawn    []string
	nodeLine []int
	sel      int
	st       *Styles
}

// renderStep is the least growth of the open block between renders.
const renderStep = 32

// due reports whether the open block should be rendered again: it grew
// enough, and what arrived since the last render has Markdown in it (plain
// prose wraps the same without glamour, so it costs no render).
func (m *tailMD) due(open []byte) bool {
	return len(open)-m.upto >= max(m.upto/2, renderStep) && hasMarkup(open[m.upto:])
}

// hasMarkup reports whether b may hold Markdown that draws differently
// from its plain text: inline markers, or a line that starts a heading,
// list, quote or table.
func hasMarkup(b []byte) bool {
	if bytes.ContainsAny(b, "*`_[|#>") {
		return true
	}
	for line := range bytes.SplitSeq(b, []byte("\n")) {
		l := bytes.TrimLeft(line, " ")
		if bytes.HasPrefix(l, []byte("- ")) || bytes.HasPrefix(l, []byte("+ ")) || len(l) > 2 && l[0] >= '0' && l[0] <= '9' && bytes.Contains(l[:min(len(l), 4)], []byte(". ")) {
			return true
		}
	}
	return false
}

// lastSpace is the end of the last whole word of b: the index of its last
// space or newline, or 0 when there is none.
func lastSpace(b []byte) int {
	return max(bytes.LastIndexAny(b, " \n\t"), 0)
}

// cutPoint is where to end the prefix to render: at the end of a whole
// word, where no ** or ` is left open (an open one would render as text
// and change look when it closes), trying the last few words.
func cutPoint(b []byte) int {
	cut := lastSpace(b)
	for range 16 {
		p := b[:cut]
		if bytes.Count(p, []byte("**"))%2 == 0 && bytes.Count(p, []byte("`"))%2 == 0 {
			return cut
		}
		cut = lastSpace(p)
	}
	return 0
}

// drawTail draws the open block: its rendered Markdown prefix, then the
// rest as wrapped plain text with chips, each line after indent and padded
// with spaces to width (plus the indent). Complete plain lines are drawn
// once; a frame between renders draws the last line or two, so its cost
// follows the bytes that arrived since the last frame.
func (d *answerDoc) drawTail(width int, indent string, st *Styles, sel int, r *mdRenderer) (lines []string, nodeLine []int) {
	width = max(width, 10)
	open := d.src[d.closed:]
	if d.tw.width != width || d.md.width != width && d.md.upto > 0 {
		d.md = tailMD{}
		d.tw.reset(width)
	}
	if r != nil && r.width == width && d.md.due(open) {
		if cut := cutPoint(open); cut > d.md.upto {
			d.md = tailMD{upto: cut, width: width, raw: r.render(string(open[:cut]))}
			d.md.nodes = countPlaceholders(string(open[:cut]))
			if n := len(d.md.raw); n > 0 {
				d.md.lastW = ansi.StringWidth(d.md.raw[n-1])
			}
			d.tw.reset(width)
			d.tw.startAt(d.md.lastW)
		}
	}
	first, _ := d.tailNodes()
	md := &d.md
	if md.st != st || md.sel != sel || md.drawn == nil && len(md.raw) > 0 {
		md.drawn, md.nodeLine = drawChips(md.raw, d.nodes, first, sel, st)
		md.st, md.sel = st, sel
		// pad every line but the last (which the plain text continues)
		for i := 0; i < len(md.drawn)-1; i++ {
			md.drawn[i] += strings.Repeat(" ", max(width-ansi.StringWidth(md.raw[i]), 0))
		}
	}
	d.tw.feed(open[md.upto+d.tw.consumed:])
	raw, widths := d.tw.view()
	tw := &d.tw
	if tw.drawnSel != sel || tw.drawnSt != st || tw.drawnIndent != indent {
		tw.drawn, tw.drawnNodes, tw.drawnSel, tw.drawnSt, tw.drawnIndent = tw.drawn[:0], tw.drawnNodes[:0], sel, st, indent
	}
	// the rendered lines, the last of which the plain text continues
	for i, l := range md.drawn {
		switch {
		case i < len(md.drawn)-1:
			lines = append(lines, indent+l)
		case len(raw) == 0:
			lines = append(lines, indent+l+strings.Repeat(" ", max(width-md.lastW, 0)))
		}
	}
	nodeLine = append(nodeLine, md.nodeLine...)
	base := max(len(md.drawn)-1, 0)
	idx := first + md.nodes
	for li, l := range raw {
		var drawn string
		if li < len(tw.drawn) && li < len(tw.lines) {
			drawn = tw.drawn[li]
			for range tw.drawnNodes[li] {
				nodeLine = append(nodeLine, base+li)
			}
			idx += tw.drawnNodes[li]
		} else {
			n := 0
			drawn = swapChips(l, func(k nodeKind, num int) string {
				c := st.chip(k, num, idx == sel)
				idx++
				n++
				nodeLine = append(nodeLine, base+li)
				return c
			}) + strings.Repeat(" ", max(width-widths[li], 0))
			if li < len(tw.lines) && li == len(tw.drawn) {
				tw.drawn, tw.drawnNodes = append(tw.drawn, drawn), append(tw.drawnNodes, n)
			}
		}
		if li == 0 && len(md.drawn) > 0 {
			lines = append(lines, indent+md.drawn[len(md.drawn)-1]+drawn)
			continue
		}
		lines = append(lines, indent+drawn)
	}
	// a tail that is only blank so far draws nothing
	if len(md.drawn) == 0 && len(lines) == 1 && widths[0] == 0 {
		return nil, nil
	}
	return lines, nodeLine
}
