package retrieve

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/internal/synthtext"
	"github.com/ibid-dev/ibid/store"
)

// BenchmarkSearch measures retrieval end to end (query embedding with a
// 768-dimensional local embedder, dense query through the store, BM25,
// fusion, neighbours) over synthetic libraries; the goal is ≤ 200 ms at
// 100,000 segments.
func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		emb := localEmbedder{dim: 768, word: localWordWeight, trigram: localTrigramWeight}
		st, err := store.Open(context.Background(), "memory:", store.Options{Info: store.Info{Embedder: emb.Name(), Dimension: emb.dim}, Create: true})
		if err != nil {
			b.Fatal(err)
		}
		texts := synthtext.Segments(n, 225)
		r := rand.New(rand.NewPCG(3, 4))
		const perDoc = 20
		var puts []store.Put
		for d := 0; d*perDoc < n; d++ {
			id := fmt.Sprintf("doc%05d", d)
			p := store.Put{Document: store.Document{ID: id, Path: "/lib/" + id + ".pdf", Segments: perDoc}}
			for i := range perDoc {
				v := make([]float32, emb.dim)
				var sum float64
				for j := range v {
					v[j] = float32(r.NormFloat64())
					sum += float64(v[j]) * float64(v[j])
				}
				for j := range v {
					v[j] /= float32(math.Sqrt(sum))
				}
				p.Segments = append(p.Segments, store.Segment{ID: fmt.Sprintf("%s:%d", id, i), DocumentID: id, Index: i,
					Text: texts[d*perDoc+i], Section: []string{fmt.Sprintf("Section %d", i/5)}, Vector: v})
			}
			puts = append(puts, p)
		}
		if err := st.Update(context.Background(), puts, nil); err != nil {
			b.Fatal(err)
		}
		puts = nil
		// Queries: a few words from segments, as a user would type them.
		queries := make([]string, 50)
		for i := range queries {
			w := strings.Fields(texts[r.IntN(n)])
			queries[i] = strings.Join(w[10:18], " ")
		}
		for _, m := range []Mode{Hybrid, Lexical, Dense} {
			b.Run(fmt.Sprintf("segments=%d/%v", n, m), func(b *testing.B) {
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					ps, err := Search(context.Background(), st, emb, queries[i%len(queries)], Options{Mode: m})
					if err != nil || len(ps) == 0 {
						b.Fatal(err, len(ps))
					}
					i++
				}
			})
		}
		st.Close()
	}
}
