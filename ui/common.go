package ui

// common is what every pane shares: the styles and the keymap. The root
// model owns it and swaps Styles when the background turns out light or
// dark; panes read it and never keep copies (the viewer, in a room of
// its own, is handed its keys and styles, and its styles again when they
// change).
type common struct {
	Styles *styles
	Keys   keyMap
}

// focus names the pane that receives keys.
type focus int

const (
	focusInput focus = iota
	focusTranscript
	focusSources
	focusCount
)
