package support

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/internal/synthtext"
)

// benchPassage is a passage of about n words of synthetic prose in
// segments of 300 words, with a claim taken from its middle.
func benchPassage(n int) (Passage, string) {
	texts := synthtext.Segments((n+299)/300, 300)
	p := Passage{Headings: []string{"A Title"}}
	for i, t := range texts {
		// Sentences: a full stop every 20 words.
		w := strings.Fields(t)
		for k := 19; k < len(w); k += 20 {
			w[k] += "."
		}
		p.Segments = append(p.Segments, Segment{ID: fmt.Sprintf("d:%d", i), Text: strings.Join(w, " ")})
	}
	mid := strings.Fields(p.Segments[len(p.Segments)/2].Text)
	claim := strings.Join(mid[100:118], " ")
	return p, claim
}

// BenchmarkCheck is the cost of one footnote's check against a passage
// already analysed (Analyse runs once per passage, before the answer
// streams).
func BenchmarkCheck(b *testing.B) {
	for _, n := range []int{300, 2000, 6000} {
		p, claim := benchPassage(n)
		e := Analyse(p)
		rarity := func(terms []string) []float64 {
			w := make([]float64, len(terms))
			for i := range w {
				w[i] = float64(1 + i%5)
			}
			return w
		}
		b.Run(fmt.Sprintf("words=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				e.Check(claim, rarity)
			}
		})
	}
}

// BenchmarkAnalyse is the cost of analysing a passage.
func BenchmarkAnalyse(b *testing.B) {
	for _, n := range []int{300, 2000, 6000} {
		p, _ := benchPassage(n)
		b.Run(fmt.Sprintf("words=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Analyse(p)
			}
		})
	}
}
