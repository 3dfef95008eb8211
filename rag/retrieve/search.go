package retrieve

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/ibid-dev/ibid/store"
)

// Passage is one search result: a segment, its document, its fused score,
// and the context handed to the model.
type Passage struct {
	Segment  store.Segment
	Document store.Document
	Score    float64         // fused score (BM25 or cosine in a single mode)
	Context  []store.Segment // the hit's neighbours and itself, in document order
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
// with its neighbouring segments as context. Dense search embeds the query
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
	return passages(ctx, st, fused[:min(k, len(fused))], segs, opt.neighbours())
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
	vs, err := emb.Embed(ctx, []string{query})
	if err != nil {
		return nil, fmt.Errorf("couldn't embed query: %w", err)
	}
	if len(vs) != 1 {
		return nil, fmt.Errorf("couldn't embed query: embedder returned %d vectors for 1 text", len(vs))
	}
	hits, err := st.Dense(ctx, vs[0], n, f)
	if err != nil {
		return nil, fmt.Errorf("couldn't query vectors: %w", err)
	}
	return hits, nil
}

// passages turns fused hits into passages with their documents and
// neighbours. A hit whose document the store no longer has (removed since,
// by another process) is skipped.
func passages(ctx context.Context, st store.Store, hits []Scored, segs map[string]store.Segment, neighbours int) ([]Passage, error) {
	docs := map[string]store.Document{}
	out := make([]Passage, 0, len(hits))
	for _, h := range hits {
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
		p := Passage{Segment: seg, Document: doc, Score: h.Score}
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
		out = append(out, p)
	}
	return out, nil
}
