package ui

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/ibid-dev/ibid/internal/argstub"
	"github.com/ibid-dev/ibid/store"
	"github.com/ibid-dev/ibid/ui/termimage"
	"github.com/ibid-dev/ibid/ui/termimage/termimagetest"
)

// pageRenderer stands in for the PDF engine's page renderer: every page
// is a small white PNG; it records the pages it drew and their marks.
type pageRenderer struct {
	mu    sync.Mutex
	png   []byte
	pages []int
	marks [][]store.Box
}

func newPageRenderer(t *testing.T) *pageRenderer {
	img := image.NewGray(image.Rect(0, 0, 90, 120))
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return &pageRenderer{png: b.Bytes()}
}

func (r *pageRenderer) render(_ context.Context, path string, page int, marks []store.Box) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pages, r.marks = append(r.pages, page), append(r.marks, marks)
	return r.png, nil
}

func (r *pageRenderer) drawn() ([]int, [][]store.Box) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]int(nil), r.pages...), append([][]store.Box(nil), r.marks...)
}

// citedBoxes are the boxes pdfFixture's cited passage (doc2:3, pp. 10–11)
// is drawn in.
var citedBoxes = []store.Box{{Page: 10, X0: 72, Y0: 500, X1: 540, Y1: 720}, {Page: 11, X0: 72, Y0: 72, X1: 540, Y1: 200}}

// pageChat opens pdfFixture's cited passage at 80×24 in a chat whose
// pages are drawn by r and shown on term.
func pageChat(t *testing.T, r *pageRenderer, term *termimagetest.Terminal, cache string) *teatest.TestModel {
	t.Helper()
	fb := newFakeBackend(sampleAnswer)
	pdfFixture(fb)
	fb.segs["doc2"][3].Boxes = citedBoxes
	opt := darkOpt()
	opt.LibraryPoll = -1
	opt.RenderPage, opt.OpenTerminal, opt.CacheDir = r.render, term.Open, cache
	tm := newTMOpt(t, fb, opt, 80, 24)
	askAndOpenFirst(t, tm)
	waitScreen(t, tm, "segment 4 of 6", "p. 10")
	return tm
}

// TestViewerPageInline: in kitty, i draws the cited passage's page (p. 10,
// the page of its first line in view) with its boxes, and shows it on the
// terminal, through the real program loop (tea.Exec); a key brings the
// viewer back as it was.
func TestViewerPageInline(t *testing.T) {
	t.Parallel()
	r := newPageRenderer(t)
	term := &termimagetest.Terminal{Answer: termimagetest.Kitty, Cols: 80, Rows: 24}
	tm := pageChat(t, r, term, t.TempDir())
	tm.Send(press("i"))
	waitFor(t, "the page shown and the screen left", func() bool {
		_, closed := term.Counts()
		return closed == 1
	})
	out := term.Written()
	for _, want := range []string{termimage.Query, "\x1b_Ga=T,f=100,q=2,", "[1] Paper 2, p. 10 · marked: the cited passage · any key returns", termimage.DeleteKitty} {
		if !strings.Contains(out, want) {
			t.Errorf("the terminal never got %q in %q", want, out[max(len(out)-300, 0):])
		}
	}
	if pages, marks := r.drawn(); !reflect.DeepEqual(pages, []int{10}) || !reflect.DeepEqual(marks, [][]store.Box{citedBoxes}) {
		t.Errorf("drew pages %v with marks %v, want p. 10 with the cited boxes", pages, marks)
	}
	// once the page is shown and the viewer back, the note is gone
	waitUntil(t, tm, "the viewer back, without the drawing note", func(scr string) bool {
		return strings.Contains(scr, "segment 4 of 6") && strings.Contains(scr, "p. 10") && !strings.Contains(scr, "drawing")
	})
	tm.Send(press("esc"))
	tm.Send(press("ctrl+c"))
}

// TestViewerPageToSystemViewer: in tmux, which shows no images, i writes
// the page to the cache folder and opens it with xdg-open, saying so; a
// second i does not ask the terminal again.
func TestViewerPageToSystemViewer(t *testing.T) {
	dir, _, record := argstub.Script(t, "xdg-open")
	t.Setenv("PATH", dir)
	r := newPageRenderer(t)
	term := &termimagetest.Terminal{Answer: termimagetest.Tmux, Cols: 80, Rows: 24}
	cache := t.TempDir()
	tm := pageChat(t, r, term, cache)
	tm.Send(press("i"))
	argstub.Wait(t, record)
	path := filepath.Join(cache, "pages", "doc2-p10.png")
	if got := argstub.Args(t, record); !reflect.DeepEqual(got, []string{path}) {
		t.Errorf("xdg-open got %q, want %q", got, path)
	}
	if data, err := os.ReadFile(path); err != nil || !bytes.Equal(data, r.png) {
		t.Errorf("the page at %s: %v", path, err)
	}
	waitScreen(t, tm, "shows no images", "opened with xdg-open")
	if term.Written() != termimage.Query {
		t.Errorf("drawn on a terminal that shows no images: %q", term.Written())
	}
	tm.Send(press("i"))
	waitFor(t, "xdg-open run twice", func() bool {
		b, _ := os.ReadFile(record)
		return strings.Count(string(b), "\n") == 2
	})
	if opened, _ := term.Counts(); opened != 1 {
		t.Errorf("the terminal was asked %d times, want once", opened)
	}
	tm.Send(press("esc"))
	tm.Send(press("ctrl+c"))
}

// waitFor waits up to ten seconds for cond.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for range 1000 {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("never: %s", what)
}

// TestViewerStatusClearsOnBack: what the viewer says on the status line
// is about its document and goes when the viewer closes; a message from
// before it opened stays.
func TestViewerStatusClearsOnBack(t *testing.T) {
	t.Parallel()
	d := newDrive(t, newFakeBackend(sampleAnswer), 80, 24)
	d.openFirstSource()
	d.send(press("i")) // the fake's documents are Markdown
	if !strings.Contains(d.screen(), "only a PDF has pages") {
		t.Fatalf("i on Markdown said nothing:\n%s", d.screen())
	}
	d.send(press("esc"))
	if scr := d.screen(); strings.Contains(scr, "only a PDF") {
		t.Errorf("the viewer's message stayed after it closed:\n%s", scr)
	}
	d.send(press("shift+tab")) // back to the input
	d.typeText("/frobnicate")
	d.send(press("enter"))
	d.send(press("tab"))
	d.send(press("]"))
	d.send(press("enter"))
	if !d.m.vw.IsOpen() {
		t.Fatalf("the viewer did not open again:\n%s", d.screen())
	}
	d.send(press("esc"))
	if scr := d.screen(); !strings.Contains(scr, "unknown command /frobnicate") {
		t.Errorf("the chat's own message went with the viewer:\n%s", scr)
	}
}
