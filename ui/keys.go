package ui

import (
	"charm.land/bubbles/v2/key"

	"github.com/ibid-dev/ibid/ui/viewer"
)

// keyMap is every key binding of the chat, declared once: the help bar and
// the ? screen are both built from it (each pane's help.keyMap picks its
// bindings here), and TestKeysDocumented checks docs/tui.md against it.
// The slash commands are bindings too, so their help has one source.
type keyMap struct {
	// global
	Quit       key.Binding // ctrl+c: cancel a streaming answer, else quit
	FocusNext  key.Binding
	FocusPrev  key.Binding
	Help       key.Binding // ? where it cannot be text, f1 everywhere
	ToggleSide key.Binding // show or hide the sources pane below 100 columns

	// input
	Send        key.Binding
	Newline     key.Binding
	HistoryPrev key.Binding
	HistoryNext key.Binding

	// transcript
	NextNode key.Binding
	PrevNode key.Binding
	Digit    key.Binding
	Open     key.Binding
	Up       key.Binding
	Down     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
	Top      key.Binding
	Bottom   key.Binding
	Click    key.Binding // the mouse: documented, never matched against keys

	// viewer
	NextSeg key.Binding
	PrevSeg key.Binding
	Edit    key.Binding
	Page    key.Binding // the page as it looks
	Back    key.Binding

	// the ? screen
	CloseHelp key.Binding // documented only: any key but the scrolling ones closes it

	// slash commands, typed in the input
	CmdAdd     key.Binding
	CmdNew     key.Binding
	CmdExport  key.Binding
	CmdLibrary key.Binding
	CmdHelp    key.Binding
}

// defaultKeyMap returns the chat's bindings.
func defaultKeyMap() keyMap {
	b := key.NewBinding
	k, h := key.WithKeys, key.WithHelp
	return keyMap{
		Quit:       b(k("ctrl+c"), h("ctrl+c", "cancel answer / quit")),
		FocusNext:  b(k("tab"), h("tab", "next pane")),
		FocusPrev:  b(k("shift+tab"), h("shift+tab", "previous pane")),
		Help:       b(k("?", "f1"), h("?/f1", "help")),
		ToggleSide: b(k("ctrl+s"), h("ctrl+s", "sources pane")),

		Send:        b(k("enter"), h("enter", "send")),
		Newline:     b(k("ctrl+j", "alt+enter", "shift+enter"), h("ctrl+j", "new line")),
		HistoryPrev: b(k("up", "ctrl+p"), h("↑/ctrl+p", "older question")),
		HistoryNext: b(k("down", "ctrl+n"), h("↓/ctrl+n", "newer question")),

		NextNode: b(k("]"), h("]", "next reference")),
		PrevNode: b(k("["), h("[", "previous reference")),
		Digit:    b(k("1", "2", "3", "4", "5", "6", "7", "8", "9"), h("1-9", "footnote n")),
		Open:     b(k("enter"), h("enter", "open source")),
		Up:       b(k("up", "k"), h("↑/k", "up")),
		Down:     b(k("down", "j"), h("↓/j", "down")),
		PageUp:   b(k("pgup", "b"), h("pgup", "page up")),
		PageDown: b(k("pgdown", "space", "f"), h("pgdn", "page down")),
		Top:      b(k("home", "g"), h("g", "top")),
		Bottom:   b(k("end", "G"), h("G", "bottom")),
		Click:    b(k("click"), h("click", "select; again: open")),

		NextSeg: b(k("n"), h("n", "next segment")),
		PrevSeg: b(k("p"), h("p", "previous segment")),
		Edit:    b(k("o"), h("o", "open the document at the passage")),
		Page:    b(k("i"), h("i", "the page as it looks")),
		Back:    b(k("esc", "q"), h("esc", "back")),

		CloseHelp: b(k("esc"), h("any other key", "closes")),

		CmdAdd:     b(k("/add"), h("/add PATH...", "add files, folders, globs")),
		CmdNew:     b(k("/new"), h("/new", "start a new conversation")),
		CmdExport:  b(k("/export"), h("/export [FILE]", "Markdown (+ pandoc: citations)")),
		CmdLibrary: b(k("/library"), h("/library NAME", "switch library")),
		CmdHelp:    b(k("/help"), h("/help", "every key and command")),
	}
}

// slashKeys is the help.KeyMap of the slash commands.
type slashKeys struct{ k keyMap }

func (s slashKeys) ShortHelp() []key.Binding {
	k := s.k
	return []key.Binding{k.CmdAdd, k.CmdNew, k.CmdExport, k.CmdLibrary, k.CmdHelp}
}

func (s slashKeys) FullHelp() [][]key.Binding { return [][]key.Binding{s.ShortHelp()} }

// helpScreenKeys is the help bar of the ? screen.
type helpScreenKeys struct{ k keyMap }

func (h helpScreenKeys) ShortHelp() []key.Binding {
	k := h.k
	return []key.Binding{k.Down, k.Up, k.PageDown, k.PageUp, k.CloseHelp}
}

func (h helpScreenKeys) FullHelp() [][]key.Binding { return [][]key.Binding{h.ShortHelp()} }

// globalKeys is the help.KeyMap of the keys that work whatever has focus.
type globalKeys struct{ k keyMap }

func (g globalKeys) ShortHelp() []key.Binding {
	k := g.k
	return []key.Binding{k.FocusNext, k.FocusPrev, k.ToggleSide, k.Help, k.Quit}
}

func (g globalKeys) FullHelp() [][]key.Binding { return [][]key.Binding{g.ShortHelp()} }

// viewer is the viewer's part of the keymap.
func (k keyMap) viewer() viewer.Keys {
	return viewer.Keys{Back: k.Back, NextSeg: k.NextSeg, PrevSeg: k.PrevSeg, Edit: k.Edit, Page: k.Page,
		Up: k.Up, Down: k.Down, PageUp: k.PageUp, PageDown: k.PageDown, Help: k.Help}
}
