package ui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ibid-dev/ibid/ui/render"
)

// nodeRef names a node: turn index and node index within the turn.
type nodeRef struct{ turn, node int }

// transcript is the conversation pane: questions and answers, rendered as
// Markdown with reference chips, scrollable, with one selected node.
//
// Invariants: stable holds the drawn lines of every finished block of every
// turn (built with r, for width); the streaming turn, always the last, adds
// its open tail below stable in View. nodes lists every node drawn in
// stable in order, with its line. sel is -1 or an index into the turns'
// nodes in reading order. Turns before redrawFrom are drawn in stable as
// they are now; sync redraws the others, so that a new turn, an answer that
// ends or a new selection costs the turns it changes, not the whole
// conversation (a frame's cost must not grow with the conversation:
// BenchmarkLongConversation).
type transcript struct {
	c             *common
	turns         []*turn
	width, height int
	focused       bool

	r        *render.Renderer
	rDark    bool // r is coloured for a dark background
	stable   []string
	nodes    []placed // nodes in stable, in reading order
	turnLine []int    // first line (the question) of each turn in stable
	built    int      // blocks of the last turn already in stable
	// redrawFrom is the first turn stable does not show as it is now
	// (noRedraw: none).
	redrawFrom int
	offset     int  // first visible line
	follow     bool // keep the bottom in view as the answer grows
	sel        int  // selected node in reading order over all turns; -1 none
	selTurn    int  // turn whose sources the side pane shows; -1 latest

	blankLine string // width spaces
}

// placed is a node drawn at a line.
type placed struct {
	ref  nodeRef
	line int
}

func newTranscript(c *common) *transcript {
	return &transcript{c: c, sel: -1, selTurn: -1, follow: true}
}

// noRedraw is redrawFrom when stable is up to date.
const noRedraw = int(^uint(0) >> 1)

// redraw marks turn ti and those after it for drawing again (ti <= 0:
// all of them).
func (t *transcript) redraw(ti int) { t.redrawFrom = min(t.redrawFrom, max(ti, 0)) }

// selTurnOf is the turn of the selected node, or noRedraw when none is.
func (t *transcript) selTurnOf() int {
	if r, ok := t.refOf(t.sel); ok {
		return r.turn
	}
	return noRedraw
}

// SetSize sets the pane's size; a new width drops the render caches.
func (t *transcript) SetSize(w, h int) {
	if w != t.width {
		t.redraw(0)
	}
	t.width, t.height = w, h
}

func (t *transcript) Focus() tea.Cmd { t.focused = true; return nil }
func (t *transcript) Blur()          { t.focused = false }

// restyle drops the caches after the background changed.
func (t *transcript) restyle() { t.r = nil; t.redraw(0) }

func (t *transcript) renderer() *render.Renderer {
	if t.r == nil || t.r.Width() != t.textWidth() || t.rDark != t.c.Styles.Dark {
		t.r, t.rDark = render.NewRenderer(t.textWidth(), t.c.Styles.Theme.palette()), t.c.Styles.Dark
		for _, tu := range t.turns {
			for i := range tu.doc.blocks {
				tu.doc.blocks[i].width = 0
			}
		}
	}
	return t.r
}

// textWidth is the width answers are wrapped to (a two-cell left margin).
func (t *transcript) textWidth() int { return max(t.width-2, 10) }

// totalNodes counts nodes in all turns.
func (t *transcript) totalNodes() int {
	n := 0
	for _, tu := range t.turns {
		n += len(tu.doc.nodes)
	}
	return n
}

// refOf turns a reading-order index into a nodeRef.
func (t *transcript) refOf(i int) (nodeRef, bool) {
	if i < 0 {
		return nodeRef{}, false
	}
	for ti, tu := range t.turns {
		if i < len(tu.doc.nodes) {
			return nodeRef{ti, i}, true
		}
		i -= len(tu.doc.nodes)
	}
	return nodeRef{}, false
}

// selInTurn is the selected node's index within turn ti, or -1.
func (t *transcript) selInTurn(ti int) int {
	r, ok := t.refOf(t.sel)
	if !ok || r.turn != ti {
		return -1
	}
	return r.node
}

// sync brings stable up to date: the turns from redrawFrom are drawn again
// (all of them after a resize or a restyle), then the newly finished
// blocks of the last turn are appended.
func (t *transcript) sync() {
	if t.r == nil || t.r.Width() != t.textWidth() || t.rDark != t.c.Styles.Dark {
		t.redraw(0)
	}
	if t.redrawFrom < len(t.turns) || t.redrawFrom == 0 {
		t.rebuild(t.redrawFrom)
		return
	}
	if len(t.turns) == 0 {
		return
	}
	ti := len(t.turns) - 1
	last := t.turns[ti]
	for t.built < len(last.doc.blocks) {
		t.appendBlock(ti, t.built)
		t.built++
	}
}

func (t *transcript) appendBlock(ti, bi int) {
	tu := t.turns[ti]
	b := tu.doc.drawBlock(bi, t.renderer(), t.c.Styles, t.selInTurn(ti))
	if bi > 0 {
		t.stable = append(t.stable, t.blank())
	}
	base := len(t.stable)
	if b.fitted == nil || b.fitWidth != t.width {
		if b.lines == nil { // dropped: fitted was for another width
			b.fitted = nil
			b = tu.doc.drawBlock(bi, t.renderer(), t.c.Styles, t.selInTurn(ti))
		}
		b.fitted, b.fitWidth = make([]string, len(b.lines)), t.width
		for i, l := range b.lines {
			b.fitted[i] = t.fit("  " + l)
		}
	}
	b.lines = nil // fitted holds them as shown
	t.stable = append(t.stable, b.fitted...)
	for i, ln := range b.nodeLine {
		t.nodes = append(t.nodes, placed{nodeRef{ti, b.firstNode + i}, base + ln})
	}
}

// rebuild draws turns from on again (after a resize, a new selection, a
// new turn, an answer's end or a restyle), keeping the lines and nodes of
// the turns before it. Blocks are drawn from their caches (see drawBlock
// and block.fitted), so a turn costs copying its lines.
func (t *transcript) rebuild(from int) {
	t.renderer()
	// turns are drawn in order: from is at most the first never drawn
	from = min(from, len(t.turns), len(t.turnLine))
	keep := len(t.stable) // every turn drawn is kept
	switch {
	case from == 0:
		keep = 0
	case from < len(t.turnLine):
		keep = t.turnLine[from] - 1 // up to the blank line before turn from
	}
	n := len(t.nodes)
	for n > 0 && t.nodes[n-1].ref.turn >= from {
		n--
	}
	t.stable, t.nodes, t.turnLine = t.stable[:keep], t.nodes[:n], t.turnLine[:from]
	for ti := from; ti < len(t.turns); ti++ {
		tu := t.turns[ti]
		if ti > 0 {
			t.stable = append(t.stable, t.blank())
		}
		t.turnLine = append(t.turnLine, len(t.stable))
		t.stable = append(t.stable, t.questionLines(tu)...)
		t.stable = append(t.stable, t.blank())
		for bi := range tu.doc.blocks {
			t.appendBlock(ti, bi)
		}
		if ti == len(t.turns)-1 {
			t.built = len(tu.doc.blocks)
		}
		if !tu.streaming {
			for _, l := range t.notes(tu) {
				for _, ll := range strings.Split(l, "\n") {
					t.stable = append(t.stable, t.fit(ll))
				}
			}
		}
	}
	t.redrawFrom = noRedraw
}

// questionLines draws turn tu's question, wrapped and fitted, from its
// cache when the width is the same.
func (t *transcript) questionLines(tu *turn) []string {
	if tu.qLines != nil && tu.qWidth == t.width && tu.qStyles == t.c.Styles {
		return tu.qLines
	}
	tu.qLines, tu.qWidth, tu.qStyles = tu.qLines[:0], t.width, t.c.Styles
	q := ansi.Wrap(tu.question, max(t.width-2, 10), " ")
	for i, l := range strings.Split(q, "\n") {
		p := "› "
		if i > 0 {
			p = "  "
		}
		tu.qLines = append(tu.qLines, t.fit(t.c.Styles.Question.Render(p+l)))
	}
	return tu.qLines
}

// notes are the lines under a finished answer: interrupted, errors, notes.
// An answer is called partial only when some of it is above: a turn
// interrupted before any text (a model that never answered, a cancel
// during a retry wait) says so instead.
func (t *transcript) notes(tu *turn) []string {
	st := t.c.Styles
	var out []string
	switch {
	case tu.interrupted && (tu.doc.text.Len() > 0 || len(tu.doc.nodes) > 0):
		out = append(out, "", "  "+st.Note.Render("⏹ interrupted: the answer above is partial"))
	case tu.interrupted && tu.err == "cancelled":
		out = append(out, "", "  "+st.Note.Render("⏹ cancelled before any answer arrived"))
	}
	if tu.err != "" && !(tu.interrupted && tu.err == "cancelled") {
		out = append(out, indentLines(st.Error, ansi.Wrap("error: "+tu.err, t.width-2, " "))...)
	}
	if tu.note != "" {
		out = append(out, indentLines(st.Dim, ansi.Wrap(tu.note, t.width-2, " "))...)
	}
	return out
}

// indentLines styles each line of text and indents it by two cells.
func indentLines(s styleRenderer, text string) []string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = "  " + s.Render(l)
	}
	return lines
}

// fit pads or cuts a line to the pane's width: stable lines are fitted
// once, when drawn, so a frame never measures them again.
func (t *transcript) fit(l string) string { return fitWidth(l, t.width) }

// fitWidth pads or cuts l to exactly w cells (a wide character that a
// cut would halve is dropped and its cell padded).
func fitWidth(l string, w int) string {
	lw := ansi.StringWidth(l)
	if lw > w {
		l = ansi.Truncate(l, w, "")
		lw = ansi.StringWidth(l)
	}
	if lw < w {
		return l + strings.Repeat(" ", w-lw)
	}
	return l
}

func (t *transcript) blank() string {
	if len(t.blankLine) != max(t.width, 0) {
		t.blankLine = strings.Repeat(" ", max(t.width, 0))
	}
	return t.blankLine
}

// tailLines draws the streaming turn's open block (fitted), with a blank
// line before it when blocks precede it, and the placed nodes it holds.
func (t *transcript) tailLines() ([]string, []placed) {
	t.sync()
	if len(t.turns) == 0 {
		return nil, nil
	}
	ti := len(t.turns) - 1
	last := t.turns[ti]
	if !last.streaming {
		return nil, nil
	}
	tl, nl := last.doc.drawTail(t.textWidth(), "  ", t.c.Styles, t.selInTurn(ti), t.renderer())
	if len(tl) == 0 {
		return nil, nil
	}
	out := tl
	if len(last.doc.blocks) > 0 {
		out = append([]string{t.blank()}, tl...)
	}
	base := len(t.stable) + len(out) - len(tl)
	first, _ := last.doc.tailNodes()
	var tp []placed
	for i, ln := range nl {
		tp = append(tp, placed{nodeRef{ti, first + i}, base + ln})
	}
	return out, tp
}

// lineCount is the number of lines of the whole transcript.
func (t *transcript) lineCount() int {
	tail, _ := t.tailLines()
	return len(t.stable) + len(tail)
}

// View draws the visible window: stable lines and the tail, never copying
// more than the window. Every line is exactly width cells wide (stable
// lines were fitted when drawn; render.Tail pads the tail's to the width,
// and render.Renderer breaks what would overflow it), so the screen joins
// the pane to the sources without measuring it again.
func (t *transcript) View() string {
	tail, _ := t.tailLines()
	total := len(t.stable) + len(tail)
	h := max(t.height, 1)
	maxOff := max(total-h, 0)
	if t.follow {
		t.offset = maxOff
	}
	t.offset = min(max(t.offset, 0), maxOff)
	line := func(i int) string {
		switch j := t.offset + i; {
		case j < len(t.stable):
			return t.stable[j]
		case j-len(t.stable) < len(tail):
			return tail[j-len(t.stable)]
		}
		return t.blank()
	}
	// one allocation of the frame's size, written once
	n := h - 1
	for i := range h {
		n += len(line(i))
	}
	var b strings.Builder
	b.Grow(n)
	for i := range h {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(line(i))
	}
	return b.String()
}

// selected returns the selected node's turn and node.
func (t *transcript) selected() (*turn, node, bool) {
	r, ok := t.refOf(t.sel)
	if !ok {
		return nil, node{}, false
	}
	tu := t.turns[r.turn]
	return tu, tu.doc.nodes[r.node], true
}
