package retrieve

import (
	"context"
	"testing"

	"github.com/ibid-dev/ibid/store"
)

// fusingStore is a store that fuses in the store, as store/postgres does,
// and counts how it was asked.
type fusingStore struct {
	store.Store
	hybrid, keyword int
}

func (s *fusingStore) Keyword(ctx context.Context, q string, k int, f store.Filter) ([]store.Hit, error) {
	s.keyword++
	return s.Store.Keyword(ctx, q, k, f)
}

func (s *fusingStore) Hybrid(ctx context.Context, q string, v []float32, k int, f store.Filter) ([]store.Hit, error) {
	s.hybrid++
	lex, err := s.Store.Keyword(ctx, q, k, f)
	if err != nil {
		return nil, err
	}
	dense, err := s.Store.Dense(ctx, v, k, f)
	if err != nil {
		return nil, err
	}
	byID := map[string]store.Segment{}
	for _, h := range append(lex, dense...) {
		byID[h.Segment.ID] = h.Segment
	}
	var out []store.Hit
	for _, sc := range RRF(RRFK, RankedList{idsOf(lex), 1}, RankedList{idsOf(dense), 1}) {
		out = append(out, store.Hit{Segment: byID[sc.ID], Score: sc.Score})
	}
	return out, nil
}

// TestSearchUsesStoreFusion: with an embedding model's embedder (RRF
// hybrid), a store that fuses itself is asked once, and its ranking is
// what Search returns; the local embedder's default (keyword only) never
// asks it.
func TestSearchUsesStoreFusion(t *testing.T) {
	ctx := context.Background()
	emb := &namedEmbedder{Embedder: NewLocalEmbedder(), name: "openai:test-model"}
	base := memStore(t, emb)
	b, err := ReadBEIR("testdata/tinybeir")
	if err != nil {
		t.Fatal(err)
	}
	texts := make([]string, len(b.Corpus))
	for i, d := range b.Corpus {
		texts[i] = CorpusText(d)
	}
	vs, err := emb.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	if err := Load(ctx, base, b, vs); err != nil {
		t.Fatal(err)
	}
	st := &fusingStore{Store: base}
	q := b.Queries[0].Text
	got, err := Search(ctx, st, emb, q, Options{K: 3, Neighbours: -1})
	if err != nil {
		t.Fatal(err)
	}
	if st.hybrid != 1 || st.keyword != 0 {
		t.Fatalf("store asked %d times to fuse and %d times for keywords, want 1 and 0", st.hybrid, st.keyword)
	}
	want, err := Search(ctx, base, emb, q, Options{K: 3, Neighbours: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d passages fused by the store, %d fused here", len(got), len(want))
	}
	for i := range got {
		if got[i].Segment.ID != want[i].Segment.ID {
			t.Errorf("rank %d: store fusion %s, here %s", i+1, got[i].Segment.ID, want[i].Segment.ID)
		}
	}
	st.hybrid = 0
	if _, err := Search(ctx, st, NewLocalEmbedder(), q, Options{K: 3}); err != nil {
		t.Fatal(err)
	}
	if st.hybrid != 0 {
		t.Errorf("the local embedder's default retrieval asked the store to fuse")
	}
}

// namedEmbedder is an embedder under another name (an embedding model's).
type namedEmbedder struct {
	Embedder
	name string
}

func (e *namedEmbedder) Name() string { return e.name }
