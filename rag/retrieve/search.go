package retrieve

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/ibid-dev/ibid/store"
)

// Passage is one search result: a hit, its document, its score, and the
// context handed to the model. Search returns passages whose windows never
// overlap or touch within a document (MergeWindows): hits whose windows met
// are one passage, under its best-ranked hit.
//
// Segment is always a passage of its document (a segment that is read),
// never an index row: a hit on an index row stands for its parent, which
// becomes Segment (or joins the passage that holds it), and the row joins
// Hits.
type Passage struct {
	Segment  store.Segment   // the best-ranked hit, or the parent of the best-ranked index row: what a citation of the passage points at
	Document store.Document  // Segment's document
	Score    float64         // the rerank score when reranked, else the best hit's fused score (BM25 or cosine in a single mode)
	Context  []store.Segment // the window: the hits and their neighbours, in document order, each once; never an index row
	// Rank is the best hit's place in the search's ranking before
	// merging, from 0. Passages come in increasing Rank unless a reranker
	// reordered them.
	Rank int
	// Hits are the other hits the passage absorbed, best first; nil when
	// it holds one hit. A hit is either a segment of Context (another
	// passage merged in) or an index row (Parent set) that led to Segment
	// or to a segment of Context: a row is not in Context; its Start and
	// End place it inside its parent (a hierarchical child), or it mirrors
	// its parent, or it is a generated question (Text ""). A viewer can
	// show which of the window's segments, and which parts, matched.
	Hits []Hit
	// whole is set for a parent reached through a strict part of it
	// (ownWindow): its window is its own (a short one grown into the
	// passages around it, parentWindow), and it merges only with a window
	// that overlaps it, not one that merely touches it.
	whole bool
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
//
// A hit on an index row (Parent set) stands for its parent: the passage is
// the parent (read once per search), which keeps the best rank of its rows,
// and the rows become its Hits. A parent reached through a strict part of
// it (a hierarchical child) is a window of its own, grown into the
// passages around it while it holds no more than a recursive window would
// (parentWindow); any other passage gets its neighbours; a window never
// holds an index row (see neighbourhood). When merging
// leaves fewer than K passages and a retriever's list was full, the search
// asks for four times as many candidates, a few times at most.
//
// With opt.Rerank, the best opt.RerankDepth passages (at least K) are then
// reranked on their windows' text and cut to K (see rerank); a reranker's
// failure fails the search.
func Search(ctx context.Context, st store.Store, emb Embedder, query string, opt Options) ([]Passage, error) {
	if st == nil {
		return nil, errors.New("retrieve: search needs a store")
	}
	opt.Mode = opt.Mode.For(emb)
	if emb == nil && opt.Mode != Lexical {
		return nil, errors.New("retrieve: dense search needs an embedder")
	}
	want := opt.depth()
	skip := store.Filter{SkipHeadings: opt.Filter().SkipHeadings} // what windows leave out
	var ps []Passage
	for n, round := candidates(want), 0; ; n, round = 4*n, round+1 {
		fused, segs, full, err := fetch(ctx, st, emb, query, opt, n)
		if err != nil {
			return nil, err
		}
		ps, err = passages(ctx, st, fused, segs, opt.neighbours(), want, skip)
		if err != nil {
			return nil, err
		}
		if len(ps) >= want || !full || round == maxWiden {
			break
		}
	}
	if opt.Rerank == nil || len(ps) == 0 {
		return ps, nil
	}
	return rerank(ctx, opt.Rerank, query, ps, opt.k())
}

// maxWiden bounds how many times a search asks for more candidates (4x
// each time) when merging left too few passages.
const maxWiden = 2

// fetch runs the retrievers of opt.Mode for n candidates each and fuses
// them: the fused ranking, the segments it names, and whether a retriever
// returned all n it was asked for (more may exist).
func fetch(ctx context.Context, st store.Store, emb Embedder, query string, opt Options, n int) (fused []Scored, segs map[string]store.Segment, full bool, err error) {
	f := opt.Filter()
	if h, ok := st.(hybridStore); ok && opt.Mode == Hybrid && fusionAlpha(emb) == 0 && strings.TrimSpace(query) != "" {
		// Reciprocal-rank fusion where the data lives, in one statement.
		v, err := embedQuery(ctx, emb, query)
		if err != nil {
			return nil, nil, false, err
		}
		hits, err := h.Hybrid(ctx, query, v, n, f)
		if err != nil {
			return nil, nil, false, fmt.Errorf("couldn't search: %w", err)
		}
		segs := make(map[string]store.Segment, len(hits))
		for _, h := range hits {
			segs[h.Segment.ID] = h.Segment
		}
		return scoredOf(hits), segs, len(hits) >= n, nil
	}
	var lexical, dense []store.Hit
	var lexErr, denseErr error
	var wg sync.WaitGroup
	if opt.Mode != Lexical {
		wg.Go(func() { dense, denseErr = denseHits(ctx, st, emb, query, n, f) })
	}
	if opt.Mode != Dense {
		lexical, lexErr = st.Keyword(ctx, query, n, f)
		if lexErr != nil {
			lexErr = fmt.Errorf("couldn't search keywords: %w", lexErr)
		}
	}
	wg.Wait()
	if err := errors.Join(denseErr, lexErr); err != nil {
		return nil, nil, false, err
	}
	segs = make(map[string]store.Segment, len(lexical)+len(dense))
	for _, hs := range [][]store.Hit{lexical, dense} {
		for _, h := range hs {
			segs[h.Segment.ID] = h.Segment
		}
	}
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
	return fused, segs, len(lexical) >= n || len(dense) >= n, nil
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
// their documents and windows, merging windows that meet (mergeInto) as it
// goes, so that it reads only as many hits as k merged passages need. A
// hit on an index row stands for its parent (resolver); a hit whose
// passage is already a hit of an earlier passage joins that passage's Hits
// (an index row) or is dropped (its passage again), reading nothing. A hit
// whose document or parent the store no longer has (removed since, by
// another process) is skipped.
func passages(ctx context.Context, st store.Store, hits []Scored, segs map[string]store.Segment, neighbours, k int, skip store.Filter) ([]Passage, error) {
	r := newResolver(st)
	out := make([]Passage, 0, min(k, len(hits)))
	for rank, h := range hits {
		if len(out) == k {
			break
		}
		t, ok, err := r.resolve(ctx, segs[h.ID])
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if i := holding(out, t.seg.ID); i >= 0 {
			if t.row != nil {
				out[i].Hits = append(out[i].Hits, Hit{*t.row, rank})
			}
			continue
		}
		ctxSegs, err := neighbourhood(ctx, st, t, neighbours, skip)
		if err != nil {
			return nil, err
		}
		p := Passage{Segment: t.seg, Document: t.doc, Score: h.Score, Rank: rank, Context: ctxSegs, whole: t.ownWindow()}
		if t.row != nil {
			p.Hits = []Hit{{*t.row, rank}}
		}
		out = mergeInto(out, p)
	}
	return out, nil
}

// holding is the index of the passage of ps that has the segment id as
// its hit or one of its Hits, or -1.
func holding(ps []Passage, id string) int {
	for i, p := range ps {
		if p.Segment.ID == id {
			return i
		}
		for _, h := range p.Hits {
			if h.Segment.ID == id {
				return i
			}
		}
	}
	return -1
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
