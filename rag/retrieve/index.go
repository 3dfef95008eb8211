package retrieve

import (
	"context"
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

// Index is the retrieval index over one store: BM25 kept here, dense
// vectors kept by the store.
//
// Invariants: the BM25 index holds exactly the segments of the documents
// added (by NewIndex or NewIndexDir from the store, then AddDocument) and
// not removed;
// the caller keeps it in step with the store by calling AddDocument after
// each PutDocument and RemoveDocument after each delete.
//
// Concurrency: Search may be called from many goroutines at once, also
// while AddDocument or RemoveDocument run (they take the index's lock).
type Index struct {
	st  store.Store
	emb Embedder
	// Weights of the BM25 and dense lists in the fusion.
	bm25Weight, denseWeight float64
	alpha                   float64 // > 0: convex score fusion with this dense weight instead of RRF

	mu   sync.RWMutex
	bm25 *BM25
	docs map[string]store.Document
	segs map[string]segMeta // segment id → what filters need
	// byDoc lists each document's segment ids, for RemoveDocument.
	byDoc map[string][]string
}

// segMeta is what a filter needs of a segment besides its document.
type segMeta struct {
	docID   string
	section []string
}

// NewIndex builds the BM25 index over st's segments (on all CPUs) and
// returns the index that searches st with emb. NewIndexDir starts from a
// saved BM25 index instead.
func NewIndex(st store.Store, emb Embedder) (*Index, error) {
	return NewIndexDir(st, emb, "")
}

// newIndex returns an index over st without its BM25, and the ids and
// texts of st's segments to build it from.
func newIndex(st store.Store, emb Embedder) (ix *Index, ids, texts []string, err error) {
	if st == nil || emb == nil {
		return nil, nil, nil, fmt.Errorf("retrieve: an index needs a store and an embedder")
	}
	ix = &Index{st: st, emb: emb, bm25Weight: BM25Weight, denseWeight: DenseWeight, alpha: fusionAlpha(emb),
		docs: map[string]store.Document{}, segs: map[string]segMeta{}, byDoc: map[string][]string{}}
	n := st.Len()
	ids = make([]string, 0, n)
	texts = make([]string, 0, n)
	st.Each(func(doc *store.Document, seg *store.Segment) bool {
		if _, ok := ix.docs[doc.ID]; !ok {
			ix.docs[doc.ID] = *doc
		}
		ids = append(ids, seg.ID)
		texts = append(texts, seg.Text)
		ix.segs[seg.ID] = segMeta{doc.ID, seg.Section}
		ix.byDoc[doc.ID] = append(ix.byDoc[doc.ID], seg.ID)
		return true
	})
	return ix, ids, texts, nil
}

// BM25 returns the index's BM25 (for tuning K1 and B; not while searching).
func (ix *Index) BM25() *BM25 { return ix.bm25 }

// AddDocument indexes a document the store has just stored (replacing any
// earlier version of the same id).
func (ix *Index) AddDocument(doc store.Document, segs []store.Segment) {
	var a analyser
	tfs := make([][]termFreq, len(segs))
	for i := range segs {
		tfs[i] = a.termFreqs(segs[i].Text)
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.removeLocked(doc.ID)
	ix.docs[doc.ID] = doc
	ids := make([]string, len(segs))
	for i, s := range segs {
		ix.bm25.addTerms(s.ID, textSum(s.Text), tfs[i])
		ix.segs[s.ID] = segMeta{doc.ID, s.Section}
		ids[i] = s.ID
	}
	ix.byDoc[doc.ID] = ids
}

// RemoveDocument drops a document the store has just deleted.
func (ix *Index) RemoveDocument(docID string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.removeLocked(docID)
}

func (ix *Index) removeLocked(docID string) {
	for _, id := range ix.byDoc[docID] {
		ix.bm25.Remove(id)
		delete(ix.segs, id)
	}
	delete(ix.byDoc, docID)
	delete(ix.docs, docID)
}

// fusionAlpha is the dense weight of convex fusion for emb, or 0 for
// reciprocal-rank fusion. The local embedder is much weaker than BM25 on
// its own (SciFact nDCG@10 0.43 against 0.68), and any RRF of the two
// scored below BM25; a small share of its min-max normalised cosine added
// to BM25's normalised score lifts BM25 instead (0.10 to 0.30 all do;
// docs/retrieval.md). A learned embedder is usually as strong as BM25, and
// RRF with equal weights is the robust choice there.
func fusionAlpha(emb Embedder) float64 {
	if emb.Name() == localDefault.Name() {
		return LocalConvexAlpha
	}
	return 0
}

// LocalConvexAlpha is the dense weight of the convex fusion used with the
// local embedder.
const LocalConvexAlpha = 0.15

// candidates is how many hits each retriever contributes to the fusion.
func candidates(k int) int { return max(100, 4*k) }

// Search returns the opt.K best passages for query, best first, each with
// its neighbouring segments as context.
func (ix *Index) Search(ctx context.Context, query string, opt Options) ([]Passage, error) {
	k := opt.k()
	filter := opt.filter()
	var lexical, dense []Scored
	var wg sync.WaitGroup
	var denseErr error
	if opt.Mode != Lexical {
		wg.Go(func() { dense, denseErr = ix.dense(ctx, query, candidates(k), filter) })
	}
	if opt.Mode != Dense {
		lexical = ix.lexical(query, candidates(k), filter)
	}
	wg.Wait()
	if denseErr != nil {
		return nil, denseErr
	}
	var fused []Scored
	switch opt.Mode {
	case Dense:
		fused = dense
	case Lexical:
		fused = lexical
	default:
		if ix.alpha > 0 {
			fused = Convex(lexical, dense, ix.alpha)
			break
		}
		fused = RRF(RRFK, RankedList{ids(lexical), ix.bm25Weight}, RankedList{ids(dense), ix.denseWeight})
	}
	return ix.passages(fused[:min(k, len(fused))], opt.neighbours()), nil
}

func ids(s []Scored) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = x.ID
	}
	return out
}

// dense asks the store for the n segments nearest to the query's vector.
func (ix *Index) dense(ctx context.Context, query string, n int, filter store.Filter) ([]Scored, error) {
	if strings.TrimSpace(query) == "" {
		return nil, nil
	}
	vs, err := ix.emb.Embed(ctx, []string{query})
	if err != nil {
		return nil, fmt.Errorf("couldn't embed query: %w", err)
	}
	if len(vs) != 1 {
		return nil, fmt.Errorf("couldn't embed query: embedder returned %d vectors for 1 text", len(vs))
	}
	hits, err := ix.st.Query(ctx, vs[0], n, filter)
	if err != nil {
		return nil, fmt.Errorf("couldn't query vectors: %w", err)
	}
	out := make([]Scored, len(hits))
	for i, h := range hits {
		out[i] = Scored{h.Segment.ID, float64(h.Similarity)}
	}
	return out, nil
}

// lexical returns the n best BM25 segments the filter admits.
func (ix *Index) lexical(query string, n int, filter store.Filter) []Scored {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	var admit func(string) bool
	if filter != nil {
		admit = func(id string) bool {
			m, ok := ix.segs[id]
			if !ok {
				return false
			}
			doc := ix.docs[m.docID]
			seg := store.Segment{ID: id, DocumentID: m.docID, Section: m.section}
			return filter(&doc, &seg)
		}
	}
	return ix.bm25.Search(query, n, admit)
}

// passages looks the hits up in the store and adds their neighbours. A hit
// the store no longer has (deleted since) is skipped.
func (ix *Index) passages(hits []Scored, neighbours int) []Passage {
	out := make([]Passage, 0, len(hits))
	for _, h := range hits {
		seg, ok := ix.st.Segment(h.ID)
		if !ok {
			continue
		}
		doc, ok := ix.st.Document(seg.DocumentID)
		if !ok {
			continue
		}
		p := Passage{Segment: seg, Document: doc, Score: h.Score}
		if neighbours > 0 {
			all := ix.st.Segments(seg.DocumentID)
			lo, hi := max(0, seg.Index-neighbours), min(len(all), seg.Index+neighbours+1)
			if seg.Index < len(all) {
				p.Context = all[lo:hi:hi]
			}
		}
		if p.Context == nil {
			p.Context = []store.Segment{seg}
		}
		out = append(out, p)
	}
	return out
}
