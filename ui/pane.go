package ui

import (
	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"

	"github.com/ibid-dev/ibid/ui/viewer"
)

// pane is one area of the screen (the input, the transcript, the sources,
// the viewer), shaped like a tea.Model so the root can route to it without
// knowing its insides. A pane ignores keys while blurred; its help.KeyMap
// gives the help bar (ShortHelp, most important first: the bar drops from
// the end when narrow) and its section of the ? screen (FullHelp).
type pane interface {
	help.KeyMap
	Update(msg tea.Msg) (pane, tea.Cmd)
	View() string
	SetSize(width, height int)
	Focus() tea.Cmd
	Blur()
}

// viewerPane is the passage viewer (ui/viewer) as a pane: the viewer
// has a pane's shape, but its Update returns itself, as a package that
// does not import ui must.
type viewerPane struct{ *viewer.Viewer }

func (p viewerPane) Update(msg tea.Msg) (pane, tea.Cmd) {
	_, cmd := p.Viewer.Update(msg)
	return p, cmd
}

// Compile-time checks that every pane is a pane.
var (
	_ pane = (*inputPane)(nil)
	_ pane = (*transcript)(nil)
	_ pane = (*sourcesPane)(nil)
	_ pane = viewerPane{}
)
