package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/store"
)

// viewerContext is how many segments the viewer shows on each side of the
// one it is on.
const viewerContext = 2

// openSourceMsg asks the root to open the viewer on a source.
type openSourceMsg struct{ src rag.Source }

// viewerLoadedMsg carries what the viewer shows, looked up in a command.
type viewerLoadedMsg struct {
	src  rag.Source
	doc  store.Document
	segs []store.Segment
	// pageStarts are where the document's pages begin in its text (a
	// PageFinder's), nil when not known.
	pageStarts []int
	err        error
}

// editorDoneMsg says the program o started (an editor, a PDF viewer)
// returned.
type editorDoneMsg struct{ err error }

func openSourceCmd(tu *turn, nd node) tea.Cmd {
	src, ok := tu.source(nd.num, nd.kind == nodeInferred)
	if !ok || nd.kind == nodeUnknown {
		return func() tea.Msg {
			return statusMsg{err: fmt.Errorf("reference [%d] has no source to open (the model cited an id it was not offered)", nd.num)}
		}
	}
	return func() tea.Msg { return openSourceMsg{src} }
}

// loadSourceCmd looks up the segment, its document's passages (not its
// index rows) and, from a PageFinder, where the document's pages begin.
func loadSourceCmd(b Backend, src rag.Source) tea.Cmd {
	return func() tea.Msg {
		seg, doc, ok := b.Segment(src.SegmentID)
		if !ok {
			return viewerLoadedMsg{src: src, err: fmt.Errorf("segment %s is no longer in the library; add the document again to view it", src.SegmentID)}
		}
		segs := store.Passages(b.Segments(doc.ID)) // the viewer reads passages; index rows follow them
		if len(segs) == 0 {
			segs = []store.Segment{seg}
		}
		var pages []int
		if pf, ok := b.(PageFinder); ok && doc.Pages > 0 {
			pages = pf.DocumentPages(doc.ID)
		}
		return viewerLoadedMsg{src: src, doc: doc, segs: segs, pageStarts: pages}
	}
}

// viewer shows a cited passage in its document: a header (title, path,
// the page of the first line in view, section), the cited segment
// highlighted, neighbours around it, reflowed to the width with a marker
// line where a page begins, inside a passage too when the document's page
// starts are known (viewer_pages.go, viewer_pagestarts.go); o opens the document at the
// passage (open.go).
//
// Invariant: when open, 0 <= at < len(segs) and cited indexes the cited
// segment in segs (or -1 if it is not among them).
type viewer struct {
	c             *Common
	width, height int
	open          bool
	src           rag.Source
	doc           store.Document
	segs          []store.Segment
	pageStarts    []int        // where the document's pages begin in its text; nil: not known
	programs      OpenSettings // what o runs (Options.Open)
	at, cited     int
	offset        int // first line shown, from the current segment's first line (its page marker, if any; negative: context above); View clamps it
	// seekFocus asks the next View to scroll to the cited segment's focus
	// (set when a source with one opens, done once).
	seekFocus bool
}

func (v *viewer) SetSize(w, h int) { v.width, v.height = w, h }
func (v *viewer) Focus() tea.Cmd   { return nil }
func (v *viewer) Blur()            {}

func (v *viewer) ShortHelp() []key.Binding {
	k := v.c.Keys
	return []key.Binding{k.Back, k.NextSeg, k.PrevSeg, k.Edit, k.Up, k.Down, k.Help}
}

func (v *viewer) FullHelp() [][]key.Binding {
	k := v.c.Keys
	pair := func(a, b key.Binding) key.Binding {
		return key.NewBinding(key.WithKeys(append(a.Keys(), b.Keys()...)...),
			key.WithHelp(a.Help().Key+" "+b.Help().Key, "scroll"))
	}
	return [][]key.Binding{{pair(k.Up, k.Down), pair(k.PageUp, k.PageDown), k.NextSeg, k.PrevSeg, k.Edit, k.Back}}
}

func (v *viewer) load(m viewerLoadedMsg) {
	v.open, v.src, v.doc, v.segs, v.offset = true, m.src, m.doc, m.segs, 0
	v.pageStarts = m.pageStarts
	v.cited, v.at, v.seekFocus = -1, 0, false
	for i, s := range m.segs {
		if s.ID == m.src.SegmentID {
			v.cited, v.at = i, i
			_, _, v.seekFocus = focusIn(m.src, s.Text)
		}
	}
}

// Update handles the viewer's keys and the wheel.
func (v *viewer) Update(msg tea.Msg) (Pane, tea.Cmd) {
	if w, ok := msg.(tea.MouseWheelMsg); ok {
		v.seekFocus = false // the reader scrolls from where the view is
		v.wheel(w.Mouse())
		return v, nil
	}
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return v, nil
	}
	return v, v.key(km)
}

func (v *viewer) key(km tea.KeyPressMsg) tea.Cmd {
	k := v.c.Keys
	v.seekFocus = false // the reader moves from where the view is
	switch {
	case key.Matches(km, k.Back):
		v.open = false
	case key.Matches(km, k.NextSeg):
		v.at, v.offset = min(v.at+1, len(v.segs)-1), 0
	case key.Matches(km, k.PrevSeg):
		v.at, v.offset = max(v.at-1, 0), 0
	case key.Matches(km, k.Up):
		v.offset--
	case key.Matches(km, k.Down):
		v.offset++
	case key.Matches(km, k.PageUp):
		v.offset -= v.height / 2
	case key.Matches(km, k.PageDown):
		v.offset += v.height / 2
	case key.Matches(km, k.Edit):
		if v.at < len(v.segs) {
			return openCmd(v.doc, v.segs[v.at], v.programs)
		}
	}
	return nil
}

// header is the viewer's top lines; pages is the page (or pages) of the
// first line in view, "" when the document has none.
func (v *viewer) header(pages string) []string {
	st := v.c.Styles
	title := v.src.Title
	if title == "" {
		title = v.doc.Title
	}
	// "esc back" stays in the corner whatever the width: the title gives way
	back := v.c.Keys.Back.Help()
	hint := st.Help.ShortKey.Render(back.Key) + " " + st.Help.ShortDesc.Render(back.Desc)
	hw := ansi.StringWidth(back.Key + " " + back.Desc)
	head := shorten(fmt.Sprintf("[%d] %s", v.src.Number, title), max(v.width-hw-2, 1))
	out := []string{st.ViewerHead.Render(head) + strings.Repeat(" ", max(v.width-ansi.StringWidth(head)-hw, 1)) + hint}
	if loc := hyperlink(firstNonEmpty(v.src.Path, v.doc.Path), v.src.URL, v.width); loc != "" {
		out = append(out, loc)
	}
	var meta []string
	if v.at < len(v.segs) {
		s := v.segs[v.at]
		if pages != "" {
			meta = append(meta, pages)
		}
		if len(s.Section) > 0 {
			meta = append(meta, "§ "+strings.Join(s.Section, " › "))
		}
		meta = append(meta, fmt.Sprintf("segment %d of %d", v.at+1, len(v.segs)))
		if v.at != v.cited {
			meta = append(meta, "(not the cited one)")
		}
	}
	for _, l := range strings.Split(ansi.Wrap(strings.Join(meta, " · "), max(v.width, 10), " "), "\n") {
		out = append(out, st.Dim.Render(l))
	}
	return append(out, st.Border.Render(strings.Repeat("─", max(v.width, 1))))
}

// View draws the viewer over the whole body area. The offset counts from
// the current segment's first line (its page marker, when it has one) and
// is clamped here; the header's page is that of the first line in view.
// Opened on a source with a focus, the first View scrolls to it.
func (v *viewer) View() string {
	body, starts, lo := v.layout()
	est := "" // the header's height, with the current segment's pages
	if v.at < len(v.segs) {
		est = rag.Pages(v.segs[v.at].PageStart, v.segs[v.at].PageEnd)
	}
	h := max(v.height-len(v.header(est)), 1)
	start := 0
	if v.at-lo < len(starts) {
		start = starts[v.at-lo]
	}
	if v.seekFocus { // the focus's first line a third down the view
		v.seekFocus = false
		first, n := -1, 0
		for i, l := range body {
			if l.focus {
				if first < 0 {
					first = i
				}
				n = i - first + 1
			}
		}
		if first >= 0 {
			v.offset = first - focusRow(n, h) - start
		}
	}
	off := max(min(start+v.offset, len(body)-h), 0)
	v.offset = off - start // from the current segment's start; negative: the context above it
	vis := body[min(off, len(body)):]
	if len(vis) > h {
		vis = vis[:h]
	}
	pages := ""
	if len(vis) > 0 {
		pages = rag.Pages(vis[0].pStart, vis[0].pEnd)
	}
	lines := v.header(pages)
	for _, l := range vis {
		lines = append(lines, l.text)
	}
	for len(lines) < v.height {
		lines = append(lines, "")
	}
	if len(lines) > v.height {
		lines = lines[:v.height]
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > v.width {
			lines[i] = ansi.Truncate(l, v.width, "…")
		}
	}
	return strings.Join(lines, "\n")
}

// hyperlink draws a path or URL as an OSC 8 terminal hyperlink, shortened
// in the middle to width.
func hyperlink(path, url string, width int) string {
	switch {
	case url != "":
		return ansi.SetHyperlink(url) + middleEllipsis(url, width) + ansi.ResetHyperlink()
	case path != "":
		return ansi.SetHyperlink("file://"+path) + middleEllipsis(path, width) + ansi.ResetHyperlink()
	}
	return ""
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
