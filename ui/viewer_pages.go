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
// pEnd; pEnd > pStart only on the lines of a passage that spans pages
// when the viewer does not know where inside it the page turns (no page
// starts: the document's file is gone or changed), or on the marker of
// pages that hold no text.
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

// layout is the body: the segments around at, each reflowed at the
// viewer's width, a page marker above each segment where a page begins
// and, when the viewer has the document's page starts (PageFinder),
// inside a passage at the line where the next page begins (otherwise a
// passage that spans pages gets one marker above, naming them), the cited
// segment highlighted, the lines of its focus (the part that matched best,
// viewer_focus.go) more strongly and marked █, ▌ marking the one at.
// starts[i] is the line where segs[lo+i] begins (its marker, when it has
// one), and lo the first segment shown.
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
		pieces := flowPages(s, pageBreaks(s, v.pageStarts), w)
		top := s // the marker above names the pages of the first piece
		top.PageEnd = pieces[0].pEnd
		if label := pageMarker(top, prev); label != "" {
			lines = append(lines, vline{"  " + st.Border.Render(markerLine(label, w)), pieces[0].pStart, pieces[0].pEnd, false})
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
		var focus []bool
		if a, b, ok := focusIn(v.src, s.Text); ok && i == v.cited {
			focus = focusLines(s.Text, joinedLines(pieces), a, b)
		}
		j := 0 // the line's index in joinedLines
		for _, pc := range pieces {
			if pc.marker != "" {
				lines = append(lines, vline{mark + st.Border.Render(markerLine(pc.marker, w)), pc.pStart, pc.pEnd, false})
			}
			for _, l := range pc.lines {
				if focus != nil && focus[j] {
					lines = append(lines, vline{st.ViewerHead.Render(focusMark) + st.ViewerFocus.Render(l), pc.pStart, pc.pEnd, true})
				} else {
					lines = append(lines, vline{mark + style.Render(l), pc.pStart, pc.pEnd, false})
				}
				j++
			}
		}
		pe := pieces[len(pieces)-1].pEnd
		lines = append(lines, vline{"", pe, pe, false})
	}
	return lines, starts, lo
}
