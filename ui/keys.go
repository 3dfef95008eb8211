package ui

import "charm.land/bubbles/v2/key"

// KeyMap is every key binding of the chat, declared once; the help bar, the
// full help (?) and docs/tui.md are built from or checked against it.
type KeyMap struct {
	// global
	Quit       key.Binding // ctrl+c: cancel a streaming answer, else quit
	FocusNext  key.Binding
	FocusPrev  key.Binding
	Help       key.Binding
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

	// viewer
	NextSeg key.Binding
	PrevSeg key.Binding
	Edit    key.Binding
	Back    key.Binding
}

// DefaultKeyMap returns the chat's bindings.
func DefaultKeyMap() KeyMap {
	b := key.NewBinding
	k, h := key.WithKeys, key.WithHelp
	return KeyMap{
		Quit:       b(k("ctrl+c"), h("ctrl+c", "cancel answer / quit")),
		FocusNext:  b(k("tab"), h("tab", "next pane")),
		FocusPrev:  b(k("shift+tab"), h("shift+tab", "previous pane")),
		Help:       b(k("?"), h("?", "help")),
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

		NextSeg: b(k("n"), h("n", "next segment")),
		PrevSeg: b(k("p"), h("p", "previous segment")),
		Edit:    b(k("o"), h("o", "open file in $EDITOR/$PAGER")),
		Back:    b(k("esc", "q"), h("esc", "back")),
	}
}
