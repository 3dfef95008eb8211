package render

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Shorten fits plain text s into width cells at a word boundary, ending
// with "…" when something was left out: words are dropped whole, and only
// a first word wider than the space is cut.
func Shorten(s string, width int) string {
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

// MiddleEllipsis shortens s to width cells by cutting from its middle, so
// a path keeps its beginning and its file name: "/home/me/…/paper.pdf".
// When even the file name does not fit, its end is kept.
func MiddleEllipsis(s string, width int) string {
	if ansi.StringWidth(s) <= width {
		return s
	}
	if width <= 1 {
		return ansi.Truncate(s, max(width, 0), "")
	}
	name := s
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		name = s[i:]
	}
	nw := ansi.StringWidth(name)
	if nw+1 >= width { // only the end of the name fits
		return "…" + ansi.TruncateLeft(s, ansi.StringWidth(s)-(width-1), "")
	}
	head := ansi.Truncate(s, width-nw-1, "")
	return head + "…" + name
}
