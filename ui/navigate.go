package ui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/ibid-dev/ibid/ui/render"
)

// This file is the transcript's reading: keys, scrolling and the choice of
// which reference a key selects. The rule: keys start from what the reader
// sees. ] and [ go on from the selected node while it is on screen; else
// they start from the answer on screen (the last one when the view is at
// the bottom), and the view never jumps to the top of the conversation.

func (t *transcript) ShortHelp() []key.Binding {
	k := t.c.Keys
	return []key.Binding{k.NextNode, k.PrevNode, k.Open, k.Digit, k.Help, k.FocusNext, k.Top, k.Bottom, k.Quit}
}

func (t *transcript) FullHelp() [][]key.Binding {
	k := t.c.Keys
	return [][]key.Binding{{k.NextNode, k.PrevNode, k.Digit, k.Open, k.Click, k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}}
}

// Update handles keys while focused and the mouse (the root sends mouse
// messages in the pane's own coordinates).
func (t *transcript) Update(msg tea.Msg) (pane, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if t.focused {
			return t, t.key(msg)
		}
	case tea.MouseClickMsg:
		return t, t.click(msg.Mouse())
	case tea.MouseWheelMsg:
		t.wheel(msg.Mouse())
	}
	return t, nil
}

func (t *transcript) key(km tea.KeyPressMsg) tea.Cmd {
	k := t.c.Keys
	total := t.lineCount()
	h := max(t.height, 1)
	switch {
	case key.Matches(km, k.NextNode):
		return t.step(+1)
	case key.Matches(km, k.PrevNode):
		return t.step(-1)
	case key.Matches(km, k.Digit):
		return t.selectNumber(int(km.String()[0] - '0'))
	case key.Matches(km, k.Open):
		return t.openSelected()
	case key.Matches(km, k.Up):
		t.scroll(-1, total)
	case key.Matches(km, k.Down):
		t.scroll(1, total)
	case key.Matches(km, k.PageUp):
		t.scroll(-h, total)
	case key.Matches(km, k.PageDown):
		t.scroll(h, total)
	case key.Matches(km, k.Top):
		t.follow, t.offset = false, 0
	case key.Matches(km, k.Bottom):
		t.follow = true
		t.offset = max(total-h, 0)
	}
	return nil
}

// openSelected opens the selected node's source in the viewer.
func (t *transcript) openSelected() tea.Cmd {
	if r, ok := t.refOf(t.sel); ok {
		return openSourceCmd(t.turns[r.turn], t.turns[r.turn].doc.nodes[r.node])
	}
	return statusCmd("select a reference first: ] or [, a digit, or a click")
}

func statusCmd(text string) tea.Cmd {
	return func() tea.Msg { return statusMsg{text: text} }
}

func (t *transcript) scroll(d, total int) {
	t.offset += d
	h := max(t.height, 1)
	t.offset = min(max(t.offset, 0), max(total-h, 0))
	t.follow = t.offset >= total-h
}

// placedAll lists every drawn node with its line, the streaming tail's
// included.
func (t *transcript) placedAll() []placed {
	_, tail := t.tailLines()
	if len(tail) == 0 {
		return t.nodes
	}
	return append(append([]placed(nil), t.nodes...), tail...)
}

// lineOf is the line node i (reading order) is drawn on, or -1.
func (t *transcript) lineOf(i int) int {
	r, ok := t.refOf(i)
	if !ok {
		return -1
	}
	for _, p := range t.placedAll() {
		if p.ref == r {
			return p.line
		}
	}
	return -1
}

// onScreen reports whether line l is in the window.
func (t *transcript) onScreen(l int) bool {
	return l >= t.offset && l < t.offset+max(t.height, 1)
}

// turnOnScreen is the answer the reader is looking at: the last when the
// view is at the bottom; else the turn holding the line a third of the
// way down the window.
func (t *transcript) turnOnScreen() int {
	n := len(t.turns)
	if n == 0 {
		return -1
	}
	t.sync()
	total := t.lineCount()
	h := max(t.height, 1)
	if t.follow || t.offset >= total-h {
		return n - 1
	}
	at := t.offset + h/3
	ti := 0
	for i, l := range t.turnLine {
		if l <= at {
			ti = i
		}
	}
	return min(ti, n-1)
}

// firstNode is the reading-order index of turn ti's first node.
func (t *transcript) firstNode(ti int) int {
	base := 0
	for i := 0; i < ti && i < len(t.turns); i++ {
		base += len(t.turns[i].doc.nodes)
	}
	return base
}

// selectionOnScreen reports whether a node is selected and drawn in view.
func (t *transcript) selectionOnScreen() bool {
	return t.sel >= 0 && t.onScreen(t.lineOf(t.sel))
}

// step selects the next (d=+1) or previous (d=-1) node: from the selection
// when it is on screen, else the first (or last) node of the answer on
// screen, or of the nearest answer after (before) it that has any.
func (t *transcript) step(d int) tea.Cmd {
	total := t.totalNodes()
	if total == 0 {
		return statusCmd("no references yet: ask a question first")
	}
	if t.selectionOnScreen() {
		next := t.sel + d
		if next < 0 || next >= total {
			return statusCmd(map[bool]string{true: "that was the last reference", false: "that was the first reference"}[d > 0])
		}
		t.selectNode(next)
		return nil
	}
	ti := t.turnOnScreen()
	for ti >= 0 && ti < len(t.turns) && len(t.turns[ti].doc.nodes) == 0 {
		ti += d
	}
	if ti < 0 || ti >= len(t.turns) {
		// nothing that way: the nearest answer the other way
		ti = t.turnOnScreen()
		for ti >= 0 && ti < len(t.turns) && len(t.turns[ti].doc.nodes) == 0 {
			ti -= d
		}
	}
	if ti < 0 || ti >= len(t.turns) {
		return nil
	}
	if d > 0 {
		t.selectNode(t.firstNode(ti))
	} else {
		t.selectNode(t.firstNode(ti) + len(t.turns[ti].doc.nodes) - 1)
	}
	return nil
}

// selectNumber selects the first node numbered n of the answer in view
// (the selected node's, or the answer on screen), or says there is none.
func (t *transcript) selectNumber(n int) tea.Cmd {
	ti := t.turnOnScreen()
	if r, ok := t.refOf(t.sel); ok && t.selectionOnScreen() {
		ti = r.turn
	}
	if ti < 0 {
		return statusCmd("no answers yet: ask a question first")
	}
	base := t.firstNode(ti)
	for i, nd := range t.turns[ti].doc.nodes {
		if nd.num == n && nd.kind != render.Unknown {
			t.selectNode(base + i)
			return nil
		}
	}
	cnt := 0
	for _, s := range t.turns[ti].sources {
		if t.turns[ti].doc.seen[s.Number] {
			cnt++
		}
	}
	switch cnt {
	case 0:
		return statusCmd(fmt.Sprintf("no footnote [%d]: this answer has no footnotes", n))
	case 1:
		return statusCmd(fmt.Sprintf("no footnote [%d]: this answer has only [1]", n))
	}
	return statusCmd(fmt.Sprintf("no footnote [%d]: this answer has [1] to [%d]", n, cnt))
}

// shownTurn is the turn the sources pane shows.
func (t *transcript) shownTurn() int {
	if r, ok := t.refOf(t.sel); ok {
		return r.turn
	}
	if t.selTurn >= 0 && t.selTurn < len(t.turns) {
		return t.selTurn
	}
	return len(t.turns) - 1
}

// selectNode selects node i (clamped) and scrolls it into view if it is
// not: a third of the way down, so the text before it reads too.
func (t *transcript) selectNode(i int) {
	n := t.totalNodes()
	if n == 0 {
		return
	}
	i = min(max(i, 0), n-1)
	t.redraw(t.selTurnOf()) // the chip selected until now, and
	t.sel = i
	if r, ok := t.refOf(i); ok {
		t.selTurn = r.turn
		t.redraw(r.turn) // the one selected now
	}
	line := t.lineOf(i)
	if line < 0 {
		return
	}
	total := t.lineCount()
	h := max(t.height, 1)
	if !t.onScreen(line) {
		t.offset = min(max(line-h/3, 0), max(total-h, 0))
	}
	t.follow = t.offset >= total-h
}
