package ui

import (
	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
)

// Pane is one area of the screen (the input, the transcript, the sources,
// the viewer), shaped like a tea.Model so the root can route to it without
// knowing its insides. A pane ignores keys while blurred; its help.KeyMap
// gives the help bar (ShortHelp, most important first: the bar drops from
// the end when narrow) and its section of the ? screen (FullHelp).
type Pane interface {
	help.KeyMap
	Update(msg tea.Msg) (Pane, tea.Cmd)
	View() string
	SetSize(width, height int)
	Focus() tea.Cmd
	Blur()
}

// Compile-time checks that every pane is a Pane.
var (
	_ Pane = (*inputPane)(nil)
	_ Pane = (*transcript)(nil)
	_ Pane = (*sourcesPane)(nil)
	_ Pane = (*viewer)(nil)
)
