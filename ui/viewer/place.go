package viewer

// viewPlace is where the view is: its first line, and the passage the
// view is on (on). The header names the line's page and the passage's
// section and number; o opens the document at the line.
type viewPlace struct {
	seg          int // the passage the view is on (viewer.on), index in the viewer's segs
	top          int // the passage the first line belongs to
	pStart, pEnd int // the line's pages; 0: the document has none
	off          int // byte offset in segs[top].Text of the line's text (vline.off)
}

// shown is a line in view, with the segment it belongs to.
type shown struct {
	seg int
	vline
}

// where settles the view at the viewer's size and says where it is, with
// the header drawn for it and the lines below it: the one place where the
// view's position is decided, for View and for o alike.
func (v *Viewer) where() (viewPlace, []string, []shown) {
	hh := 4 // the header's height: title, path, meta, rule; then as drawn
	var p viewPlace
	var head []string
	var vis []shown
	if len(v.segs) == 0 {
		return p, nil, nil
	}
	for range 3 { // the header's height depends on where the view is: settle again when it changes
		h := max(v.height-hh, 1)
		v.settle(h)
		vis = v.visible(h)
		if !shownIn(vis, v.pick) {
			v.pick = -1
		}
		l := v.block(v.at)[v.offset]
		p = viewPlace{seg: v.on(), top: v.at, pStart: l.pStart, pEnd: l.pEnd, off: l.off}
		head = v.header(p, shownIn(vis, v.cited))
		if len(head) == hh {
			break
		}
		hh = len(head)
	}
	return p, head, vis
}

// settle makes (at, offset) name the first line of a view of h lines: at
// is the passage that line belongs to and offset the line in at's block.
// A view opened on a focus is scrolled to it (its first line a third down,
// never above the cited passage's start); a view is never scrolled past
// the document's end while it could be full, so it shows no blank lines
// below the text while the document has text to fill them. Only the
// blocks between the old and the new position, and those in view, are
// laid out.
func (v *Viewer) settle(h int) {
	if len(v.segs) == 0 {
		return
	}
	v.at = min(max(v.at, 0), len(v.segs)-1)
	if v.seekFocus {
		v.seekFocus = false
		first, n := -1, 0
		for k, l := range v.block(v.cited) {
			if l.focus {
				if first < 0 {
					first = k
				}
				n = k - first + 1
			}
		}
		if first >= 0 {
			v.at, v.offset, v.pick = v.cited, max(first-focusRow(n, h), startLine(v.cited)), v.cited
		}
	}
	v.normalize()
	need := h // lines from the top to the document's end, up to h
	for i, o := v.at, v.offset; i < len(v.segs) && need > 0; i++ {
		need -= len(v.block(i)) - o
		o = 0
	}
	if need > 0 {
		v.offset -= need
		v.normalize()
	}
}

// normalize carries an offset outside at's block into the passages before
// or after it, and stops at the document's first and last lines.
func (v *Viewer) normalize() {
	for v.offset < 0 && v.at > 0 {
		v.at--
		v.offset += len(v.block(v.at))
	}
	v.offset = max(v.offset, 0)
	for v.offset >= len(v.block(v.at)) && v.at+1 < len(v.segs) {
		v.offset -= len(v.block(v.at))
		v.at++
	}
	v.offset = min(v.offset, len(v.block(v.at))-1)
}

// visible are the h lines from the view's first on (fewer at the
// document's end), laying out only the passages they are in.
func (v *Viewer) visible(h int) []shown {
	var out []shown
	for i, o := v.at, v.offset; i < len(v.segs) && len(out) < h; i++ {
		for _, l := range v.block(i)[o:] {
			if len(out) == h {
				break
			}
			out = append(out, shown{i, l})
		}
		o = 0
	}
	return out
}

// on is the passage the view is on: the one the reader jumped to (the
// cited one when the viewer opens, n, p) until they scroll, else the one
// the view's first line belongs to. They differ only when the view could
// not bring the passage jumped to to the top, the document ending first.
func (v *Viewer) on() int {
	if v.pick >= 0 {
		return v.pick
	}
	return v.at
}

// shownIn reports whether a line of passage i (other than the blank line
// above it) is among vis.
func shownIn(vis []shown, i int) bool {
	for _, l := range vis {
		if l.seg == i && l.kind != lineGap {
			return true
		}
	}
	return false
}
