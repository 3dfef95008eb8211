package render

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

	// drawn caches raw with chips, for selection sel and chips.
	drawn    []string
	nodeLine []int
	sel      int
	chips    Chips
}

// Tail draws the open block of a streaming answer (the Markdown after its
// last finished block) cheaply, frame after frame: a Markdown prefix
// rendered now and then (tailMD), continued by the rest wrapped
// incrementally as plain text (tailWrap). The block only ever grows until
// Reset, which the owner calls when the block closes.
type Tail struct {
	md tailMD
	tw tailWrap
}

// Reset forgets the block: the next Draw starts a new one.
func (t *Tail) Reset() {
	t.tw.reset(t.tw.width)
	t.md = tailMD{}
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

// Draw draws the open block, open (the answer's Markdown source after its
// last finished block, which only grew since the last call): its rendered
// Markdown prefix, then the rest as wrapped plain text with chips, each
// line after indent and padded with spaces to width (plus the indent).
// first is the index of the block's first node among the answer's, sel the
// selected node's (-1: none); r renders the prefix (nil: the block is
// drawn as plain text). Complete plain lines are drawn once; a frame
// between renders draws the last line or two, so its cost follows the
// bytes that arrived since the last frame. nodeLine is each node's line.
func (t *Tail) Draw(open []byte, first, width int, indent string, chips Chips, sel int, r *Renderer) (lines []string, nodeLine []int) {
	width = max(width, 10)
	if t.tw.width != width || t.md.width != width && t.md.upto > 0 {
		t.md = tailMD{}
		t.tw.reset(width)
	}
	if r != nil && r.width == width && t.md.due(open) {
		if cut := cutPoint(open); cut > t.md.upto {
			t.md = tailMD{upto: cut, width: width, raw: r.Render(string(open[:cut]))}
			t.md.nodes = CountPlaceholders(string(open[:cut]))
			if n := len(t.md.raw); n > 0 {
				t.md.lastW = ansi.StringWidth(t.md.raw[n-1])
			}
			t.tw.reset(width)
			t.tw.startAt(t.md.lastW)
		}
	}
	md := &t.md
	if md.chips != chips || md.sel != sel || md.drawn == nil && len(md.raw) > 0 {
		md.drawn, md.nodeLine = DrawChips(md.raw, first, sel, chips)
		md.chips, md.sel = chips, sel
		// pad every line but the last (which the plain text continues)
		for i := 0; i < len(md.drawn)-1; i++ {
			md.drawn[i] += strings.Repeat(" ", max(width-ansi.StringWidth(md.raw[i]), 0))
		}
	}
	t.tw.feed(open[md.upto+t.tw.consumed:])
	raw, widths := t.tw.view()
	tw := &t.tw
	if tw.drawnSel != sel || tw.drawnChips != chips || tw.drawnIndent != indent {
		tw.drawn, tw.drawnNodes, tw.drawnSel, tw.drawnChips, tw.drawnIndent = tw.drawn[:0], tw.drawnNodes[:0], sel, chips, indent
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
			drawn = SwapChips(l, func(k NodeKind, num int) string {
				c := chips.Chip(k, num, idx == sel)
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
