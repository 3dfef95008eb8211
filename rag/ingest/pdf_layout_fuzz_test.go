package ingest

import (
	"context"
	"math/rand/v2"
	"slices"
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
			c := pdfChar{r: alphabet[r.IntN(len(alphabet))], size: float32(4 + r.IntN(14)), bold: r.IntN(5) == 0, obj: uint32(r.IntN(20))}
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

// Whatever the characters, the layout keeps the invariants the chunker
// relies on: sections in order, inside the text, covering it; page starts
// sorted and in range.
func TestLayoutRandomPages(t *testing.T) {
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 7))
		pages := randomPages(r)
		var outline []outlineItem
		if r.IntN(2) == 0 {
			outline = []outlineItem{{title: "abc", page: 0, level: 1}, {title: "1 Abc", page: -1, level: 2}}
		}
		lay, p, err := readPaper(&pdfText{Pages: pages, Outline: outline})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if len(lay.labels) != len(pages) || len(p.pageStarts) != len(pages) || !slices.IsSorted(p.pageStarts) {
			t.Fatalf("seed %d: labels %d, page starts %v for %d pages", seed, len(lay.labels), p.pageStarts, len(pages))
		}
		if len(p.pageStarts) > 0 && (p.pageStarts[0] != 0 || p.pageStarts[len(p.pageStarts)-1] > len(p.text)) {
			t.Fatalf("seed %d: page starts %v for %d bytes", seed, p.pageStarts, len(p.text))
		}
		end := 0
		for _, s := range p.sections {
			if s.start != end || s.end <= s.start || s.end > len(p.text) {
				t.Fatalf("seed %d: section [%d,%d) after %d in %d bytes", seed, s.start, s.end, end, len(p.text))
			}
			end = s.end
		}
		if end != len(p.text) {
			t.Fatalf("seed %d: sections end at %d of %d bytes", seed, end, len(p.text))
		}
		checkLoadedSegments(t, p)
	}
}

// checkLoadedSegments chunks a parsed paper and checks segment offsets.
func checkLoadedSegments(t *testing.T, p *parsed) {
	t.Helper()
	segs, err := chunk(context.Background(), p.text, p.sections, p.pageStarts, DefaultTokenBudget)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range segs {
		if p.text[s.Start:s.End] != s.Text || s.PageStart < 1 || s.PageEnd < s.PageStart {
			t.Fatalf("segment [%d,%d) pages %d-%d", s.Start, s.End, s.PageStart, s.PageEnd)
		}
	}
}
