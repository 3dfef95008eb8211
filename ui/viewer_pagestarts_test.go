package ui

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// pageFinderBackend is the fake backend with a document's page starts.
type pageFinderBackend struct {
	*fakeBackend
	starts map[string][]int
}

func (b pageFinderBackend) DocumentPages(docID string) []int { return b.starts[docID] }

// pdfFixtureStarts gives pdfFixture's segments offsets in a text where
// they stand one blank line apart, and the pages' starts in it: pages 1 to
// 9 at 0, 10 and 12 where segments 2 and 5 begin, and 11 inside the cited
// segment (doc2:3), in the middle of the word "Passage" that begins its
// line 15.
func pdfFixtureStarts(b *fakeBackend) []int {
	segs, off := b.segs["doc2"], 0
	for i := range segs {
		segs[i].Start, segs[i].End = off, off+len(segs[i].Text)
		off = segs[i].End + 2
	}
	p11 := segs[3].Start + strings.Index(segs[3].Text, "Passage 3 line 15:") + 3
	return []int{0, 0, 0, 0, 0, 0, 0, 0, 0, segs[2].Start, p11, segs[5].Start}
}

// TestViewerPageStarts: with the document's page starts the viewer draws
// the marker of the page that begins inside the cited passage at the line
// where it begins (between two words, none cut), no marker for the
// passage as a whole, and the header names the page of the line at the top
// as the view scrolls past the marker.
func TestViewerPageStarts(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		w, h := size[0], size[1]
		fb := newFakeBackend(sampleAnswer)
		pdfFixture(fb)
		b := pageFinderBackend{fb, map[string][]int{"doc2": pdfFixtureStarts(fb)}}
		d := newDrive(t, b, w, h)
		d.openFirstSource()
		scr := d.screen()
		golden(t, fmt.Sprintf("viewer_%dx%d", w, h), scr)
		if !strings.Contains(headerOf(scr), "p. 10 ·") {
			t.Errorf("%dx%d: the view opens on the cited passage's first line, on p. 10:\n%s", w, h, headerOf(scr))
		}

		lines := d.m.vw.Lines()
		var markers []string
		at11 := -1
		for i, l := range lines {
			if t := strings.TrimLeft(ansi.Strip(l.Drawn), "▌ "); strings.HasPrefix(t, "── ") {
				markers = append(markers, strings.Trim(t, "─ "))
				if strings.HasPrefix(t, "── p. 11 ") {
					at11 = i
				}
			}
		}
		if want := []string{"p. 9", "p. 10", "p. 11", "p. 12"}; !reflect.DeepEqual(markers, want) {
			t.Fatalf("%dx%d: page markers %q, want %q", w, h, markers, want)
		}
		before := strings.TrimSpace(ansi.Strip(lines[at11-1].Drawn))
		after := strings.TrimLeft(ansi.Strip(lines[at11+1].Drawn), "▌ ")
		if !strings.HasSuffix(before, " Passage") || !strings.HasPrefix(after, "3 line 15: ") {
			t.Errorf("%dx%d: p. 11 is marked between %q and %q, want between \"…Passage\" and \"3 line 15: …\"", w, h, before, after)
		}
		if p := lines[at11-1]; p.PageStart != 10 || p.PageEnd != 10 {
			t.Errorf("%dx%d: the line before p. 11's marker is on pp. %d–%d, want p. 10", w, h, p.PageStart, p.PageEnd)
		}
		if p := lines[at11+1]; p.PageStart != 11 || p.PageEnd != 11 {
			t.Errorf("%dx%d: the line after p. 11's marker is on pp. %d–%d, want p. 11", w, h, p.PageStart, p.PageEnd)
		}

		// scroll until the marker is the top line: the header turns to p. 11
		var top string
		for range 200 {
			scr = d.screen()
			top = strings.Split(scr, "\n")[len(strings.Split(headerOf(scr), "\n"))]
			if strings.Contains(top, "── p. 11 ") {
				break
			}
			d.send(press("down"))
		}
		if !strings.Contains(top, "── p. 11 ") || !strings.Contains(headerOf(scr), "p. 11 ·") {
			t.Errorf("%dx%d: with the p. 11 marker on top (%q), want p. 11 in the header:\n%s", w, h, top, scr)
		}
		d.send(press("up"))
		if scr = d.screen(); !strings.Contains(headerOf(scr), "p. 10 ·") {
			t.Errorf("%dx%d: a line above the marker, want p. 10 in the header:\n%s", w, h, headerOf(scr))
		}
	}
}
