package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// shorten fits plain text s into width cells at a word boundary, ending
// with "…" when something was left out: words are dropped whole, and only
// a first word wider than the space is cut.
func shorten(s string, width int) string {
	if ansi.StringWidth(s) <= width {
		return s
	}
	if width <= 1 {
		return ansi.Truncate(s, max(width, 0), "")
	}
	cut := ansi.Truncate(s, width-1, "")
	if i := strings.LastIndexByte(cut, ' '); i > 0 && i >= len(cut)/3 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:·") + "…"
}
