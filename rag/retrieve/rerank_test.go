package retrieve

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// fakeReranker scores a doc by the first of its words found in scores (NaN
// when none is), and records what it was asked.
type fakeReranker struct {
	scores map[string]float64
	err    error
	short  bool // return one score too few
	query  string
	docs   []string
}

func (f *fakeReranker) Rerank(ctx context.Context, query string, docs []string) ([]float64, error) {
	f.query, f.docs = query, slices.Clone(docs)
	if f.err != nil {
		return nil, f.err
	}
	out := make([]float64, len(docs))
	for i, d := range docs {
		out[i] = math.NaN()
		for w, s := range f.scores {
			if strings.Contains(d, w) {
				out[i] = s
				break
			}
		}
	}
	if f.short {
		out = out[1:]
	}
	return out, nil
}

func TestSearchRerank(t *testing.T) {
	ix, _ := newTestIndex(t)
	ctx := context.Background()
	query := "random effects hospitals patients"
	plain, err := ix.Search(ctx, query, Options{K: 10, Mode: Lexical, Neighbours: -1})
	if err != nil || len(plain) < 3 {
		t.Fatalf("fusion: %v, %v", hitIDs(plain), err)
	}
	// The reranker prefers "Hospitals differ" (bbbb2222's passage), then
	// "cohorts" (in aaaa1111:1, merged into another hit's passage).
	find := func(ps []Passage, text string) string {
		for _, p := range ps {
			if strings.Contains(WindowText(p), text) {
				return p.Segment.ID
			}
		}
		return ""
	}
	hospitals, cohorts := find(plain, "Hospitals differ"), find(plain, "cohorts")
	if hospitals == "" || cohorts == "" || hospitals == plain[0].Segment.ID {
		t.Fatalf("fusion %v: the test needs both texts, neither first", hitIDs(plain))
	}
	r := &fakeReranker{scores: map[string]float64{"Hospitals differ": 0.9, "cohorts": 0.5}}
	ps, err := ix.Search(ctx, query, Options{K: 3, Mode: Lexical, Neighbours: -1, Rerank: r})
	if err != nil {
		t.Fatal(err)
	}
	if r.query != query {
		t.Errorf("reranker asked %q", r.query)
	}
	if len(r.docs) != len(plain) {
		t.Errorf("reranker saw %d candidates, want all %d (depth 30)", len(r.docs), len(plain))
	}
	if len(ps) != 3 {
		t.Fatalf("got %d passages, want K=3: %v", len(ps), hitIDs(ps))
	}
	if ps[0].Segment.ID != hospitals || ps[0].Score != 0.9 || ps[1].Segment.ID != cohorts || ps[1].Score != 0.5 {
		t.Errorf("reranked %v (scores %v, %v), want %s (0.9) then %s (0.5)", hitIDs(ps), ps[0].Score, ps[1].Score, hospitals, cohorts)
	}
	// The unscored keep fusion order after the scored: the best of them is
	// fusion's best that was not scored.
	var firstUnscored Passage
	for _, p := range plain {
		if p.Segment.ID != hospitals && p.Segment.ID != cohorts {
			firstUnscored = p
			break
		}
	}
	if ps[2].Segment.ID != firstUnscored.Segment.ID || ps[2].Score != firstUnscored.Score {
		t.Errorf("third %s (%v), want fusion's first unscored %s (%v)", ps[2].Segment.ID, ps[2].Score, firstUnscored.Segment.ID, firstUnscored.Score)
	}

	// Depth: a reranker sees RerankDepth candidates, never fewer than K.
	for _, tc := range []struct{ k, depth, want int }{{1, 2, 2}, {2, 1, 2}} {
		r := &fakeReranker{}
		ps, err := ix.Search(ctx, query, Options{K: tc.k, Mode: Lexical, Neighbours: -1, Rerank: r, RerankDepth: tc.depth})
		if err != nil || len(ps) != tc.k || len(r.docs) != tc.want {
			t.Errorf("K %d depth %d: %d passages, reranker saw %d, want %d (%v)", tc.k, tc.depth, len(ps), len(r.docs), tc.want, err)
		}
		// Nothing scored: fusion order as it was.
		if got, want := hitIDs(ps), hitIDs(plain[:tc.k]); !slices.Equal(got, want) {
			t.Errorf("unscored: %v, want fusion's %v", got, want)
		}
	}
}

// TestSearchRerankSeesWindows: a reranker judges each passage on its whole
// window, merged, as the model reads it.
func TestSearchRerankSeesWindows(t *testing.T) {
	ix, _ := newTestIndex(t)
	r := &fakeReranker{scores: map[string]float64{"Introduction": 1}}
	ps, err := ix.Search(context.Background(), "statistics mixed model", Options{K: 1, Mode: Lexical, Neighbours: 1, Rerank: r})
	if err != nil || len(ps) != 1 {
		t.Fatalf("%v, %v", hitIDs(ps), err)
	}
	want := WindowText(ps[0])
	if !slices.Contains(r.docs, want) {
		t.Fatalf("reranker saw %q, not the window %q", r.docs, want)
	}
	if !strings.Contains(want, "Methods: we sampled") || !strings.Contains(want, "Results: folding") || !strings.Contains(want, "\n\n") {
		t.Errorf("window text %q lacks the neighbours of the hit", want)
	}
}

func TestSearchRerankFails(t *testing.T) {
	ix, _ := newTestIndex(t)
	ctx := context.Background()
	boom := errors.New("reranker exploded")
	_, err := ix.Search(ctx, "random effects", Options{Mode: Lexical, Rerank: &fakeReranker{err: boom}})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "couldn't rerank") {
		t.Errorf("reranker error: %v", err)
	}
	_, err = ix.Search(ctx, "random effects", Options{Mode: Lexical, Rerank: &fakeReranker{short: true}})
	if err == nil || !strings.Contains(err.Error(), "scores for") {
		t.Errorf("too few scores: %v", err)
	}
	// No candidates: the reranker is not asked.
	r := &fakeReranker{err: boom}
	ps, err := ix.Search(ctx, "zzzzqqq", Options{Mode: Lexical, Rerank: r})
	if err != nil || len(ps) != 0 || r.docs != nil {
		t.Errorf("no candidates: %v, %v, asked %v", hitIDs(ps), err, r.docs)
	}
}

func TestWindowText(t *testing.T) {
	p := hit("d", 1, 1)
	p.Context[1].Text = "  middle \n"
	if got, want := WindowText(p), "d paragraph 0\n\nmiddle\n\nd paragraph 2"; got != want {
		t.Errorf("WindowText = %q, want %q", got, want)
	}
}
