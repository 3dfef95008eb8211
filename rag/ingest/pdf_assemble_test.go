package ingest

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/rag/ingest/pdf"
	"github.com/ibid-dev/ibid/store"
)

// randomDocument is a Document as the PDF engine could return it: blocks
// of every kind and level, lines across pages, some blocks empty.
func randomDocument(r *rand.Rand) *pdf.Document {
	words := []string{"alpha", "Beta", "1 Intro", "Abstract", "References", "写作", "x-", "", " "}
	d := &pdf.Document{}
	for range 1 + r.IntN(4) {
		d.Pages = append(d.Pages, pdf.Page{Width: 612, Height: 792})
	}
	page := 0
	for range r.IntN(30) {
		b := pdf.Block{Kind: pdf.Kind(r.IntN(6)), Turned: r.IntN(6) == 0}
		if b.Kind == pdf.Heading {
			b.Level = r.IntN(4)
		}
		for k := range 1 + r.IntN(4) {
			if r.IntN(4) == 0 && page < len(d.Pages)-1 {
				page++
			}
			if k > 0 {
				b.Text += " "
			}
			start := len(b.Text)
			if k == 0 {
				start = 0
			}
			b.Text += words[r.IntN(len(words))]
			b.Lines = append(b.Lines, pdf.Line{Start: start, Box: store.Box{Page: page + 1, X0: 72, Y0: 100, X1: 300, Y1: 110}, Size: 10})
		}
		d.Blocks = append(d.Blocks, b)
	}
	return d
}

// Whatever the blocks, the assembled text keeps the invariants the
// chunker relies on: sections in order, inside the text, covering it;
// page starts sorted and in range; lines in order inside the text.
func TestAssembleRandomDocuments(t *testing.T) {
	for seed := range uint64(300) {
		d := randomDocument(rand.New(rand.NewPCG(seed, 7)))
		p := assemblePDF(d)
		if len(p.pageLabels) != len(d.Pages) || len(p.pageStarts) != len(d.Pages) || !slices.IsSorted(p.pageStarts) {
			t.Fatalf("seed %d: labels %d, page starts %v for %d pages", seed, len(p.pageLabels), p.pageStarts, len(d.Pages))
		}
		if p.pageStarts[0] != 0 || p.pageStarts[len(p.pageStarts)-1] > len(p.text) {
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
		for i, l := range p.lines {
			if l.start >= l.end || l.end > len(p.text) || i > 0 && l.start < p.lines[i-1].end {
				t.Fatalf("seed %d: line [%d,%d) in %d bytes", seed, l.start, l.end, len(p.text))
			}
		}
		segs, err := chunk(context.Background(), p.text, p.sections, p.pageStarts, DefaultTokenBudget)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range segs {
			if p.text[s.Start:s.End] != s.Text || s.PageStart < 1 || s.PageEnd < s.PageStart || strings.TrimSpace(s.Text) == "" {
				t.Fatalf("seed %d: segment [%d,%d) pages %d-%d", seed, s.Start, s.End, s.PageStart, s.PageEnd)
			}
		}
	}
}
