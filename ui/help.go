package ui

import "charm.land/bubbles/v2/key"

// paneHelp is the help.KeyMap of the focused pane: the short help bar and
// the full help (?) are both built from the keymap.
type paneHelp struct {
	k     KeyMap
	focus focus
	view  bool // the viewer is open
}

func (h paneHelp) ShortHelp() []key.Binding {
	k := h.k
	switch {
	case h.view:
		return []key.Binding{k.Up, k.Down, k.NextSeg, k.PrevSeg, k.Edit, k.Back}
	case h.focus == focusTranscript:
		return []key.Binding{k.NextNode, k.PrevNode, k.Digit, k.Open, k.FocusNext, k.Help, k.Quit}
	case h.focus == focusSources:
		return []key.Binding{k.Up, k.Down, k.Open, k.FocusNext, k.Help, k.Quit}
	}
	return []key.Binding{k.Send, k.Newline, k.HistoryPrev, k.FocusNext, k.ToggleSide, k.Quit}
}

func (h paneHelp) FullHelp() [][]key.Binding {
	k := h.k
	return [][]key.Binding{
		{k.FocusNext, k.FocusPrev, k.ToggleSide, k.Help, k.Quit},
		{k.Send, k.Newline, k.HistoryPrev, k.HistoryNext},
		{k.NextNode, k.PrevNode, k.Digit, k.Open, k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.NextSeg, k.PrevSeg, k.Edit, k.Back},
	}
}

// slashHelp lists the slash commands for /help and the full help.
const slashHelp = `/add PATH...    add files, folders, globs
/new            start a new conversation
/export [FILE]  Markdown with footnotes
/library NAME   switch library
/help           this help`
