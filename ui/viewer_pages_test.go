package ui

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/store"
)

// TestReflow: a source's hard line breaks inside a paragraph go, the
// paragraph is wrapped at the width, blank lines between paragraphs and
// code stay as they are, list items keep their own lines.
func TestReflow(t *testing.T) {
	text := "Retrieval-augmented models cite\nthe passages they\nused.\n\n\n\nA second\nparagraph.\n\n```go\nx :=  1\n\ny := 2\n```\n- one\n- two\ncontinued\n\n    indented\n    code"
	got := reflow(text, 20)
	want := []string{
		"Retrieval-augmented",
		"models cite the",
		"passages they used.",
		"",
		"A second paragraph.",
		"",
		"```go",
		"x :=  1",
		"",
		"y := 2",
		"```",
		"",
		"- one",
		"- two continued",
		"",
		"    indented",
		"    code",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("reflow:\n%q\nwant\n%q", got, want)
	}
	for _, w := range []int{10, 33, 80} {
		for _, l := range reflow(strings.Repeat("word ", 50)+"\nnext line", w) {
			if ansi.StringWidth(l) > w {
				t.Errorf("at %d: %q is wider", w, l)
			}
		}
	}
}

// TestPageMarker: a marker where a page begins at a segment, one naming
// the pages a spanning passage runs into, none inside a page.
func TestPageMarker(t *testing.T) {
	seg := func(s, e int) store.Segment { return store.Segment{PageStart: s, PageEnd: e} }
	p := func(s store.Segment) *store.Segment { return &s }
	for _, c := range []struct {
		s    store.Segment
		prev *store.Segment
		want string
	}{
		{seg(1, 1), nil, "p. 1"},
		{seg(3, 3), p(seg(2, 2)), "p. 3"},
		{seg(3, 4), p(seg(2, 2)), "pp. 3–4"},
		{seg(3, 4), p(seg(2, 3)), "into p. 4"},
		{seg(3, 3), p(seg(2, 3)), ""},
		{seg(3, 3), p(seg(3, 3)), ""},
		{seg(0, 0), nil, ""},
	} {
		if got := pageMarker(c.s, c.prev); got != c.want {
			t.Errorf("%v after %v: %q, want %q", c.s, c.prev, got, c.want)
		}
	}
}

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
		lines := laidOut(d.m.vw)
		for _, l := range lines {
			if t := strings.TrimSpace(ansi.Strip(l.drawn)); strings.HasPrefix(t, "── ") {
				markers = append(markers, strings.Trim(t, "─ "))
			}
		}
		if want := []string{"p. 9", "p. 10", "into p. 11", "p. 12"}; !reflect.DeepEqual(markers, want) {
			t.Errorf("%dx%d: page markers %q, want %q", w, h, markers, want)
		}
		for range 200 {
			d.send(press("up"))
		}
		scr = d.screen()
		if !strings.Contains(scr, "Passage 0 line 0") || !strings.Contains(headerOf(scr), "p. 9") {
			t.Errorf("%dx%d: scrolled to the top, want passage 0 and p. 9 in the header:\n%s", w, h, scr)
		}
		for range 200 {
			d.send(press("down"))
		}
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
