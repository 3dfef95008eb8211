package embedded

import (
	"cmp"
	"container/heap"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Query returns the k segments most similar (cosine) to vector, best first.
// Without a filter it asks the chromem-go collection; with one it scans the
// vectors of the segments the filter admits, exactly (filter runs under the
// store's read lock and must not call the store). Segments whose vector
// is all zeros never match. A vector of another dimension is an error
// wrapping ErrEmbedderMismatch.
func (s *Chromem) Query(ctx context.Context, vector []float32, k int, filter Filter) ([]Hit, error) {
	if len(vector) != s.info.Dimension {
		return nil, fmt.Errorf("%w: query vector has dimension %d, the library's is %d (built with %q)",
			ErrEmbedderMismatch, len(vector), s.info.Dimension, s.info.Embedder)
	}
	if k <= 0 || isZero(vector) {
		return nil, nil // nothing is similar to the zero vector
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, ErrClosed
	}
	if filter != nil {
		return s.scan(ctx, vector, k, filter)
	}
	n := min(k, s.coll.Count())
	if n == 0 {
		return nil, nil
	}
	res, err := s.coll.QueryEmbedding(ctx, vector, n, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("couldn't query vectors: %w", err)
	}
	hits := make([]Hit, 0, len(res))
	for i := range res {
		e, j, ok := s.lookup(res[i].ID)
		if !ok {
			return nil, fmt.Errorf("store is inconsistent: chromem returned unknown segment %s", res[i].ID)
		}
		hits = append(hits, Hit{Segment: e.segs[j], Similarity: res[i].Similarity})
	}
	return hits, nil
}

// scan is the exact search over the segments filter admits; the caller
// holds mu.
func (s *Chromem) scan(ctx context.Context, vector []float32, k int, filter Filter) ([]Hit, error) {
	q := normalised(vector)
	dim := s.info.Dimension
	h := make(hitHeap, 0, k)
	seen := 0
	for _, e := range s.docs {
		for i := range e.segs {
			if seen++; seen%4096 == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			if e.zero[i] || !filter(&e.doc, &e.segs[i]) {
				continue
			}
			sim := dot(q, e.vector(i, dim))
			if len(h) < k {
				heap.Push(&h, scored{e, i, sim})
			} else if h.less(h[0], scored{e, i, sim}) {
				h[0] = scored{e, i, sim}
				heap.Fix(&h, 0)
			}
		}
	}
	slices.SortFunc(h, func(a, b scored) int { return -cmpScored(a, b) })
	hits := make([]Hit, len(h))
	for i, c := range h {
		hits[i] = Hit{Segment: c.e.segs[c.i], Similarity: c.sim}
	}
	return hits, nil
}

func normalised(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 || math.Abs(math.Sqrt(sum)-1) < 1e-7 {
		return v
	}
	norm := float32(math.Sqrt(sum))
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = x / norm
	}
	return out
}

func isZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

func dot(a, b []float32) float32 {
	var s float32
	b = b[:len(a)]
	for i, x := range a {
		s += x * b[i]
	}
	return s
}

// scored is a candidate of the exact scan.
type scored struct {
	e   *entry
	i   int
	sim float32
}

// cmpScored orders by similarity, then (for a stable order among equals) by
// segment ID, the smaller ID counting as better.
func cmpScored(a, b scored) int {
	if c := cmp.Compare(a.sim, b.sim); c != 0 {
		return c
	}
	return -strings.Compare(a.e.segs[a.i].ID, b.e.segs[b.i].ID)
}

// hitHeap is a min-heap: the worst of the best k is at the root.
type hitHeap []scored

func (h hitHeap) less(a, b scored) bool { return cmpScored(a, b) < 0 }
func (h hitHeap) Len() int              { return len(h) }
func (h hitHeap) Less(i, j int) bool    { return h.less(h[i], h[j]) }
func (h hitHeap) Swap(i, j int)         { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)           { *h = append(*h, x.(scored)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
