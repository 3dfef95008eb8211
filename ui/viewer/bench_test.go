package viewer

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/internal/synthtext"
	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/store"
)

// benchViewer is a viewer at w×h open on the middle passage of a PDF of n
// passages of about 120 words, hard-wrapped, three to a page.
func benchViewer(n, w, h int) *Viewer {
	var segs []store.Segment
	off := 0
	for i, t := range synthtext.Segments(n, 120) {
		words := strings.Fields(t)
		var lines []string
		for j := 0; j < len(words); j += 12 {
			lines = append(lines, strings.Join(words[j:min(j+12, len(words))], " "))
		}
		t = strings.Join(lines, "\n")
		segs = append(segs, store.Segment{ID: fmt.Sprintf("d:%d", i), Index: i, Text: t, Start: off, End: off + len(t),
			PageStart: i/3 + 1, PageEnd: i/3 + 1, Section: []string{"Results"}})
		off += len(t) + 2
	}
	v := New(testKeys(), testStyles(), Settings{})
	v.SetSize(w, h)
	v.Load(Content{Source: rag.Source{Number: 1, SegmentID: segs[n/2].ID}, Doc: store.Document{Title: "Bench", Format: "pdf", Pages: n/3 + 1}, Segs: segs})
	return v
}

// BenchmarkViewerScroll is a line of scrolling at 160×48: the key and the
// frame it draws, passages laid out as they come into view. Its cost does
// not grow with the document (compare the sizes).
func BenchmarkViewerScroll(b *testing.B) {
	for _, n := range []int{100, 3000} {
		b.Run(fmt.Sprintf("passages=%d", n), func(b *testing.B) {
			v := benchViewer(n, 160, 48)
			v.View()
			down := true
			for b.Loop() {
				k := "down"
				if !down {
					k = "up"
				}
				v.key(press(k))
				v.View()
				if v.at == n-1 || v.at == 0 {
					down = !down
				}
			}
		})
	}
}

// BenchmarkViewerOpen is opening the viewer at 160×48 and drawing its
// first frame: only the passages in view are laid out, whatever the
// document's length.
func BenchmarkViewerOpen(b *testing.B) {
	for _, n := range []int{100, 3000} {
		b.Run(fmt.Sprintf("passages=%d", n), func(b *testing.B) {
			v := benchViewer(n, 160, 48)
			c := Content{Source: v.src, Doc: v.doc, Segs: v.segs}
			for b.Loop() {
				v.Load(c)
				v.View()
			}
		})
	}
}
