package viewer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ibid-dev/ibid/internal/atomicfile"
	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/store"
	"github.com/ibid-dev/ibid/ui/render"
	"github.com/ibid-dev/ibid/ui/termimage"
)

// "The page as it looks": i draws the page in view with the cited
// passage's boxes marked (a RenderFunc: the PDF engine's, handed in by the
// command line), then shows it in the terminal where the terminal
// displays images (ui/termimage: asked once, the first time), or else
// writes it to the cache folder and opens it with the system's viewer.

// RenderFunc draws page (1-based) of the PDF at path as a PNG, with marks
// (store.Box rectangles; those on other pages ignored) drawn over it: the
// shape of the PDF engine's RenderPage, which the chat's caller hands in
// so that the viewer needs no PDF engine of its own.
type RenderFunc func(ctx context.Context, path string, page int, marks []store.Box) ([]byte, error)

// renderTimeout bounds drawing one page.
const renderTimeout = 30 * time.Second

// detectTimeout bounds waiting for the terminal's answers (termimage.Detect).
const detectTimeout = time.Second

// assumedCell is the cell size in pixels taken when the terminal does not
// say (only sixels need it; kitty and iTerm2 scale to cells themselves):
// xterm's default font, the smallest common cell, so that the picture
// fits whatever the real one is.
var assumedCell = [2]int{6, 13}

// Msg is a message of the viewer's own commands, which the chat hands
// back to the viewer's Update (a drawn page, how showing it went).
type Msg interface{ viewerMsg() }

func (PageMsg) viewerMsg()      {}
func (pageShownMsg) viewerMsg() {}
func (pageSavedMsg) viewerMsg() {}

// PageMsg carries a drawn page, or why it could not be drawn.
type PageMsg struct {
	png   []byte
	page  int
	doc   store.Document
	marks int // how many of the marks lie on the page
	err   error
}

// pageShownMsg says how showing a page in the terminal went: what the
// terminal answered (caps), whether the page was shown, and the error.
type pageShownMsg struct {
	caps  termimage.Caps
	shown bool
	msg   PageMsg
	err   error
}

// pageSavedMsg says where a page for the system's viewer was written
// (pageFile) and what opens it (argv); err, when the page could not be
// written or nothing opens it, is the status line's error.
type pageSavedMsg struct {
	path string
	page int
	argv []string
	err  error
}

// pageTarget is the page i shows and the marks on it: the page of the
// first line in view of the cited passage's focus, else of the cited
// passage, else of the view's first line; the cited passage's boxes.
func (v *Viewer) pageTarget() (page int, marks []store.Box) {
	p, _, vis := v.where()
	page = p.pStart
	for _, want := range []func(shown) bool{
		func(l shown) bool { return l.seg == v.cited && l.focus },
		func(l shown) bool { return l.seg == v.cited && l.kind == lineText },
	} {
		for _, l := range vis {
			if want(l) && l.pStart > 0 {
				return l.pStart, v.src.Boxes
			}
		}
	}
	if page < 1 && p.seg < len(v.segs) {
		page = v.segs[p.seg].PageStart
	}
	return page, v.src.Boxes
}

// pageKey starts drawing the page in view (i).
func (v *Viewer) pageKey() tea.Cmd {
	status := func(err error) tea.Cmd { return func() tea.Msg { return StatusMsg{Err: err} } }
	switch {
	case v.doc.Format != store.FormatPDF:
		return status(errors.New("only a PDF has pages to show as they look; o opens this document"))
	case v.settings.Render == nil:
		return status(errors.New("this ibid has no PDF engine to draw pages with"))
	case v.doc.Path == "":
		return status(errors.New("this source has no file to draw its page from"))
	}
	page, marks := v.pageTarget()
	if page < 1 {
		return status(errors.New("the passage in view has no page number to show"))
	}
	on := 0
	for _, m := range marks {
		if m.Page == page {
			on++
		}
	}
	doc, render := v.doc, v.settings.Render
	draw := func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), renderTimeout)
		defer cancel()
		png, err := render(ctx, doc.Path, page, marks)
		if err != nil {
			err = fmt.Errorf("couldn't draw %s of %s: %w", rag.Pages(page, 0), doc.Path, err)
		}
		return PageMsg{png: png, page: page, doc: doc, marks: on, err: err}
	}
	note := func() tea.Msg { return StatusMsg{Text: "drawing " + rag.Pages(page, 0) + " as it looks…"} }
	return tea.Sequence(note, draw)
}

// onPage shows a drawn page: in the terminal, unless it is known to show
// no images, where the page goes to the system's viewer.
func (v *Viewer) onPage(m PageMsg) tea.Cmd {
	if m.err != nil {
		return func() tea.Msg { return StatusMsg{Err: m.err} }
	}
	if v.caps != nil && v.caps.Protocol(v.settings.Terminal) == termimage.None {
		return v.pageFile(m)
	}
	s := &pageShow{msg: m, caps: v.caps, env: v.settings.Terminal, open: v.settings.OpenTerminal, caption: v.caption(m)}
	return tea.Exec(s, func(err error) tea.Msg { return pageShownMsg{caps: s.got, shown: s.shown, msg: m, err: err} })
}

// onShown keeps what the terminal answered, and sends a page it did not
// show to the system's viewer.
func (v *Viewer) onShown(m pageShownMsg) tea.Cmd {
	caps := m.caps
	v.caps = &caps
	switch {
	case m.err != nil:
		return func() tea.Msg { return StatusMsg{Err: fmt.Errorf("couldn't show the page: %w", m.err)} }
	case !m.shown:
		return v.pageFile(m.msg)
	}
	return func() tea.Msg { return StatusMsg{} }
}

// caption is the line under a page shown in the terminal.
func (v *Viewer) caption(m PageMsg) string {
	s := fmt.Sprintf("[%d] %s, %s", v.src.Number, cmp.Or(v.src.Title, m.doc.Title, filepath.Base(m.doc.Path)), rag.Pages(m.page, 0))
	switch {
	case m.marks > 0:
		s += " · marked: the cited passage"
	case len(v.src.Boxes) > 0:
		s += " · the cited passage is on another page"
	}
	return s + " · any key returns"
}

// pageFile writes the page to the cache folder, in a command (no I/O in
// Update), and finds the system's viewer to open it with (the opener o
// falls back on for PDFs: xdg-open, or open on macOS): onSaved opens it.
func (v *Viewer) pageFile(m PageMsg) tea.Cmd {
	if v.settings.CacheDir == "" {
		return func() tea.Msg { return StatusMsg{Err: errors.New("no cache folder to write the page to")} }
	}
	dir := filepath.Join(v.settings.CacheDir, "pages")
	path := filepath.Join(dir, fmt.Sprintf("%s-p%d.png", cmp.Or(m.doc.ID, "page"), m.page))
	env := osOpenEnv(v.settings.Open)
	return func() tea.Msg {
		err := os.MkdirAll(dir, 0o755)
		if err == nil {
			err = atomicfile.WriteFile(path, m.png, 0o644)
		}
		if err != nil {
			return pageSavedMsg{path: path, page: m.page, err: fmt.Errorf("couldn't save the page: %w", err)}
		}
		argv, err := systemOpener(path, env)
		if err != nil {
			err = fmt.Errorf("this terminal shows no images and %w; the page is at %s", err, path)
		}
		return pageSavedMsg{path: path, page: m.page, argv: argv, err: err}
	}
}

// onSaved opens a page written for the system's viewer, or says why not.
func (v *Viewer) onSaved(m pageSavedMsg) tea.Cmd {
	if m.err != nil {
		return func() tea.Msg { return StatusMsg{Err: m.err} }
	}
	argv, path := m.argv, m.path
	c := exec.Command(argv[0], argv[1:]...)
	return tea.ExecProcess(c, func(err error) tea.Msg {
		if err != nil {
			return StatusMsg{Err: fmt.Errorf("%s could not open the page (%w); it is at %s", argv[0], err, path)}
		}
		return StatusMsg{Text: "this terminal shows no images: " + rag.Pages(m.page, 0) + " opened with " + argv[0] + " from " + render.MiddleEllipsis(path, 60)}
	})
}
