package viewer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/ibid-dev/ibid/internal/argstub"
	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/store"
	"github.com/ibid-dev/ibid/ui/termimage"
	"github.com/ibid-dev/ibid/ui/termimage/termimagetest"
)

// pagePNG is a small page, 120×160 pixels, white with a dark line.
func pagePNG(t testing.TB) []byte {
	img := image.NewGray(image.Rect(0, 0, 120, 160))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	for x := 10; x < 110; x++ {
		img.SetGray(x, 40, color.Gray{})
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// renderCall is what a fake renderer was asked.
type renderCall struct {
	path  string
	page  int
	marks []store.Box
}

// fakeRender draws every page as png, or fails with err; it records what
// it was asked.
type fakeRender struct {
	mu    sync.Mutex
	png   []byte
	err   error
	calls []renderCall
}

func (f *fakeRender) render(_ context.Context, path string, page int, marks []store.Box) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, renderCall{path, page, marks})
	return f.png, f.err
}

// boxA and boxB are the cited passage's boxes, on pages 2 and 3.
var (
	boxA = store.Box{Page: 2, X0: 72, Y0: 600, X1: 540, Y1: 700}
	boxB = store.Box{Page: 3, X0: 72, Y0: 80, X1: 540, Y1: 160}
)

// pdfContent is a PDF of four passages of 30 lines each, on pages 1 to 3:
// the cited one (d:2) begins on p. 2 and its second half is on p. 3,
// where its focus is.
func pdfContent(doc store.Document) Content {
	var segs []store.Segment
	var text strings.Builder
	var starts []int
	for i := range 4 {
		var lines []string
		for j := range 30 {
			lines = append(lines, fmt.Sprintf("Passage %d line %d: the page as it looks, with the sentence marked.", i, j))
		}
		body := strings.Join(lines[:15], "\n") + "\n\n" + strings.Join(lines[15:], "\n")
		if i > 0 {
			text.WriteString("\n\n")
		}
		start := text.Len()
		ps, pe := []int{1, 2, 2, 3}[i], []int{1, 2, 3, 3}[i]
		switch i {
		case 0:
			starts = append(starts, 0)
		case 1:
			starts = append(starts, start)
		case 2:
			starts = append(starts, start+strings.Index(body, "Passage 2 line 15"))
		}
		segs = append(segs, store.Segment{ID: fmt.Sprintf("d:%d", i), DocumentID: "d", Index: i, Text: body,
			PageStart: ps, PageEnd: pe, Start: start, End: start + len(body)})
		text.WriteString(body)
	}
	cited := segs[2]
	fs := strings.Index(cited.Text, "Passage 2 line 20")
	src := rag.Source{Number: 2, SegmentID: cited.ID, Title: doc.Title, FocusStart: fs, FocusEnd: fs + 60, Boxes: []store.Box{boxA, boxB}}
	return Content{Source: src, Doc: doc, Segs: segs, PageStarts: starts}
}

var paperPDF = store.Document{ID: "d", Path: "/papers/paper.pdf", Format: store.FormatPDF, Title: "Paper", Pages: 3}

// flatten runs cmd and the commands its batches and sequences hold, in
// order, and returns their messages.
func flatten(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, flatten(c)...)
		}
		return out
	}
	if v := reflect.ValueOf(msg); v.Kind() == reflect.Slice && strings.HasSuffix(v.Type().Name(), "sequenceMsg") {
		var out []tea.Msg
		for i := range v.Len() {
			out = append(out, flatten(v.Index(i).Interface().(tea.Cmd))...)
		}
		return out
	}
	return []tea.Msg{msg}
}

// pageViewer is a viewer at 80×24 open on pdfContent, drawing with r.
func pageViewer(r *fakeRender, s Settings) *Viewer {
	if r != nil {
		s.Render = r.render
	}
	v := New(testKeys(), testStyles(), s)
	v.SetSize(80, 24)
	v.Load(pdfContent(paperPDF))
	v.View()
	return v
}

// TestPageKeyDraws: i draws the page of the cited passage's focus (p. 3)
// with the passage's boxes, saying so on the status line first; moved to
// the first passage, where no line of the cited one is in view, the page
// of the line on top (p. 1), whose caption then says the cited passage is
// elsewhere.
func TestPageKeyDraws(t *testing.T) {
	r := &fakeRender{png: pagePNG(t)}
	v := pageViewer(r, Settings{})
	msgs := flatten(v.key(press("i")))
	if len(msgs) != 2 {
		t.Fatalf("i gave %d messages, want a status and a page: %v", len(msgs), msgs)
	}
	if s, ok := msgs[0].(StatusMsg); !ok || s.Text != "drawing p. 3 as it looks…" {
		t.Errorf("first %#v, want the drawing note", msgs[0])
	}
	pm, ok := msgs[1].(PageMsg)
	if !ok || pm.err != nil || pm.page != 3 || pm.marks != 1 || !bytes.Equal(pm.png, r.png) {
		t.Fatalf("page message %+v", msgs[1])
	}
	if want := (renderCall{"/papers/paper.pdf", 3, []store.Box{boxA, boxB}}); !reflect.DeepEqual(r.calls, []renderCall{want}) {
		t.Errorf("renderer asked %+v, want %+v", r.calls, want)
	}
	if c := v.caption(pm); c != "[2] Paper, p. 3 · marked: the cited passage · any key returns" {
		t.Errorf("caption %q", c)
	}

	v.key(press("p"))
	v.key(press("p"))
	msgs = flatten(v.key(press("i")))
	pm = msgs[len(msgs)-1].(PageMsg)
	if pm.page != 1 || pm.marks != 0 {
		t.Errorf("on the first passage: p. %d with %d marks, want p. 1 and none", pm.page, pm.marks)
	}
	if c := v.caption(pm); !strings.Contains(c, "the cited passage is on another page") {
		t.Errorf("caption %q", c)
	}
}

// TestPageKeyRefuses: a document that is not a PDF, a viewer without a
// renderer and a renderer that fails each say so on the status line.
func TestPageKeyRefuses(t *testing.T) {
	errOf := func(v *Viewer) string {
		msgs := flatten(v.key(press("i")))
		for _, m := range msgs {
			if s, ok := m.(StatusMsg); ok && s.Err != nil {
				return s.Err.Error()
			}
			if p, ok := m.(PageMsg); ok {
				if _, ok := flatten(v.onPage(p))[0].(StatusMsg); ok && p.err != nil {
					return p.err.Error()
				}
			}
		}
		return ""
	}
	md := New(testKeys(), testStyles(), Settings{Render: (&fakeRender{}).render})
	md.SetSize(80, 24)
	md.Load(paperContent(store.Document{ID: "doc2", Path: "/notes/a.md", Format: store.FormatMarkdown}, "doc2:3"))
	if got := errOf(md); !strings.Contains(got, "only a PDF has pages") {
		t.Errorf("Markdown: %q", got)
	}
	if got := errOf(pageViewer(nil, Settings{})); !strings.Contains(got, "no PDF engine") {
		t.Errorf("no renderer: %q", got)
	}
	if got := errOf(pageViewer(&fakeRender{err: errors.New("boom")}, Settings{})); got != "couldn't draw p. 3 of /papers/paper.pdf: boom" {
		t.Errorf("a failing renderer: %q", got)
	}
}

// show runs what onPage runs in the chat's place (tea.Exec's command),
// then hands its result back as the chat would, and returns the commands
// that follow.
func show(t *testing.T, v *Viewer, pm PageMsg) (s *pageShow, next tea.Cmd) {
	t.Helper()
	if v.caps != nil && v.caps.Protocol(v.settings.Terminal) == termimage.None {
		t.Fatal("show called where the terminal is known to show nothing")
	}
	s = &pageShow{msg: pm, caps: v.caps, env: v.settings.Terminal, open: v.settings.OpenTerminal, caption: v.caption(pm)}
	err := s.Run()
	return s, v.onShown(pageShownMsg{caps: s.got, shown: s.shown, msg: pm, err: err})
}

// TestPageShownInline: in kitty the page is drawn with Kitty's protocol on
// a screen of its own, sized to the cells the terminal gave, the caption on
// the last row; a key returns, the image is deleted and the screen left.
// The terminal is asked once: the second page is drawn without asking.
// xterm as a VT340 gets sixels, fitted to the cell size assumed.
func TestPageShownInline(t *testing.T) {
	r := &fakeRender{png: pagePNG(t)}
	term := &termimagetest.Terminal{Answer: termimagetest.Kitty, Cols: 80, Rows: 24}
	v := pageViewer(r, Settings{OpenTerminal: term.Open})
	pm := flatten(v.key(press("i")))[1].(PageMsg)
	if typ, _ := execOf(v.onPage(pm)); typ != "*viewer.pageShow" {
		t.Errorf("onPage runs %s, want the page shown in the terminal", typ)
	}
	s, next := show(t, v, pm)
	out := term.Written()
	if _, closed := term.Counts(); !s.shown || !s.got.Kitty || closed != 1 {
		t.Fatalf("shown %v, caps %+v, closed %d", s.shown, s.got, closed)
	}
	// 120×160 px into 80×23 cells of 9×18: 311×414 px, 35×23 cells
	head := fmt.Sprintf("\x1b_Ga=T,f=100,q=2,i=%d,c=35,r=23,", termimage.KittyImageID)
	caption := "\x1b[24;1H\x1b[2K[2] Paper, p. 3 · marked: the cited passage · any key returns"
	steps := []string{termimage.Query, enterScreen + clearScreen, head, caption, termimage.DeleteKitty + clearScreen + leaveScreen}
	at := 0
	for _, st := range steps {
		i := strings.Index(out[at:], st)
		if i < 0 {
			t.Fatalf("the terminal did not get %q after byte %d:\n%q", st, at, out)
		}
		at += i + len(st)
	}
	if at != len(out) {
		t.Errorf("written after leaving the screen: %q", out[at:])
	}
	if msgs := flatten(next); len(msgs) != 1 || msgs[0] != (StatusMsg{}) {
		t.Errorf("after showing: %v, want the status cleared", msgs)
	}
	term.Reset()
	if s, _ = show(t, v, pm); !s.shown || strings.Contains(term.Written(), termimage.Query) {
		t.Errorf("the second page asked the terminal again, or was not shown")
	}

	sixel := &termimagetest.Terminal{Answer: termimagetest.XTermVT340, Cols: 80, Rows: 24}
	v = pageViewer(r, Settings{OpenTerminal: sixel.Open})
	if s, _ := show(t, v, pm); !s.shown || !strings.Contains(sixel.Written(), "\x1bP0;1;0q\"1;1;") {
		t.Fatalf("xterm: shown %v, %q…", s.shown, sixel.Written()[:min(len(sixel.Written()), 200)])
	}
	// 80×23 cells of the assumed 6×13 px hold 120×160 px as 224×299
	if !strings.Contains(sixel.Written(), "\"1;1;224;299#") {
		t.Errorf("the sixel image is not fitted to the assumed cells")
	}
}

// saved runs pageFile's command (it writes the page) and hands its
// message to the viewer's Update, as the chat would: the commands that
// follow.
func saved(t *testing.T, v *Viewer, cmd tea.Cmd) tea.Cmd {
	t.Helper()
	msg, ok := cmd().(pageSavedMsg)
	if !ok {
		t.Fatalf("the command gave %T, want the page saved", msg)
	}
	_, next := v.Update(msg)
	return next
}

// TestPageToSystemViewer: where the terminal shows no images (tmux), the
// page is written to the cache folder (by a command, not in Update) and
// opened with xdg-open; the terminal is not asked again. Without xdg-open
// the status line says where the page is.
func TestPageToSystemViewer(t *testing.T) {
	dir, _, record := argstub.Script(t, "xdg-open")
	t.Setenv("PATH", dir)
	r := &fakeRender{png: pagePNG(t)}
	term := &termimagetest.Terminal{Answer: termimagetest.Tmux, Cols: 80, Rows: 24}
	cache := t.TempDir()
	v := pageViewer(r, Settings{OpenTerminal: term.Open, CacheDir: cache})
	pm := flatten(v.key(press("i")))[1].(PageMsg)
	s, write := show(t, v, pm)
	if _, closed := term.Counts(); s.shown || term.Written() != termimage.Query || closed != 1 {
		t.Fatalf("tmux: shown %v, wrote %q, closed %d", s.shown, term.Written(), closed)
	}
	path := filepath.Join(cache, "pages", "d-p3.png")
	if _, err := os.Stat(path); err == nil {
		t.Fatal("the page was written before its command ran (in Update)")
	}
	next := saved(t, v, write)
	if data, err := os.ReadFile(path); err != nil || !bytes.Equal(data, r.png) {
		t.Fatalf("the page is not at %s: %v", path, err)
	}
	if _, args := execOf(next); !reflect.DeepEqual(args, []string{"xdg-open", path}) {
		t.Errorf("ran %q, want xdg-open on the page", args)
	}
	argv, err := systemOpener(path, osOpenEnv(v.settings.Open))
	if err != nil {
		t.Fatal(err)
	}
	runArgv(t, argv, path)
	if got := argstub.Args(t, record); !reflect.DeepEqual(got, []string{path}) {
		t.Errorf("xdg-open got %q", got)
	}
	if _, args := execOf(saved(t, v, v.onPage(pm))); len(args) == 0 || args[0] != "xdg-open" {
		t.Errorf("the second page: %q, want xdg-open", args)
	}
	if opened, _ := term.Counts(); opened != 1 {
		t.Errorf("the terminal was opened %d times, want once", opened)
	}

	t.Setenv("PATH", t.TempDir())
	msgs := flatten(saved(t, v, v.onPage(pm)))
	if s, ok := msgs[0].(StatusMsg); !ok || s.Err == nil || !strings.Contains(s.Err.Error(), "no xdg-open") || !strings.Contains(s.Err.Error(), path) {
		t.Errorf("without xdg-open: %v", msgs)
	}
}

// execOf is what cmd, tea.Exec's or tea.ExecProcess's, runs: the type of
// its command and, for a process, its arguments.
func execOf(cmd tea.Cmd) (typ string, args []string) {
	v := reflect.ValueOf(cmd())
	if v.Kind() != reflect.Struct || v.NumField() == 0 {
		return v.Type().String(), nil
	}
	c := v.Field(0).Elem()
	typ = c.Type().String()
	if c.Kind() == reflect.Pointer && c.Elem().Kind() == reflect.Struct {
		if ec := c.Elem().Field(0); ec.Type().String() == "*exec.Cmd" {
			a := ec.Elem().FieldByName("Args")
			for i := range a.Len() {
				args = append(args, a.Index(i).String())
			}
		}
	}
	return typ, args
}
