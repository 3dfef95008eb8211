package ui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
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
// nodes in reading order.
type transcript struct {
	c             *Common
	turns         []*turn
	width, height int
	focused       bool

	r        *mdRenderer
	stable   []string
	nodes    []placed // nodes in stable, in reading order
	turnLine []int    // first line (the question) of each turn in stable
	built    int      // blocks of the last turn already in stable
	dirty    bool     // stable must be rebuilt
	offset   int      // first visible line
	follow   bool     // keep the bottom in view as the answer grows
	sel      int      // selected node in reading order over all turns; -1 none
	selTurn  int      // turn whose sources the side pane shows; -1 latest

	blankLine string // width spaces
	frame     []byte // the last frame's buffer, reused
}

// placed is a node drawn at a line.
type placed struct {
	ref  nodeRef
	line int
}

func newTranscript(c *Common) *transcript {
	return &transcript{c: c, sel: -1, selTurn: -1, follow: true, dirty: true}
}

// SetSize sets the pane's size; a new width drops the render caches.
func (t *transcript) SetSize(w, h int) {
	if w != t.width {
		t.dirty = true
	}
	t.width, t.height = w, h
}

func (t *transcript) Focus() tea.Cmd { t.focused = true; return nil }
func (t *transcript) Blur()          { t.focused = false }

// restyle drops the caches after the background changed.
func (t *transcript) restyle() { t.r = nil; t.dirty = true }

func (t *transcript) renderer() *mdRenderer {
	if t.r == nil || t.r.width != t.textWidth() || t.r.dark != t.c.Styles.Dark {
		t.r = newMDRenderer(t.textWidth(), t.c.Styles.Dark)
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

// sync brings stable up to date: a full rebuild when dirty, else the newly
// finished blocks of the last turn are appended.
func (t *transcript) sync() {
	if t.dirty || t.r == nil || t.r.width != t.textWidth() {
		t.rebuild()
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
	for _, l := range b.lines {
		t.stable = append(t.stable, t.fit("  "+l))
	}
	for i, ln := range b.nodeLine {
		t.nodes = append(t.nodes, placed{nodeRef{ti, b.firstNode + i}, base + ln})
	}
}

// rebuild draws every turn again (after a resize, a new selection, a new
// turn or a restyle).
func (t *transcript) rebuild() {
	t.renderer()
	t.stable, t.nodes, t.turnLine = t.stable[:0], t.nodes[:0], t.turnLine[:0]
	st := t.c.Styles
	for ti, tu := range t.turns {
		if ti > 0 {
			t.stable = append(t.stable, t.blank())
		}
		t.turnLine = append(t.turnLine, len(t.stable))
		q := ansi.Wrap(tu.question, max(t.width-2, 10), " ")
		for i, l := range strings.Split(q, "\n") {
			p := "› "
			if i > 0 {
				p = "  "
			}
			t.stable = append(t.stable, t.fit(st.Question.Render(p+l)))
		}
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
	t.dirty = false
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
func (t *transcript) fit(l string) string {
	w := ansi.StringWidth(l)
	switch {
	case w > t.width:
		return ansi.Truncate(l, t.width, "")
	case w < t.width:
		return l + strings.Repeat(" ", t.width-w)
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
// more than the window.
func (t *transcript) View() string {
	tail, _ := t.tailLines()
	total := len(t.stable) + len(tail)
	h := max(t.height, 1)
	maxOff := max(total-h, 0)
	if t.follow {
		t.offset = maxOff
	}
	t.offset = min(max(t.offset, 0), maxOff)
	b := t.frame[:0]
	for i := 0; i < h; i++ {
		if i > 0 {
			b = append(b, '\n')
		}
		switch j := t.offset + i; {
		case j < len(t.stable):
			b = append(b, t.stable[j]...)
		case j-len(t.stable) < len(tail):
			b = append(b, tail[j-len(t.stable)]...)
		default:
			b = append(b, t.blank()...)
		}
	}
	t.frame = b
	return string(b)
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
