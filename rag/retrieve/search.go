package retrieve

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/ibid-dev/ibid/store"
)

// Passage is one search result: a hit, its document, its fused score, and
// the context handed to the model. Search returns passages whose windows
// never overlap or touch within a document (MergeWindows): hits whose
// windows met are one passage, under its best-ranked hit.
type Passage struct {
	Segment  store.Segment   // the best-ranked hit: the segment a citation of the passage points at
	Document store.Document  // Segment's document
	Score    float64         // Segment's fused score (BM25 or cosine in a single mode)
	Context  []store.Segment // the window: the hits and their neighbours, in document order, each once
	// Rank is Segment's place in the search's ranking before merging,
	// from 0; passages come in increasing Rank.
	Rank int
	// Hits are the other hits the passage absorbed (all in Context), best
	// first; nil when it holds one hit. A viewer can show which of the
	// window's segments matched.
	Hits []Hit
}

// Hit is a hit a passage absorbed, with its place in the search's ranking
// before merging (as Passage.Rank).
type Hit struct {
	Segment store.Segment
	Rank    int
}

// Scored is a segment id with its score.
type Scored struct {
	ID    string
	Score float64
}

// fusionAlpha is the dense weight of convex fusion for emb, or 0 for
// reciprocal-rank fusion. The local embedder is much weaker than BM25 on
// its own (SciFact nDCG@10 0.43 against 0.68), and any RRF of the two
// scored below BM25; a small share of its min-max normalised cosine added
// to BM25's normalised score lifts BM25 instead (0.10 to 0.30 all do;
// docs/retrieval.md). A learned embedder is usually as strong as BM25, and
// RRF with equal weights is the robust choice there.
func fusionAlpha(emb Embedder) float64 {
	if emb != nil && emb.Name() == localDefault.Name() {
		return LocalConvexAlpha
	}
	return 0
}

// LocalConvexAlpha is the dense weight of the convex fusion used with the
// local embedder.
const LocalConvexAlpha = 0.15

// candidates is how many hits each retriever contributes to the fusion.
func candidates(k int) int { return max(100, 4*k) }

// Search returns the opt.K best passages of st for query, best first, each
// with its neighbouring segments as context; hits of one document whose
// windows overlap or touch are merged into one passage (MergeWindows), and
// K counts passages after merging. Dense search embeds the query
// with emb (which must be the embedder that built st) and asks st.Dense;
// keyword search asks st.Keyword; Hybrid fuses the two (convex fusion for
// the local embedder, reciprocal rank otherwise). Neighbours are read with
// st.Segments, a window per hit: no search reads every segment. emb may be
// nil in Lexical mode.
func Search(ctx context.Context, st store.Store, emb Embedder, query string, opt Options) ([]Passage, error) {
	if st == nil {
		return nil, errors.New("retrieve: search needs a store")
	}
	opt.Mode = opt.Mode.For(emb)
	if emb == nil && opt.Mode != Lexical {
		return nil, errors.New("retrieve: dense search needs an embedder")
	}
	k := opt.k()
	f := opt.Filter()
	if h, ok := st.(hybridStore); ok && opt.Mode == Hybrid && fusionAlpha(emb) == 0 && strings.TrimSpace(query) != "" {
		// Reciprocal-rank fusion where the data lives, in one statement.
		v, err := embedQuery(ctx, emb, query)
		if err != nil {
			return nil, err
		}
		hits, err := h.Hybrid(ctx, query, v, candidates(k), f)
		if err != nil {
			return nil, fmt.Errorf("couldn't search: %w", err)
		}
		segs := make(map[string]store.Segment, len(hits))
		for _, h := range hits {
			segs[h.Segment.ID] = h.Segment
		}
		return passages(ctx, st, scoredOf(hits), segs, opt.neighbours(), k)
	}
	var lexical, dense []store.Hit
	var lexErr, denseErr error
	var wg sync.WaitGroup
	if opt.Mode != Lexical {
		wg.Go(func() { dense, denseErr = denseHits(ctx, st, emb, query, candidates(k), f) })
	}
	if opt.Mode != Dense {
		lexical, lexErr = st.Keyword(ctx, query, candidates(k), f)
		if lexErr != nil {
			lexErr = fmt.Errorf("couldn't search keywords: %w", lexErr)
		}
	}
	wg.Wait()
	if err := errors.Join(denseErr, lexErr); err != nil {
		return nil, err
	}
	segs := make(map[string]store.Segment, len(lexical)+len(dense))
	for _, hs := range [][]store.Hit{lexical, dense} {
		for _, h := range hs {
			segs[h.Segment.ID] = h.Segment
		}
	}
	var fused []Scored
	switch opt.Mode {
	case Dense:
		fused = scoredOf(dense)
	case Lexical:
		fused = scoredOf(lexical)
	default:
		if alpha := fusionAlpha(emb); alpha > 0 {
			fused = Convex(scoredOf(lexical), scoredOf(dense), alpha)
			break
		}
		fused = RRF(RRFK, RankedList{idsOf(lexical), BM25Weight}, RankedList{idsOf(dense), DenseWeight})
	}
	return passages(ctx, st, fused, segs, opt.neighbours(), k)
}

func scoredOf(hs []store.Hit) []Scored {
	out := make([]Scored, len(hs))
	for i, h := range hs {
		out[i] = Scored{h.Segment.ID, h.Score}
	}
	return out
}

func idsOf(hs []store.Hit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.Segment.ID
	}
	return out
}

// denseHits asks the store for the n segments nearest to the query's vector.
func denseHits(ctx context.Context, st store.Store, emb Embedder, query string, n int, f store.Filter) ([]store.Hit, error) {
	if strings.TrimSpace(query) == "" {
		return nil, nil
	}
	v, err := embedQuery(ctx, emb, query)
	if err != nil {
		return nil, err
	}
	hits, err := st.Dense(ctx, v, n, f)
	if err != nil {
		return nil, fmt.Errorf("couldn't query vectors: %w", err)
	}
	return hits, nil
}

// passages turns fused hits, in rank order, into up to k passages with
// their documents and neighbours, merging windows that meet (mergeInto) as
// it goes, so that it reads only as many hits as k merged passages need. A
// hit whose document the store no longer has (removed since, by another
// process) is skipped.
func passages(ctx context.Context, st store.Store, hits []Scored, segs map[string]store.Segment, neighbours, k int) ([]Passage, error) {
	docs := map[string]store.Document{}
	out := make([]Passage, 0, min(k, len(hits)))
	for rank, h := range hits {
		if len(out) == k {
			break
		}
		seg := segs[h.ID]
		doc, ok := docs[seg.DocumentID]
		if !ok {
			d, err := st.Document(ctx, seg.DocumentID)
			if errors.Is(err, store.ErrNotFound) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("couldn't read document %s: %w", seg.DocumentID, err)
			}
			doc, docs[seg.DocumentID] = d, d
		}
		p := Passage{Segment: seg, Document: doc, Score: h.Score, Rank: rank}
		if neighbours > 0 {
			ctxSegs, err := st.Segments(ctx, seg.DocumentID, seg.Index-neighbours, seg.Index+neighbours+1)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return nil, fmt.Errorf("couldn't read the context of %s: %w", seg.ID, err)
			}
			if len(ctxSegs) > 0 {
				p.Context = ctxSegs
			}
		}
		if p.Context == nil {
			p.Context = []store.Segment{seg}
		}
		out = mergeInto(out, p)
	}
	return out, nil
}

// embedQuery is the query's vector.
func embedQuery(ctx context.Context, emb Embedder, query string) ([]float32, error) {
	vs, err := emb.Embed(ctx, []string{query})
	if err != nil {
		return nil, fmt.Errorf("couldn't embed query: %w", err)
	}
	if len(vs) != 1 {
		return nil, fmt.Errorf("couldn't embed query: embedder returned %d vectors for 1 text", len(vs))
	}
	return vs[0], nil
}

// hybridStore is a store that fuses dense and keyword search itself, by
// reciprocal rank with the same constant and equal weights as RRF here
// (store/postgres does it in one SQL statement). Search uses it for the
// reciprocal-rank hybrid, so a question costs one round trip.
type hybridStore interface {
	Hybrid(ctx context.Context, query string, vector []float32, k int, f store.Filter) ([]store.Hit, error)
}
