package ui

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/ibid-dev/ibid/rag"
)

// fixturePages are the pages of pdfFixture's segments.
var fixturePages = [][2]int{{9, 9}, {9, 9}, {10, 10}, {10, 11}, {11, 11}, {12, 12}}

// pdfFixture turns doc2 of the fake library into a PDF whose segments
// are three paragraphs of hard-wrapped lines on pages 9 to 12; the cited one (doc2:3) runs
// from page 10 onto page 11.
func pdfFixture(b *fakeBackend) {
	doc := b.docs["doc2"]
	doc.Format, doc.Path, doc.Pages = "pdf", "/papers/paper2.pdf", 12
	b.docs["doc2"] = doc
	for i := range b.segs["doc2"] {
		s := &b.segs["doc2"][i]
		s.PageStart, s.PageEnd = fixturePages[i][0], fixturePages[i][1]
		var lines []string
		for j := range 30 {
			lines = append(lines, fmt.Sprintf("Passage %d line %d: retrieval with citations ties each claim to its page", i, j))
		}
		s.Text = strings.Join(lines[:10], "\n") + "\n\n" + strings.Join(lines[10:20], "\n") + "\n\n" + strings.Join(lines[20:], "\n")
	}
}

// TestViewerPages: a PDF passage that spans two pages, with its
// neighbours: the text is reflowed to the width, page markers stand
// where pages begin, and the header's page follows the scroll.
func TestViewerPages(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		w, h := size[0], size[1]
		b := newFakeBackend(sampleAnswer)
		pdfFixture(b)
		d := newDrive(t, b, w, h)
		d.openFirstSource()
		scr := d.screen()
		golden(t, fmt.Sprintf("viewer_%dx%d", w, h), scr)
		if !strings.Contains(scr, "── into p. 11 ─") {
			t.Errorf("%dx%d: no marker for the page the passage runs into:\n%s", w, h, scr)
		}
		if !strings.Contains(scr, "its page Passage") { // a source line's end and the next one's start
			t.Errorf("%dx%d: the passage's lines were not joined:\n%s", w, h, scr)
		}
		if !strings.Contains(headerOf(scr), "pp. 10–11") {
			t.Errorf("%dx%d: header does not give the passage's pages:\n%s", w, h, headerOf(scr))
		}
		var markers []string
		lines := d.m.vw.Lines()
		for _, l := range lines {
			if t := strings.TrimSpace(ansi.Strip(l.Drawn)); strings.HasPrefix(t, "── ") {
				markers = append(markers, strings.Trim(t, "─ "))
			}
		}
		if want := []string{"p. 9", "p. 10", "into p. 11", "p. 12"}; !reflect.DeepEqual(markers, want) {
			t.Errorf("%dx%d: page markers %q, want %q", w, h, markers, want)
		}
		d.sendUntilStill(press("up"), 200)
		scr = d.screen()
		if !strings.Contains(scr, "Passage 0 line 0") || !strings.Contains(headerOf(scr), "p. 9") {
			t.Errorf("%dx%d: scrolled to the top, want passage 0 and p. 9 in the header:\n%s", w, h, scr)
		}
		d.sendUntilStill(press("down"), 200)
		scr = d.screen()
		var first int // the passage at the top of the view
		if _, err := fmt.Sscanf(scr[strings.Index(scr, "Passage "):], "Passage %d", &first); err != nil {
			t.Fatal(err)
		}
		if want := rag.Pages(fixturePages[first][0], fixturePages[first][1]); !strings.Contains(scr, "Passage 5 line 29") || !strings.Contains(headerOf(scr), want+" ·") {
			t.Errorf("%dx%d: scrolled to the end, passage %d on top, want %s in the header:\n%s", w, h, first, want, scr)
		}
	}
}

// headerOf is the viewer's header: the screen down to its first rule.
func headerOf(scr string) string {
	h, _, _ := strings.Cut(scr, "────────")
	return h
}
