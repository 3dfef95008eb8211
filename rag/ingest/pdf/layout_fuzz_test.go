package pdf

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
)

// randomPages makes pages of characters at random places, sizes and
// styles, with spaces, line breaks, hyphens, digits, CJK and empty boxes.
func randomPages(r *rand.Rand) []*rawPage {
	alphabet := []rune("abcdefghij ABC-0123456789.,写作设计\x02\r\n ﬁ")
	var pages []*rawPage
	for range 1 + r.IntN(4) {
		p := &rawPage{width: 612, height: 792}
		x, y := float32(72), float32(720)
		for range r.IntN(400) {
			c := char{r: alphabet[r.IntN(len(alphabet))], size: float32(4 + r.IntN(14)), bold: r.IntN(5) == 0, obj: uint32(r.IntN(20))}
			if r.IntN(30) == 0 {
				x, y = float32(r.IntN(600)), float32(r.IntN(800))
			}
			w := c.size * 0.5
			c.x0, c.x1, c.y0, c.y1 = x, x+w, y, y+c.size
			if r.IntN(50) == 0 {
				c.x1, c.y1 = c.x0, c.y0 // an empty box
			}
			x += w
			if x > 540 {
				x, y = 72, y-c.size*1.2
			}
			p.chars = append(p.chars, c)
		}
		if r.IntN(3) == 0 {
			p.figures = append(p.figures, region{100, 100, 300, 300})
		}
		pages = append(pages, p)
	}
	return pages
}

// Whatever the characters, the Document keeps its invariants: blocks
// with lines, line offsets in order inside the text, boxes on their pages,
// no line break in a block's text, one page for each page read.
func TestLayoutRandomPages(t *testing.T) {
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 7))
		pages := randomPages(r)
		var outline []outlineItem
		if r.IntN(2) == 0 {
			outline = []outlineItem{{title: "abc", page: 0, level: 1}, {title: "1 Abc", page: -1, level: 2}}
		}
		d, err := readPaper(context.Background(), &extracted{Pages: pages, Outline: outline})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		checkDocument(t, d, len(pages))
	}
}

// checkDocument checks a Document's invariants.
func checkDocument(t *testing.T, d *Document, pages int) {
	t.Helper()
	if len(d.Pages) != pages {
		t.Fatalf("%d pages for %d read", len(d.Pages), pages)
	}
	for i, b := range d.Blocks {
		text := b.Text
		if b.Kind == Table {
			text = strings.ReplaceAll(text, "\n\n", " ")
		}
		if len(b.Lines) == 0 || b.Lines[0].Start != 0 || strings.ContainsAny(text, "\n\r") {
			t.Fatalf("block %d (%d lines) %q", i, len(b.Lines), b.Text)
		}
		if b.Kind != Heading && b.Level != 0 {
			t.Fatalf("block %d: a %s at level %d", i, b.Kind, b.Level)
		}
		prev := 0
		for _, l := range b.Lines {
			if l.Start < prev || l.Start > len(b.Text) {
				t.Fatalf("block %d: line at %d after %d in %d bytes", i, l.Start, prev, len(b.Text))
			}
			prev = l.Start
			if l.Box.Page < 1 || l.Box.Page > pages {
				t.Fatalf("block %d: box on page %d of %d", i, l.Box.Page, pages)
			}
			p := d.Pages[l.Box.Page-1]
			if l.Box.X0 < 0 || l.Box.X1 > p.Width || l.Box.Y0 < 0 || l.Box.Y1 > p.Height || l.Box.X0 > l.Box.X1 || l.Box.Y0 > l.Box.Y1 {
				t.Fatalf("block %d: box %+v off its %gx%g page", i, l.Box, p.Width, p.Height)
			}
		}
	}
}
