package viewer

import (
	"cmp"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/store"
	"github.com/ibid-dev/ibid/ui/render"
	"github.com/ibid-dev/ibid/ui/termimage"
)

// Content is what the viewer shows: a source, its document and the
// document's passages, looked up by the chat in a command.
type Content struct {
	Source rag.Source
	Doc    store.Document
	// Segs are the document's passages (store.Passages: not its index
	// rows), in order; the cited one among them.
	Segs []store.Segment
	// PageStarts are where the document's pages begin in its text (a
	// PageFinder's in the chat), nil when not known.
	PageStarts []int
}

// Keys are the viewer's key bindings, taken from the chat's one keymap.
type Keys struct {
	Back, NextSeg, PrevSeg, Edit, Page key.Binding
	Up, Down, PageUp, PageDown, Help   key.Binding
}

// Settings are what the viewer is given of the world (it reads no
// environment): the programs o runs, and for i the PDF engine's page
// renderer, what the environment says of the terminal and the cache
// folder where a page goes when the terminal shows no images.
type Settings struct {
	Open     OpenSettings
	Render   RenderFunc // nil: i says this ibid cannot draw pages
	Terminal termimage.Env
	CacheDir string
	// OpenTerminal opens the terminal i asks and shows pages on (nil: the
	// controlling terminal, termimage.OpenTTY).
	OpenTerminal func() (termimage.Terminal, error)
}

// Styles are the viewer's styles, built by the chat from its theme.
type Styles struct {
	Head   lipgloss.Style // the title, ▌ and █ marks
	Cited  lipgloss.Style // the cited passage
	Focus  lipgloss.Style // the lines of the cited passage that matched best (rag.Source's focus)
	Other  lipgloss.Style // its neighbours
	On     lipgloss.Style // the passage the view is on, when not the cited one
	Border lipgloss.Style // rules and page markers
	Dim    lipgloss.Style // the header's line of pages, section and number

	HelpKey, HelpDesc lipgloss.Style // "esc back" in the header's corner
}

// StatusMsg is for the chat's status line: what the viewer is doing (Text)
// or why it could not (Err: o could not open the document, i could not
// draw the page). The zero value clears the line.
type StatusMsg struct {
	Text string
	Err  error
}

// Viewer shows a cited passage in its document: a header (title, path,
// the page of the first line in view, the section and number of the
// passage it belongs to), then the document from that line on, as many
// passages as fill the view, each reflowed to the width with a marker line
// where a page begins, inside a passage too when the document's page
// starts are known (blocks.go, pages.go,
// pagestarts.go). The cited passage is highlighted; the reader
// scrolls through the whole document, from its first line to its last;
// o opens the document where the view is (open.go). It is a pane of the
// chat (Update, View, SetSize, Focus, Blur, help.KeyMap) that the chat
// opens with Load; Back closes it.
//
// The view's position is (at, offset): at is the passage its first line
// belongs to, offset that line in at's block. Keys and the wheel move
// offset freely; where (place.go) settles it before anything reads
// it. The passage the view is on (on: ▌ marks it, the header names it) is
// at, or the one the reader jumped to (pick) until they scroll.
//
// Invariant: when open, len(segs) > 0, 0 <= at < len(segs), and cited
// indexes the cited segment in segs (or is -1 if it is not among them);
// once settled, 0 <= offset < len(block(at)), the view runs to the
// document's end only when the rest of the document does not fill it, and
// pick is -1 or a passage with a line in view.
type Viewer struct {
	keys          Keys
	st            Styles
	width, height int
	open          bool
	src           rag.Source
	doc           store.Document
	segs          []store.Segment
	pageStarts    []int // where the document's pages begin in its text; nil: not known
	settings      Settings
	at, cited     int
	pick          int        // the passage jumped to (opened on, n, p) while the reader has not scrolled since; -1: none
	offset        int        // the view's first line in at's block; unsettled, it may run outside it (negative: above)
	cache         blockCache // the passages laid out at the current width
	// seekFocus asks the next settle to scroll to the cited segment's
	// focus (set when a source with one opens, done once).
	seekFocus bool
	// caps is what the terminal answered when i first showed a page (nil:
	// not asked yet).
	caps *termimage.Caps
}

// New returns a closed viewer with the chat's keys and styles.
func New(keys Keys, st Styles, s Settings) *Viewer {
	if s.OpenTerminal == nil {
		s.OpenTerminal = openTTY
	}
	return &Viewer{keys: keys, st: st, settings: s, cited: -1, pick: -1}
}

// SetStyles follows the chat's theme.
func (v *Viewer) SetStyles(st Styles) { v.st = st }

// IsOpen reports whether the viewer shows a source (Load opened it, Back
// has not closed it since).
func (v *Viewer) IsOpen() bool { return v.open }

// Source is the source the viewer was opened on.
func (v *Viewer) Source() rag.Source { return v.src }

func (v *Viewer) SetSize(w, h int) { v.width, v.height = w, h }
func (v *Viewer) Focus() tea.Cmd   { return nil }
func (v *Viewer) Blur()            {}

func (v *Viewer) ShortHelp() []key.Binding {
	k := v.keys
	return []key.Binding{k.Back, k.NextSeg, k.PrevSeg, k.Edit, k.Page, k.Up, k.Down, k.Help}
}

func (v *Viewer) FullHelp() [][]key.Binding {
	k := v.keys
	pair := func(a, b key.Binding) key.Binding {
		return key.NewBinding(key.WithKeys(append(a.Keys(), b.Keys()...)...),
			key.WithHelp(a.Help().Key+" "+b.Help().Key, "scroll"))
	}
	return [][]key.Binding{{pair(k.Up, k.Down), pair(k.PageUp, k.PageDown), k.NextSeg, k.PrevSeg, k.Edit, k.Page, k.Back}}
}

// Load opens the viewer on c: at the cited passage, scrolled to its focus
// when it has one. c.Segs must not be empty.
func (v *Viewer) Load(c Content) {
	v.open, v.src, v.doc, v.segs, v.offset = true, c.Source, c.Doc, c.Segs, 0
	v.pageStarts, v.cache = c.PageStarts, blockCache{}
	v.cited, v.at, v.pick, v.seekFocus = -1, 0, -1, false
	for i, s := range c.Segs {
		if s.ID == c.Source.SegmentID {
			v.cited, v.at, v.pick, v.offset = i, i, i, startLine(i)
			_, _, v.seekFocus = focusIn(c.Source, s.Text)
		}
	}
}

// wheelLines is how far one wheel notch scrolls, as in the chat's panes.
const wheelLines = 3

func (v *Viewer) wheel(m tea.Mouse) {
	switch m.Button {
	case tea.MouseWheelUp:
		v.offset -= wheelLines
	case tea.MouseWheelDown:
		v.offset += wheelLines
	}
}

// Update handles the viewer's keys and the wheel.
func (v *Viewer) Update(msg tea.Msg) (*Viewer, tea.Cmd) {
	if w, ok := msg.(tea.MouseWheelMsg); ok {
		v.seekFocus, v.pick = false, -1 // the reader scrolls from where the view is
		v.wheel(w.Mouse())
		return v, nil
	}
	switch msg := msg.(type) {
	case PageMsg:
		return v, v.onPage(msg)
	case pageShownMsg:
		return v, v.onShown(msg)
	case pageSavedMsg:
		return v, v.onSaved(msg)
	case tea.KeyPressMsg:
		return v, v.key(msg)
	}
	return v, nil
}

// key handles a key; n and p move to the start of the passage after or
// before the one the view is on, o opens the document where the view is.
func (v *Viewer) key(km tea.KeyPressMsg) tea.Cmd {
	k := v.keys
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
		return openCmd(v.doc, openPlace{seg: v.segs[p.top], page: p.pStart, off: p.off}, v.settings.Open)
	case key.Matches(km, k.Page):
		return v.pageKey()
	}
	return nil
}

// header is the viewer's top lines for a view at p: the page (or pages)
// of its first line, the section and number of the passage that line
// belongs to, and a note when the cited passage is out of view.
func (v *Viewer) header(p viewPlace, citedInView bool) []string {
	st := v.st
	title := v.src.Title
	if title == "" {
		title = v.doc.Title
	}
	// "esc back" stays in the corner whatever the width: the title gives way
	back := v.keys.Back.Help()
	hint := st.HelpKey.Render(back.Key) + " " + st.HelpDesc.Render(back.Desc)
	hw := ansi.StringWidth(back.Key + " " + back.Desc)
	if ay := v.src.AuthorYear(); ay != "" {
		title = ay + " — " + title // a work of the bibliography
	}
	head := render.Shorten(fmt.Sprintf("[%d] %s", v.src.Number, title), max(v.width-hw-2, 1))
	out := []string{st.Head.Render(head) + strings.Repeat(" ", max(v.width-ansi.StringWidth(head)-hw, 1)) + hint}
	if loc := hyperlink(cmp.Or(v.src.Path, v.doc.Path), v.src.URL, v.width); loc != "" {
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
func (v *Viewer) View() string {
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
		return ansi.SetHyperlink(url) + render.MiddleEllipsis(url, width) + ansi.ResetHyperlink()
	case path != "":
		return ansi.SetHyperlink("file://"+path) + render.MiddleEllipsis(path, width) + ansi.ResetHyperlink()
	}
	return ""
}
