package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/ibid-dev/ibid/rag"
)

// sourcesPane lists the sources of the turn in view, one entry per display
// number in order of first appearance, growing as the answer streams.
// The entry of the selected node is highlighted.
type sourcesPane struct {
	c             *Common
	width, height int
	focused       bool
	cursor        int // entry under the cursor while focused
	offset        int
}

func (p *sourcesPane) SetSize(w, h int) { p.width, p.height = w, h }
func (p *sourcesPane) Focus()           { p.focused = true }
func (p *sourcesPane) Blur()            { p.focused = false }

// Update moves the cursor; enter opens the entry.
func (p *sourcesPane) Update(msg tea.Msg, srcs []rag.Source) tea.Cmd {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok || !p.focused {
		return nil
	}
	k := p.c.Keys
	switch {
	case key.Matches(km, k.Up):
		p.cursor = max(p.cursor-1, 0)
	case key.Matches(km, k.Down):
		p.cursor = min(p.cursor+1, max(len(srcs)-1, 0))
	case key.Matches(km, k.Open):
		if p.cursor < len(srcs) {
			s := srcs[p.cursor]
			return func() tea.Msg { return openSourceMsg{s} }
		}
	}
	return nil
}

// entry draws one source: number and title, page and section, snippet.
func (p *sourcesPane) entry(s rag.Source, selected bool) []string {
	st := p.c.Styles
	w := max(p.width-1, 8)
	num := fmt.Sprintf("[%d]", s.Number)
	ns := st.SourceNumber
	if s.Inferred {
		ns = st.ChipInferred
	}
	title := firstNonEmpty(s.Title, s.Path, s.URL, s.SegmentID)
	head := ns.Render(num) + " " + st.SourceTitle.Render(ansi.Truncate(title, max(w-len(num)-1, 4), "…"))
	var meta []string
	if pg := pages(s.PageStart, s.PageEnd); pg != "" {
		meta = append(meta, pg)
	}
	if s.Section != "" {
		meta = append(meta, "§ "+s.Section)
	}
	if s.Inferred {
		meta = append(meta, "inferred")
	}
	lines := []string{head}
	if len(meta) > 0 {
		lines = append(lines, "    "+st.Dim.Render(ansi.Truncate(strings.Join(meta, " · "), w-4, "…")))
	}
	if loc := firstNonEmpty(s.URL, s.Path); loc != "" {
		short := ansi.Truncate(loc, w-4, "…")
		if s.URL != "" {
			lines = append(lines, "    "+ansi.SetHyperlink(s.URL)+st.Dim.Render(short)+ansi.ResetHyperlink())
		} else {
			lines = append(lines, "    "+ansi.SetHyperlink("file://"+s.Path)+st.Dim.Render(short)+ansi.ResetHyperlink())
		}
	}
	if s.Snippet != "" {
		lines = append(lines, "    "+ansi.Truncate(strings.Join(strings.Fields(s.Snippet), " "), w-4, "…"))
	}
	if selected {
		for i, l := range lines {
			pad := max(w-ansi.StringWidth(l), 0)
			lines[i] = st.SourceSelected.Render(l + strings.Repeat(" ", pad))
		}
	}
	return lines
}

// View draws the pane: a title and the entries; selNum is the display
// number of the selected node (0: none).
func (p *sourcesPane) View(srcs []rag.Source, selNum int) string {
	st := p.c.Styles
	ts := st.PaneTitle
	if p.focused {
		ts = st.PaneTitleFocused
	}
	lines := []string{ts.Render(fmt.Sprintf("Sources (%d)", len(srcs)))}
	if len(srcs) == 0 {
		lines = append(lines, st.Dim.Render("none yet"))
	}
	selLine := 0
	for i, s := range srcs {
		sel := s.Number == selNum || (p.focused && i == p.cursor)
		if sel {
			selLine = len(lines)
		}
		lines = append(lines, p.entry(s, sel)...)
	}
	h := max(p.height, 1)
	if selLine >= p.offset+h {
		p.offset = selLine - h + 4
	} else if selLine > 0 && selLine < p.offset {
		p.offset = selLine - 1
	}
	p.offset = min(max(p.offset, 0), max(len(lines)-h, 0))
	body := lines[1:]
	vis := append([]string{lines[0]}, body[min(p.offset, len(body)):]...)
	if len(vis) > h {
		vis = vis[:h]
	}
	for len(vis) < h {
		vis = append(vis, "")
	}
	return strings.Join(vis, "\n")
}

// pages is "p. 4" or "pp. 4–6", or "" without pages.
func pages(start, end int) string {
	switch {
	case start <= 0:
		return ""
	case end <= start:
		return fmt.Sprintf("p. %d", start)
	}
	return fmt.Sprintf("pp. %d–%d", start, end)
}
