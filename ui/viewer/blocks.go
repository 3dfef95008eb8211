package viewer

import "github.com/ibid-dev/ibid/store"

// lineKind tells the lines of a passage's block apart, for drawing.
type lineKind uint8

const (
	lineText      lineKind = iota // a line of the passage's text, or a blank line between its paragraphs
	lineMarker                    // the marker of a page that begins inside the passage
	lineTopMarker                 // the marker of a page that begins at the passage, above it
	lineGap                       // the blank line above a passage, between it and the one before
)

// vline is one line of the viewer's body, unstyled (draw styles it), with
// the pages it lies on, so the header can name the page at the top of the
// view, and where its text is in the passage, so o can open the file
// there.
//
// Invariant: pStart is 0 (no pages: Markdown, text) or 1 <= pStart <=
// pEnd; pEnd > pStart only on the lines of a passage that spans pages
// when the viewer does not know where inside it the page turns (no page
// starts: the document's file is gone or changed), or on the marker of
// pages that hold no text. 0 <= off <= len of the passage's Text.
type vline struct {
	text         string // plain; a marker is already its rule, at the block's width
	kind         lineKind
	pStart, pEnd int
	focus        bool // a line of the cited segment's focus
	// fa and fb are the bytes of text that show the focus (focusSpan),
	// on a focus line; fa == fb: the whole line (a blank line inside it).
	fa, fb int
	// off is the byte offset in the passage's Text where the line's text
	// begins; for a line without text (a marker, a blank line), where the
	// next text of the passage begins (its end when none follows).
	off int
}

// blockCache holds the passages laid out at one width, by segment index.
//
// Invariant: blocks is nil or has one entry per segment of the viewer;
// a non-nil entry is that segment laid out at width.
type blockCache struct {
	width  int
	blocks [][]vline
}

// textWidth is the width passages are reflowed to: the viewer's less the
// two-column gutter.
func (v *Viewer) textWidth() int { return max(v.width-2, 10) }

// block is segment i laid out at the viewer's width (layoutBlock), from
// the cache when it was laid out at this width before: drawing a view lays
// out only the passages in it, each once per width.
func (v *Viewer) block(i int) []vline {
	w := v.textWidth()
	if v.cache.width != w || len(v.cache.blocks) != len(v.segs) {
		v.cache = blockCache{width: w, blocks: make([][]vline, len(v.segs))}
	}
	if b := v.cache.blocks[i]; b != nil {
		return b
	}
	b := v.layoutBlock(i, w)
	v.cache.blocks[i] = b
	return b
}

// startLine is the line of segment i's block where the passage begins for
// the reader: past the blank line above it (its marker when it has one, else
// its first line of text). n and p move the view there.
func startLine(i int) int { return min(i, 1) }

// layoutBlock lays segment i out at width w: a blank line above it (but for
// the document's first), a page marker where a page begins at it, and its
// text reflowed at w with a marker line where a page begins inside it, when
// the viewer has the document's page starts (Content.PageStarts; otherwise a
// passage that spans pages gets one marker above, naming them). The lines
// of the cited segment's focus (the part that matched best,
// focus.go) are marked.
//
// Invariant: the block has at least one line; its lines' offsets never
// decrease.
func (v *Viewer) layoutBlock(i, w int) []vline {
	s := v.segs[i]
	var prev *store.Segment
	if i > 0 {
		prev = &v.segs[i-1]
	}
	pieces := flowPages(s, pageBreaks(s, v.pageStarts), w)
	p0 := pieces[0]
	var out []vline
	if i > 0 {
		out = append(out, vline{kind: lineGap, pStart: p0.pStart, pEnd: p0.pEnd, off: -1})
	}
	top := s // the marker above names the pages of the first piece
	top.PageEnd = p0.pEnd
	if label := pageMarker(top, prev); label != "" {
		out = append(out, vline{text: markerLine(label, w), kind: lineTopMarker, pStart: p0.pStart, pEnd: p0.pEnd, off: -1})
	}
	text := joinedLines(pieces)
	spans := lineSpans(s.Text, text)
	var focus []bool
	var fa, fb int
	if a, b, ok := focusIn(v.src, s.Text); ok && i == v.cited {
		focus = markSpans(spans, text, a, b)
		fa, fb = a, b
	}
	j := 0 // the line's index in text
	for _, pc := range pieces {
		if pc.marker != "" {
			out = append(out, vline{text: markerLine(pc.marker, w), kind: lineMarker, pStart: pc.pStart, pEnd: pc.pEnd, off: -1})
		}
		for _, l := range pc.lines {
			vl := vline{text: l, pStart: pc.pStart, pEnd: pc.pEnd, focus: focus != nil && focus[j], off: spans[j][0]}
			if vl.focus {
				vl.fa, vl.fb = focusSpan(s.Text, l, spans[j][0], fa, fb)
			}
			out = append(out, vl)
			j++
		}
	}
	if len(out) == 0 { // a passage without text still has a line, for the view to stand on
		out = append(out, vline{pStart: p0.pStart, pEnd: p0.pEnd, off: -1})
	}
	next := len(s.Text)
	for k := len(out) - 1; k >= 0; k-- {
		if out[k].off < 0 {
			out[k].off = next
		}
		next = out[k].off
	}
	return out
}

// draw styles line l of segment i's block: the cited segment highlighted,
// its focus (the supporting sentence, to the byte) more strongly with its
// lines marked █, ▌ marking the passage the view is on (on), the others
// dim.
func (v *Viewer) draw(i int, l vline) string {
	st := v.st
	mark, style := "  ", st.Other
	if i == v.cited {
		style = st.Cited
	}
	if i == v.on() {
		mark = st.Head.Render("▌ ")
		if i != v.cited {
			style = st.On
		}
	}
	switch {
	case l.kind == lineGap:
		return ""
	case l.kind == lineTopMarker:
		return "  " + st.Border.Render(l.text)
	case l.kind == lineMarker:
		return mark + st.Border.Render(l.text)
	case l.focus && l.fa < l.fb:
		// The focus's own bytes stand out; the rest of its first and last
		// lines (the sentences around it) are drawn as the passage is.
		return st.Head.Render(focusMark) + style.Render(l.text[:l.fa]) + st.Focus.Render(l.text[l.fa:l.fb]) + style.Render(l.text[l.fb:])
	case l.focus:
		return st.Head.Render(focusMark) + st.Focus.Render(l.text)
	}
	return mark + style.Render(l.text)
}

// Line is a line of the open document as the viewer lays it out and
// draws it at its width.
type Line struct {
	Passage            int    // the passage it belongs to: its index in Content.Segs
	Drawn              string // styled, gutter included
	Focus              bool   // a line of the cited passage's focus
	PageStart, PageEnd int    // its pages (vline's pStart, pEnd)
}

// Lines are every line of the open document, from its first passage's to
// its last's, as the view would show them scrolled over the whole of it:
// for tests, and for whatever needs the document as the reader sees it.
// It lays out every passage, so it is not for a frame's drawing.
func (v *Viewer) Lines() []Line {
	var out []Line
	for i := range v.segs {
		for _, l := range v.block(i) {
			out = append(out, Line{Passage: i, Drawn: v.draw(i, l), Focus: l.focus, PageStart: l.pStart, PageEnd: l.pEnd})
		}
	}
	return out
}
