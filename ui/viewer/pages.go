package viewer

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/store"
)

// pageMarker is the label of the marker line drawn above s, or "" when no
// page begins there. prev is the segment before it in the
// document (nil for the first). A page begins at a segment whose first
// page is after the last page of the one before (or at the document's
// first segment); a passage that spans pages gets a marker naming them
// all, because the page turns somewhere inside it. (With the document's
// page starts, layout passes s's pages up to the first that begins inside
// it, and marks that one where it begins.)
func pageMarker(s store.Segment, prev *store.Segment) string {
	if s.PageStart <= 0 {
		return ""
	}
	prevEnd := 0
	if prev != nil {
		prevEnd = max(prev.PageStart, prev.PageEnd)
	}
	switch {
	case s.PageStart > prevEnd:
		return rag.Pages(s.PageStart, s.PageEnd)
	case s.PageEnd > s.PageStart:
		return "into " + rag.Pages(s.PageStart+1, s.PageEnd)
	}
	return ""
}

// markerLine draws a page marker as a rule across width: "── p. 10 ─────".
func markerLine(label string, width int) string {
	head := "── " + label + " "
	return head + strings.Repeat("─", max(width-ansi.StringWidth(head), 2))
}
