package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/store"
)

// vline is one line of the viewer's body with the pages it lies on, so
// the header can name the page at the top of the view.
//
// Invariant: pStart is 0 (no pages: Markdown, text) or 1 <= pStart <=
// pEnd; pEnd > pStart only on the lines of a passage that spans pages,
// since the library does not keep where inside a passage the page turns.
type vline struct {
	text         string // styled, not wider than the viewer
	pStart, pEnd int
	focus        bool // a line of the cited segment's focus
}

// pageMarker is the label of the marker line drawn above s, or "" when no
// page begins there. prev is the segment before it in the
// document (nil for the first). A page begins at a segment whose first
// page is after the last page of the one before (or at the document's
// first segment); a passage that spans pages gets a marker naming them
// all, because the page turns somewhere inside it.
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

// layout is the body: the segments around at, each reflowed at the
// viewer's width, a page marker above each segment where a page begins,
// the cited segment highlighted, the lines of its focus (the part that
// matched best, viewer_focus.go) more strongly and marked █, ▌ marking the
// one at. starts[i] is the
// line where segs[lo+i] begins (its marker, when it has one), and lo the
// first segment shown.
func (v *viewer) layout() (lines []vline, starts []int, lo int) {
	st := v.c.Styles
	w := max(v.width-2, 10)
	lo, hi := max(v.at-viewerContext, 0), min(v.at+viewerContext, len(v.segs)-1)
	for i := lo; i <= hi; i++ {
		s := v.segs[i]
		starts = append(starts, len(lines))
		var prev *store.Segment
		if i > 0 {
			prev = &v.segs[i-1]
		}
		ps, pe := s.PageStart, max(s.PageStart, s.PageEnd)
		if label := pageMarker(s, prev); label != "" { // the marker belongs to the passage: its pages
			lines = append(lines, vline{"  " + st.Border.Render(markerLine(label, w)), ps, pe, false})
		}
		mark, style := "  ", st.ViewerOther
		if i == v.cited {
			style = st.ViewerCited
		}
		if i == v.at {
			mark = st.ViewerHead.Render("▌ ")
			if i != v.cited {
				style = st.SourceTitle
			}
		}
		flow := reflow(s.Text, w)
		var focus []bool
		if a, b, ok := focusIn(v.src, s.Text); ok && i == v.cited {
			focus = focusLines(s.Text, flow, a, b)
		}
		for j, l := range flow {
			if focus != nil && focus[j] {
				lines = append(lines, vline{st.ViewerHead.Render(focusMark) + st.ViewerFocus.Render(l), ps, pe, true})
				continue
			}
			lines = append(lines, vline{mark + style.Render(l), ps, pe, false})
		}
		lines = append(lines, vline{"", pe, pe, false})
	}
	return lines, starts, lo
}
