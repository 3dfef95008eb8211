package storetest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/store"
	"github.com/ibid-dev/ibid/store/keyword"
)

func hitIDs(hs []store.Hit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.Segment.ID
	}
	return out
}

// ordered fails unless hits are best first, ties by id.
func ordered(t testing.TB, what string, hs []store.Hit) {
	t.Helper()
	for i := 1; i < len(hs); i++ {
		a, b := hs[i-1], hs[i]
		if a.Score < b.Score || a.Score == b.Score && a.Segment.ID > b.Segment.ID {
			t.Fatalf("%s: hits out of order at %d: %v %v, then %v %v", what, i, a.Segment.ID, a.Score, b.Segment.ID, b.Score)
		}
	}
}

func testDenseOrder(t *testing.T, h Harness) {
	ctx := context.Background()
	st, _ := fresh(t, h)
	var puts []store.Put
	for d := range 20 {
		puts = append(puts, doc(fmt.Sprintf("doc%02d", d), 4, 1))
	}
	update(t, st, puts)
	for _, p := range []store.Put{puts[0], puts[7], puts[19]} {
		s := p.Segments[2]
		hits, err := st.Dense(ctx, s.Vector, 3, store.Filter{})
		if err != nil || len(hits) != 3 || hits[0].Segment.ID != s.ID || hits[0].Score < 0.9999 {
			t.Fatalf("Dense for %s: %v, %v", s.ID, hits, err)
		}
		if hits[0].Segment.Text != s.Text || hits[0].Segment.Vector != nil {
			t.Fatalf("hit segment = %+v", hits[0].Segment)
		}
		ordered(t, "Dense", hits)
		// The scale of the query does not matter (cosine).
		scaled := slices.Clone(s.Vector)
		for i := range scaled {
			scaled[i] *= 7
		}
		again, err := st.Dense(ctx, scaled, 3, store.Filter{})
		if err != nil || !slices.Equal(hitIDs(again), hitIDs(hits)) {
			t.Fatalf("scaled query: %v, %v; want %v", hitIDs(again), err, hitIDs(hits))
		}
	}
	hits, err := st.Dense(ctx, Vector("x", 0, testInfo.Dimension), 1000, store.Filter{})
	if err != nil || len(hits) != 80 {
		t.Fatalf("k > Len: %d hits, %v", len(hits), err)
	}
	ordered(t, "Dense all", hits)
	if hits, err := st.Dense(ctx, Vector("x", 0, testInfo.Dimension), 0, store.Filter{}); err != nil || len(hits) != 0 {
		t.Fatalf("k = 0: %v, %v", hits, err)
	}
}

func testZeroVectors(t *testing.T, h Harness) {
	ctx := context.Background()
	st, _ := fresh(t, h)
	p := doc("a", 3, 1)
	for j := range p.Segments[0].Vector {
		p.Segments[0].Vector[j] *= 3 // not normalised
	}
	p.Segments[1].Vector = make([]float32, testInfo.Dimension) // zero
	update(t, st, []store.Put{p})
	vecs, err := st.Vectors(ctx, "a")
	if err != nil || !Near(vecs[0], doc("a", 3, 1).Segments[0].Vector) {
		t.Fatalf("stored vector %v is not the normalised input (%v)", vecs, err)
	}
	for _, f := range []store.Filter{{}, {Documents: []string{"a"}}} {
		hits, err := st.Dense(ctx, doc("a", 3, 1).Segments[0].Vector, 10, f)
		if err != nil || len(hits) != 2 || slices.Contains(hitIDs(hits), "a:1") {
			t.Fatalf("filter %+v: zero-vector segment returned, or others missing: %v, %v", f, hitIDs(hits), err)
		}
	}
	if _, _, err := st.Segment(ctx, "a:1"); err != nil {
		t.Fatalf("zero-vector segment not stored: %v", err)
	}
	if hits, err := st.Keyword(ctx, "segment 1", 10, store.Filter{}); err != nil || !slices.Contains(hitIDs(hits), "a:1") {
		t.Fatalf("zero-vector segment not found by keyword: %v, %v", hitIDs(hits), err)
	}
	hits, err := st.Dense(ctx, make([]float32, testInfo.Dimension), 5, store.Filter{})
	if err != nil || len(hits) != 0 {
		t.Fatalf("zero query: %v, %v", hits, err)
	}
}

// filterLibrary is a library whose documents and segments differ in every
// field a filter looks at.
func filterLibrary(t testing.TB, st store.Store) {
	var puts []store.Put
	sections := [][]string{{"1 Introduction"}, {"Methods", "Statistics"}, {"2.1. Methods", "Data"}, {"Results"}, nil}
	pages := [][2]int{{1, 1}, {2, 3}, {3, 3}, {5, 6}, {0, 0}}
	for d, path := range []string{"/papers/alpha.pdf", "/papers/beta.pdf", "/notes/gamma.md", "/notes/sub/delta.md", "/x/epsilon.txt"} {
		id := fmt.Sprintf("%c%03d", 'a'+d, d)
		texts := make([]string, 5)
		for i := range texts {
			texts[i] = fmt.Sprintf("hospital patients effects %s part %d", strings.Repeat("random ", 1+(d+i)%3), i)
		}
		puts = append(puts, custom(id, path, texts, sections, pages))
	}
	update(t, st, puts)
}

// filters are the filters every backend must answer as Filter.Match does.
var filters = []store.Filter{
	{},
	{Documents: []string{"b001"}},
	{Documents: []string{"c"}},
	{Documents: []string{"/notes/*"}},
	{Documents: []string{"*.md"}},
	{Documents: []string{"/notes/sub/*.md", "a000"}},
	{Documents: []string{"alpha.pdf"}},
	{Documents: []string{"nothing*"}},
	{Section: "methods"},
	{Section: "METHODS / stat"},
	{Section: "results"},
	{PageFrom: 3},
	{PageTo: 2},
	{PageFrom: 3, PageTo: 5},
	{PageFrom: 4, PageTo: 4},
	{Documents: []string{"*.pdf"}, Section: "methods", PageFrom: 3},
	{SkipHeadings: []string{"methods"}},
	{SkipHeadings: []string{"RESULTS", "introduction"}},
	{SkipHeadings: []string{"method", "statistics", "methods / data", "res_lts", "result%", ""}},
	{SkipHeadings: []string{"references", "appendix"}},
	{Section: "methods", SkipHeadings: []string{"results"}},
}

func testFilters(t *testing.T, h Harness) {
	ctx := context.Background()
	st, _ := fresh(t, h)
	filterLibrary(t, st)
	docs, err := st.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]store.Document{}
	for _, d := range docs {
		all[d.ID] = d
	}
	admits := func(f store.Filter, seg store.Segment) bool {
		d := all[seg.DocumentID]
		return f.Match(&d, &seg)
	}
	q := Vector("c002", 2, testInfo.Dimension)
	denseAll, err := st.Dense(ctx, q, 1000, store.Filter{})
	if err != nil || len(denseAll) != 25 {
		t.Fatalf("Dense: %d hits, %v", len(denseAll), err)
	}
	const query = "random hospital effects"
	kwAll, err := st.Keyword(ctx, query, 1000, store.Filter{})
	if err != nil || len(kwAll) != 25 {
		t.Fatalf("Keyword: %d hits, %v", len(kwAll), err)
	}
	for _, f := range filters {
		t.Run(fmt.Sprintf("%+v", f), func(t *testing.T) {
			for _, k := range []int{3, 1000} {
				// Each filtered search is the unfiltered one restricted by
				// Match, in the same order (dense) or at least with the
				// same segments (keyword: scores may depend on the
				// backend's statistics, not on the filter).
				var want []string
				for _, h := range denseAll {
					if admits(f, h.Segment) {
						want = append(want, h.Segment.ID)
					}
				}
				want = want[:min(k, len(want))]
				got, err := st.Dense(ctx, q, k, f)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(hitIDs(got), want) && !(len(want) == 0 && len(got) == 0) {
					t.Errorf("Dense k=%d: %v, want %v", k, hitIDs(got), want)
				}
				want = want[:0]
				for _, h := range kwAll {
					if admits(f, h.Segment) {
						want = append(want, h.Segment.ID)
					}
				}
				kw, err := st.Keyword(ctx, query, k, f)
				if err != nil {
					t.Fatal(err)
				}
				ordered(t, "Keyword", kw)
				for _, h := range kw {
					if !admits(f, h.Segment) {
						t.Errorf("Keyword k=%d admitted %s", k, h.Segment.ID)
					}
				}
				if k == 1000 {
					g, w := hitIDs(kw), slices.Clone(want)
					slices.Sort(g)
					slices.Sort(w)
					if !slices.Equal(g, w) {
						t.Errorf("Keyword: %v, want %v", g, w)
					}
				} else if len(kw) != min(k, len(want)) {
					t.Errorf("Keyword k=%d: %d hits, want %d", k, len(kw), min(k, len(want)))
				}
			}
		})
	}
}

func testKeyword(t *testing.T, h Harness) {
	ctx := context.Background()
	st, _ := fresh(t, h)
	update(t, st, []store.Put{
		custom("p1", "/p1.txt", []string{
			"Protein folding is studied with molecular dynamics.",
			"Hospitals and patients: a cohort study of hospital stays.",
			"Nothing relevant here at all.",
		}, nil, nil),
		custom("p2", "/p2.txt", []string{
			"Folding of proteins; folding again, and folding thrice.",
			"機械学習による翻訳の研究",
		}, nil, nil),
	})
	hits, err := st.Keyword(ctx, "protein folding", 10, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	ids := hitIDs(hits)
	if len(ids) != 2 || !slices.Contains(ids, "p1:0") || !slices.Contains(ids, "p2:0") {
		t.Fatalf("protein folding: %v, want p1:0 and p2:0 (stemmed: proteins, folding)", ids)
	}
	ordered(t, "Keyword", hits)
	// A segment matching more of the query ranks above one matching less.
	hits, err = st.Keyword(ctx, "hospital patients cohort", 10, store.Filter{})
	if err != nil || len(hits) == 0 || hits[0].Segment.ID != "p1:1" {
		t.Fatalf("hospital patients cohort: %v, %v", hitIDs(hits), err)
	}
	hits, err = st.Keyword(ctx, "機械学習", 10, store.Filter{})
	if err != nil || len(hits) != 1 || hits[0].Segment.ID != "p2:1" {
		t.Fatalf("CJK: %v, %v", hitIDs(hits), err)
	}
	for _, q := range []string{"", "   ", "unicorn", "the of and"} {
		if hits, err := st.Keyword(ctx, q, 10, store.Filter{}); err != nil || len(hits) != 0 {
			t.Errorf("Keyword(%q) = %v, %v; want nothing", q, hitIDs(hits), err)
		}
	}
	if hits, err := st.Keyword(ctx, "folding", 1, store.Filter{}); err != nil || len(hits) != 1 {
		t.Fatalf("k=1: %v, %v", hitIDs(hits), err)
	}
	// The optional term statistics agree with what the search matches.
	if tc, ok := st.(store.TermCounter); ok {
		terms := keyword.Tokenize("folding hospital 機械学習 unicorn")
		df, n, err := tc.DocFreq(ctx, terms)
		want := []int{2, 1, 1, 1, 1, 0} // fold; hospit; 機械 械学 学習; unicorn
		if err != nil || n != 5 || !slices.Equal(df, want) {
			t.Fatalf("DocFreq(%q) = %v, %d, %v; want %v, 5", terms, df, n, err, want)
		}
	}
}

func testKeywordIndexText(t *testing.T, h Harness) {
	ctx := context.Background()
	st, loc := fresh(t, h)
	p := custom("q", "/q.txt", []string{"The shown text mentions aardvarks.", "Plain text about zebras."}, nil, nil)
	p.Segments[0].IndexText = "Generated questions: what do pangolins eat?"
	update(t, st, []store.Put{p})
	check := func(st store.Store) {
		t.Helper()
		hits, err := st.Keyword(ctx, "pangolins", 10, store.Filter{})
		if err != nil || len(hits) != 1 || hits[0].Segment.ID != "q:0" {
			t.Fatalf("IndexText not searched: %v, %v", hitIDs(hits), err)
		}
		if hits[0].Segment.Text != p.Segments[0].Text || hits[0].Segment.IndexText != p.Segments[0].IndexText {
			t.Fatalf("hit = %+v", hits[0].Segment)
		}
		if hits, err := st.Keyword(ctx, "aardvarks", 10, store.Filter{}); err != nil || len(hits) != 0 {
			t.Fatalf("Text searched although IndexText is set: %v, %v", hitIDs(hits), err)
		}
		if hits, err := st.Keyword(ctx, "zebras", 10, store.Filter{}); err != nil || len(hits) != 1 {
			t.Fatalf("Text not searched without IndexText: %v, %v", hitIDs(hits), err)
		}
	}
	check(st)
	st.Close()
	check(open(t, loc, "lib"))
}
