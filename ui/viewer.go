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
// the page of the first line in view, the section and number of the
// passage it belongs to), then the document from that line on, as many
// passages as fill the view, each reflowed to the width with a marker line
// where a page begins, inside a passage too when the document's page
// starts are known (viewer_blocks.go, viewer_pages.go,
// viewer_pagestarts.go). The cited passage is highlighted; the reader
// scrolls through the whole document, from its first line to its last;
// o opens the document where the view is (open.go).
//
// The view's position is (at, offset): at is the passage its first line
// belongs to, offset that line in at's block. Keys and the wheel move
// offset freely; where (viewer_place.go) settles it before anything reads
// it. The passage the view is on (on: ▌ marks it, the header names it) is
// at, or the one the reader jumped to (pick) until they scroll.
//
// Invariant: when open, len(segs) > 0, 0 <= at < len(segs), and cited
// indexes the cited segment in segs (or is -1 if it is not among them);
// once settled, 0 <= offset < len(block(at)), the view runs to the
// document's end only when the rest of the document does not fill it, and
// pick is -1 or a passage with a line in view.
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
	pick          int        // the passage jumped to (opened on, n, p) while the reader has not scrolled since; -1: none
	offset        int        // the view's first line in at's block; unsettled, it may run outside it (negative: above)
	cache         blockCache // the passages laid out at the current width
	// seekFocus asks the next settle to scroll to the cited segment's
	// focus (set when a source with one opens, done once).
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
	v.pageStarts, v.cache = m.pageStarts, blockCache{}
	v.cited, v.at, v.pick, v.seekFocus = -1, 0, -1, false
	for i, s := range m.segs {
		if s.ID == m.src.SegmentID {
			v.cited, v.at, v.pick, v.offset = i, i, i, startLine(i)
			_, _, v.seekFocus = focusIn(m.src, s.Text)
		}
	}
}

// Update handles the viewer's keys and the wheel.
func (v *viewer) Update(msg tea.Msg) (Pane, tea.Cmd) {
	if w, ok := msg.(tea.MouseWheelMsg); ok {
		v.seekFocus, v.pick = false, -1 // the reader scrolls from where the view is
		v.wheel(w.Mouse())
		return v, nil
	}
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return v, nil
	}
	return v, v.key(km)
}

// key handles a key; n and p move to the start of the passage after or
// before the one the view is on, o opens the document where the view is.
func (v *viewer) key(km tea.KeyPressMsg) tea.Cmd {
	k := v.c.Keys
	p, _, _ := v.where() // from where the view is now
	v.seekFocus = false  // the reader moves from where the view is
	switch {
	case key.Matches(km, k.Back):
		v.open = false
	case key.Matches(km, k.NextSeg):
		v.at = min(p.seg+1, len(v.segs)-1)
		v.offset, v.pick = startLine(v.at), v.at
	case key.Matches(km, k.PrevSeg):
		v.at = max(p.seg-1, 0)
		v.offset, v.pick = startLine(v.at), v.at
	case key.Matches(km, k.Up):
		v.offset, v.pick = v.offset-1, -1
	case key.Matches(km, k.Down):
		v.offset, v.pick = v.offset+1, -1
	case key.Matches(km, k.PageUp):
		v.offset, v.pick = v.offset-v.height/2, -1
	case key.Matches(km, k.PageDown):
		v.offset, v.pick = v.offset+v.height/2, -1
	case key.Matches(km, k.Edit):
		return openCmd(v.doc, openPlace{seg: v.segs[p.top], page: p.pStart, off: p.off}, v.programs)
	}
	return nil
}

// header is the viewer's top lines for a view at p: the page (or pages)
// of its first line, the section and number of the passage that line
// belongs to, and a note when the cited passage is out of view.
func (v *viewer) header(p viewPlace, citedInView bool) []string {
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
	if p.seg < len(v.segs) {
		s := v.segs[p.seg]
		if p.pStart > 0 {
			meta = append(meta, rag.Pages(p.pStart, p.pEnd))
		}
		if len(s.Section) > 0 {
			meta = append(meta, "§ "+strings.Join(s.Section, " › "))
		}
		meta = append(meta, fmt.Sprintf("segment %d of %d", p.seg+1, len(v.segs)))
		if !citedInView {
			meta = append(meta, "(not the cited one)")
		}
	}
	for _, l := range strings.Split(ansi.Wrap(strings.Join(meta, " · "), max(v.width, 10), " "), "\n") {
		out = append(out, st.Dim.Render(l))
	}
	return append(out, st.Border.Render(strings.Repeat("─", max(v.width, 1))))
}

// View draws the viewer over the whole body area: the header, then the
// lines from the view's first on (where settles them), filling the view
// while the document has text.
func (v *viewer) View() string {
	var lines []string
	if len(v.segs) > 0 {
		_, head, vis := v.where()
		lines = head
		for _, l := range vis {
			lines = append(lines, v.draw(l.seg, l.vline))
		}
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
