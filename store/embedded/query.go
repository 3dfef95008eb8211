package embedded

import (
	"context"
	"fmt"
	"strings"

	"github.com/ibid-dev/ibid/store"
	"github.com/ibid-dev/ibid/store/internal/topk"
)

// Dense returns the k segments the filter admits most similar (cosine) to
// vector, best first, ties by segment id. A library of up to exactMax
// searchable segments is searched exactly: without a filter by the
// chromem-go collection, with one by a scan of the vectors of the segments
// the filter admits. A larger one is searched through its codes
// (fastDense), and the best candidates scored exactly. Segments whose
// vector is all zeros, and parents, never match. A vector of another
// dimension is an error wrapping ErrEmbedderMismatch.
func (s *Store) Dense(ctx context.Context, vector []float32, k int, f store.Filter) ([]store.Hit, error) {
	if len(vector) != s.info.Dimension {
		return nil, fmt.Errorf("%w: query vector has dimension %d, the library's is %d (built with %q)",
			store.ErrEmbedderMismatch, len(vector), s.info.Dimension, s.info.Embedder)
	}
	q := append([]float32(nil), vector...)
	zero, err := store.Normalize(q)
	if err != nil {
		return nil, fmt.Errorf("couldn't search: query %w", err)
	}
	if err := s.rlock(ctx); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	if k <= 0 || zero {
		return nil, nil // nothing is similar to the zero vector
	}
	if !s.dense.exact {
		return s.fastDense(ctx, q, k, f)
	}
	if !f.IsZero() {
		return s.scan(ctx, q, k, f)
	}
	n := min(k, s.coll.Count())
	if n == 0 {
		return nil, nil
	}
	res, err := s.coll.QueryEmbedding(ctx, q, n, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("couldn't query vectors: %w", err)
	}
	hits := make([]store.Hit, 0, len(res))
	for i := range res {
		e, j, ok := s.lookup(res[i].ID)
		if !ok {
			return nil, fmt.Errorf("store is inconsistent: chromem returned unknown segment %s", res[i].ID)
		}
		sg, err := s.segment(e, j)
		if err != nil {
			return nil, err
		}
		hits = append(hits, store.Hit{Segment: sg, Score: float64(res[i].Similarity)})
	}
	// chromem-go orders by similarity only; equal ones go by id here, as
	// the contract says.
	sortHits(hits)
	return hits, nil
}

// scored is a candidate of the exact scan.
type scored struct {
	e   *entry
	i   int
	sim float32
}

// betterScored orders by similarity, then by segment ID, the smaller first.
func betterScored(a, b scored) bool {
	if a.sim != b.sim {
		return a.sim > b.sim
	}
	return a.e.segs[a.i].ID < b.e.segs[b.i].ID
}

// scan is the exact search over the segments f admits; the caller holds mu.
func (s *Store) scan(ctx context.Context, q []float32, k int, f store.Filter) ([]store.Hit, error) {
	dim := s.info.Dimension
	h := topk.New(k, betterScored)
	seen := 0
	for _, e := range s.docs {
		if !f.MatchDocument(&e.doc) {
			continue
		}
		for i := range e.segs {
			if seen++; seen%4096 == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			if !e.dense(i) || !f.Match(&e.doc, &e.segs[i]) {
				continue
			}
			h.Push(scored{e, i, dot(q, e.vector(i, dim))})
		}
	}
	return s.hitsOf(h.Sorted())
}

// hitsOf turns scored segments into hits, with their texts. The caller
// holds mu.
func (s *Store) hitsOf(top []scored) ([]store.Hit, error) {
	hits := make([]store.Hit, len(top))
	for i, c := range top {
		sg, err := s.segment(c.e, c.i)
		if err != nil {
			return nil, err
		}
		hits[i] = store.Hit{Segment: sg, Score: float64(c.sim)}
	}
	return hits, nil
}

// Keyword returns up to k segments the filter admits that share a term with
// query, best BM25 score first, ties by segment id; parents are not in the
// keyword index, so never returned.
func (s *Store) Keyword(ctx context.Context, query string, k int, f store.Filter) ([]store.Hit, error) {
	if err := s.rlock(ctx); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	if k <= 0 {
		return nil, nil
	}
	var admit func(string) bool
	if !f.IsZero() {
		admit = func(id string) bool {
			e, i, ok := s.lookup(id)
			return ok && f.Match(&e.doc, &e.segs[i])
		}
	}
	res := s.kw.Search(query, k, admit)
	hits := make([]store.Hit, 0, len(res))
	for _, r := range res {
		e, i, ok := s.lookup(r.ID)
		if !ok {
			return nil, fmt.Errorf("store is inconsistent: keyword index returned unknown segment %s", r.ID)
		}
		sg, err := s.segment(e, i)
		if err != nil {
			return nil, err
		}
		hits = append(hits, store.Hit{Segment: sg, Score: r.Score})
	}
	return hits, nil
}

// DocFreq says how many segments hold each term (as keyword search
// analyses text) and how many segments there are (store.TermCounter).
func (s *Store) DocFreq(ctx context.Context, terms []string) ([]int, int, error) {
	if err := s.rlock(ctx); err != nil {
		return nil, 0, err
	}
	defer s.mu.RUnlock()
	df, n := s.kw.DocFreq(terms)
	return df, n, nil
}

var _ store.TermCounter = (*Store)(nil)

// sortHits orders hits by score, then id (insertion sort: chromem's result
// is sorted by score already, so only runs of equal scores move).
func sortHits(h []store.Hit) {
	for i := 1; i < len(h); i++ {
		for j := i; j > 0 && (h[j].Score > h[j-1].Score ||
			h[j].Score == h[j-1].Score && strings.Compare(h[j].Segment.ID, h[j-1].Segment.ID) < 0); j-- {
			h[j], h[j-1] = h[j-1], h[j]
		}
	}
}
