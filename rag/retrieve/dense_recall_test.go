package retrieve

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/internal/figures"
	"github.com/ibid-dev/ibid/store"
)

// TestDenseRecallSciFact measures the recall@10 of the store's dense
// search against an exact scan on real embeddings: SciFact's 5,183
// abstracts and 300 test queries through the local embedder. The
// embedded store answers a library that large from its int8 codes and
// rescores the best candidates exactly (store/embedded: fastDense); at
// least 0.99 of the exact top 10 must come back. Skipped with -short or
// -race, or without the data.
func TestDenseRecallSciFact(t *testing.T) {
	figures.Require(t)
	if testing.Short() || raceEnabled {
		t.Skip("embeds the SciFact corpus (slow with -short or -race)")
	}
	b, err := ReadBEIR(sciFact(t))
	if err != nil {
		t.Fatal(err)
	}
	emb := NewLocalEmbedder()
	st := indexBEIR(t, b, emb)
	ctx := context.Background()

	// The exact answer, from every vector the store gives back.
	type seg struct {
		id  string
		vec []float32
	}
	var all []seg
	docs, err := st.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		segs, err := st.Segments(ctx, d.ID, 0, -1)
		if err != nil {
			t.Fatal(err)
		}
		vecs, err := st.Vectors(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		for i := range segs {
			all = append(all, seg{segs[i].ID, vecs[i]})
		}
	}
	texts := make([]string, len(b.Queries))
	for i, q := range b.Queries {
		texts[i] = q.Text
	}
	qvecs, err := emb.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	found, total := 0, 0
	for _, q := range qvecs {
		if _, err := store.Normalize(q); err != nil {
			t.Fatal(err)
		}
		type scored struct {
			id    string
			score float32
		}
		exact := make([]scored, 0, len(all))
		for _, s := range all {
			var d float32
			for j := range q {
				d += q[j] * s.vec[j]
			}
			if slices.ContainsFunc(s.vec, func(x float32) bool { return x != 0 }) {
				exact = append(exact, scored{s.id, d})
			}
		}
		slices.SortFunc(exact, func(a, b scored) int {
			if a.score != b.score {
				if a.score > b.score {
					return -1
				}
				return 1
			}
			return strings.Compare(a.id, b.id)
		})
		want := map[string]bool{}
		for _, s := range exact[:10] {
			want[s.id] = true
		}
		hits, err := st.Dense(ctx, q, 10, store.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			if want[h.Segment.ID] {
				found++
			}
		}
		total += 10
	}
	r := float64(found) / float64(total)
	t.Logf("SciFact, local embedder (dimension %d), %d abstracts, %d queries: recall@10 of dense search against an exact scan %.4f",
		emb.Dimension(), len(all), len(qvecs), r)
	if r < 0.99 {
		t.Errorf("recall@10 %.4f, want at least 0.99", r)
	}
}
