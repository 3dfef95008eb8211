package ui

import (
	"cmp"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/ui/render"
)

// sourcesPane lists the sources of the turn in view, one entry per display
// number in order of first appearance, growing as the answer streams.
// The entry of the selected node is highlighted.
//
// Invariant: entryAt has one element per line of the last View: the index
// in the list of the entry drawn there, or -1 (the title, blank lines).
type sourcesPane struct {
	c             *common
	width, height int
	focused       bool
	cursor        int  // entry under the cursor while focused
	clicked       bool // the cursor was put there by a click: another opens it
	offset        int
	scrolled      bool // the wheel moved the view: do not pull it to the selection
	entryAt       []int

	// list returns the sources to show, their verdicts and the display
	// number of the selected node (0: none); the root provides it.
	list func() ([]rag.Source, rag.Verdicts, int)
}

func newSourcesPane(c *common, list func() ([]rag.Source, rag.Verdicts, int)) *sourcesPane {
	return &sourcesPane{c: c, list: list}
}

func (p *sourcesPane) SetSize(w, h int) { p.width, p.height = w, h }
func (p *sourcesPane) Focus() tea.Cmd   { p.focused = true; return nil }
func (p *sourcesPane) Blur()            { p.focused, p.clicked = false, false }

func (p *sourcesPane) ShortHelp() []key.Binding {
	k := p.c.Keys
	return []key.Binding{k.Open, k.Up, k.Down, k.Help, k.FocusNext, k.Quit}
}

func (p *sourcesPane) FullHelp() [][]key.Binding {
	k := p.c.Keys
	return [][]key.Binding{{k.Up, k.Down, k.Open, k.Click}}
}

// Update moves the cursor, enter opens the entry; the mouse selects,
// opens and scrolls.
func (p *sourcesPane) Update(msg tea.Msg) (pane, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.MouseClickMsg:
		return p, p.click(msg.Mouse())
	case tea.MouseWheelMsg:
		p.wheel(msg.Mouse())
		return p, nil
	}
	km, ok := msg.(tea.KeyPressMsg)
	if !ok || !p.focused {
		return p, nil
	}
	srcs, _, _ := p.list()
	k := p.c.Keys
	p.scrolled, p.clicked = false, false
	switch {
	case key.Matches(km, k.Up):
		p.cursor = max(p.cursor-1, 0)
	case key.Matches(km, k.Down):
		p.cursor = min(p.cursor+1, max(len(srcs)-1, 0))
	case key.Matches(km, k.Open):
		return p, p.open()
	}
	return p, nil
}

// open opens the entry under the cursor in the viewer.
func (p *sourcesPane) open() tea.Cmd {
	srcs, _, _ := p.list()
	if p.cursor >= len(srcs) {
		return nil
	}
	s := srcs[p.cursor]
	return func() tea.Msg { return openSourceMsg{s} }
}

// entry draws one source: number and title, page and section, the
// supporting sentence (else the snippet); a work of the bibliography by
// its label (rag.Source.Label) and then its title; a source whose passage
// does not support its sentence (sup) is numbered [n✗] and says so.
func (p *sourcesPane) entry(s rag.Source, sup *rag.Support, selected bool) []string {
	st := p.c.Styles
	w := max(p.width-1, 8)
	num := render.ChipText(render.Cited, s.Number)
	ns := st.SourceNumber
	switch {
	case s.Inferred:
		ns = st.ChipInferred
	case sup != nil && sup.Verdict == rag.Unsupported:
		num, ns = render.ChipText(render.Unsupported, s.Number), st.ChipUnsupported
	}
	title := cmp.Or(s.Title, s.Path, s.URL, s.SegmentID)
	var lines, meta []string
	if s.AuthorYear() != "" {
		// A work of the bibliography: "[2] Gao et al. 2023 · p. 5 · § 3.1",
		// then its title.
		lines = append(lines, ns.Render(num)+" "+st.SourceTitle.Render(render.Shorten(s.Label(), max(w-ansi.StringWidth(num)-1, 4))),
			"    "+render.Shorten(title, w-4))
	} else {
		lines = append(lines, ns.Render(num)+" "+st.SourceTitle.Render(render.Shorten(title, max(w-ansi.StringWidth(num)-1, 4))))
		if pg := rag.Pages(s.PageStart, s.PageEnd); pg != "" {
			meta = append(meta, pg)
		}
		if s.Section != "" {
			meta = append(meta, "§ "+s.Section)
		}
	}
	if s.Inferred {
		meta = append(meta, "inferred")
	}
	if note := rag.VerdictNote(sup); note != "" {
		meta = append(meta, note)
	}
	if len(meta) > 0 {
		lines = append(lines, "    "+st.Dim.Render(render.Shorten(strings.Join(meta, " · "), w-4)))
	}
	if loc := cmp.Or(s.URL, s.Path); loc != "" {
		short := render.MiddleEllipsis(loc, w-4)
		if s.URL != "" {
			lines = append(lines, "    "+ansi.SetHyperlink(s.URL)+st.Dim.Render(short)+ansi.ResetHyperlink())
		} else {
			lines = append(lines, "    "+ansi.SetHyperlink("file://"+s.Path)+st.Dim.Render(short)+ansi.ResetHyperlink())
		}
	}
	if snip := snippetText(rag.Quote(s, sup), innermost(s.Section), s.Title); snip != "" {
		lines = append(lines, "    "+render.Shorten(snip, w-4))
	}
	if selected {
		for i, l := range lines {
			pad := max(w-ansi.StringWidth(l), 0)
			lines[i] = st.SourceSelected.Render(l + strings.Repeat(" ", pad))
		}
	}
	return lines
}

// View draws the pane: a title and the entries, the selected node's
// highlighted.
func (p *sourcesPane) View() string {
	srcs, verdicts, selNum := p.list()
	st := p.c.Styles
	ts := st.PaneTitle
	if p.focused {
		ts = st.PaneTitleFocused
	}
	title := fmt.Sprintf("Sources (%d)", len(srcs))
	if bad := len(verdicts.Unsupported()); bad > 0 {
		title = fmt.Sprintf("Sources (%d, %d unsupported)", len(srcs), bad)
	}
	lines := []string{ts.Render(render.Shorten(title, max(p.width-1, 8)))}
	owner := []int{-1}
	if len(srcs) == 0 {
		lines, owner = append(lines, st.Dim.Render("none yet")), append(owner, -1)
	}
	selLine := 0
	for i, s := range srcs {
		sel := s.Number == selNum || (p.focused && i == p.cursor)
		if sel {
			selLine = len(lines)
		}
		e := p.entry(s, verdicts[s.Number], sel)
		lines = append(lines, e...)
		for range e {
			owner = append(owner, i)
		}
	}
	h := max(p.height, 1)
	if !p.scrolled {
		if selLine >= p.offset+h {
			p.offset = selLine - h + 4
		} else if selLine > 0 && selLine < p.offset {
			p.offset = selLine - 1
		}
	}
	p.offset = min(max(p.offset, 0), max(len(lines)-h, 0))
	from := min(p.offset+1, len(lines))
	vis := append([]string{lines[0]}, lines[from:]...)
	p.entryAt = append(append(p.entryAt[:0], -1), owner[from:]...)
	if len(vis) > h {
		vis, p.entryAt = vis[:h], p.entryAt[:h]
	}
	for len(vis) < h {
		vis, p.entryAt = append(vis, ""), append(p.entryAt, -1)
	}
	return strings.Join(vis, "\n")
}
