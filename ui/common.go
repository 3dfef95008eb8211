package ui

// Common is what every pane shares: the styles and the keymap. The root
// model owns it and swaps Styles when the background turns out light or
// dark; panes read it and never keep copies.
type Common struct {
	Styles *Styles
	Keys   KeyMap
}

// focus names the pane that receives keys.
type focus int

const (
	focusInput focus = iota
	focusTranscript
	focusSources
	focusCount
)
