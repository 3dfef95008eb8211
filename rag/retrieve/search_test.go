package retrieve

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/ibid-dev/ibid/store"
	_ "github.com/ibid-dev/ibid/store/embedded" // the "memory:" store
)

// testDoc is a document with one segment per text, in sections.
type testDoc struct {
	id, path string
	texts    []string
	sections [][]string
}

func putDoc(t *testing.T, st store.Store, emb Embedder, d testDoc) (store.Document, []store.Segment) {
	t.Helper()
	doc := store.Document{ID: d.id, Path: d.path, Hash: d.id, Format: "text", Segments: len(d.texts)}
	vs, err := emb.Embed(context.Background(), d.texts)
	if err != nil {
		t.Fatal(err)
	}
	segs := make([]store.Segment, len(d.texts))
	for i, text := range d.texts {
		segs[i] = store.Segment{ID: fmt.Sprintf("%s:%d", d.id, i), DocumentID: d.id, Index: i, Text: text, Vector: vs[i]}
		if d.sections != nil {
			segs[i].Section = d.sections[i]
		}
	}
	if err := st.Update(context.Background(), []store.Put{{Document: doc, Segments: segs}}, nil); err != nil {
		t.Fatal(err)
	}
	return doc, segs
}

var (
	paperA = testDoc{"aaaa1111", "/papers/alpha.pdf",
		[]string{
			"Introduction: protein folding remains hard.",
			"Methods: we sampled cohorts of patients.",
			"Statistics: a mixed model with random effects for each hospital.",
			"Results: folding times fell by half.",
			"Discussion: random effects matter for hospitals.",
		},
		[][]string{{"Introduction"}, {"Methods"}, {"Methods", "Statistics"}, {"Results"}, {"Discussion"}},
	}
	noteB = testDoc{"bbbb2222", "/notes/beta.md",
		[]string{"Random effects models in plain words.", "Hospitals differ, and so do their patients."},
		[][]string{{"Notes"}, {"Notes", "Hospitals"}},
	}
	paperC = testDoc{"cccc3333", "/papers/gamma.pdf",
		[]string{"タンパク質の折りたたみと機械学習。"},
		nil,
	}
)

// testIndex is a store in memory holding paperA and noteB, with the
// embedder that built it.
type testIndex struct {
	st  store.Store
	emb Embedder
}

func (ix testIndex) Search(ctx context.Context, query string, opt Options) ([]Passage, error) {
	return Search(ctx, ix.st, ix.emb, query, opt)
}

func newTestIndex(t *testing.T) (testIndex, store.Store) {
	t.Helper()
	emb := NewLocalEmbedder()
	st := memStore(t, emb)
	for _, d := range []testDoc{paperA, noteB} {
		putDoc(t, st, emb, d)
	}
	return testIndex{st, emb}, st
}

func memStore(t testing.TB, emb Embedder) store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), "memory:", store.Options{Info: store.Info{Embedder: emb.Name(), Dimension: emb.Dimension()}, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func deleteDoc(t testing.TB, st store.Store, id string) {
	t.Helper()
	if err := st.Update(context.Background(), nil, []string{id}); err != nil {
		t.Fatal(err)
	}
}

func hitIDs(ps []Passage) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Segment.ID)
	}
	return out
}

func TestSearchModes(t *testing.T) {
	ix, _ := newTestIndex(t)
	for _, m := range []Mode{Hybrid, Dense, Lexical} {
		t.Run(m.String(), func(t *testing.T) {
			// Without neighbours, so that paperA's hits 2 and 4 stay apart.
			ps, err := ix.Search(context.Background(), "random effects for hospitals", Options{K: 3, Mode: m, Neighbours: -1})
			if err != nil {
				t.Fatal(err)
			}
			if len(ps) != 3 {
				t.Fatalf("got %d passages: %v", len(ps), hitIDs(ps))
			}
			top := ps[0].Segment.ID
			if top != "aaaa1111:2" && top != "aaaa1111:4" && top != "bbbb2222:0" {
				t.Errorf("top hit %s: %q", top, ps[0].Segment.Text)
			}
			for i := 1; i < len(ps); i++ {
				if ps[i].Score > ps[i-1].Score {
					t.Errorf("scores not descending: %v", ps)
				}
			}
			if ps[0].Document.ID != ps[0].Segment.DocumentID || ps[0].Document.Path == "" {
				t.Errorf("passage document %+v for segment %s", ps[0].Document, ps[0].Segment.ID)
			}
		})
	}
}

func TestSearchFilters(t *testing.T) {
	ix, _ := newTestIndex(t)
	tests := []struct {
		name string
		opt  Options
		want func(id string) bool
	}{
		{"document id", Options{Documents: []string{"bbbb2222"}}, func(id string) bool { return id[:4] == "bbbb" }},
		{"id prefix", Options{Documents: []string{"aaaa"}}, func(id string) bool { return id[:4] == "aaaa" }},
		{"path glob", Options{Documents: []string{"/notes/*.md"}}, func(id string) bool { return id[:4] == "bbbb" }},
		{"base name glob", Options{Documents: []string{"*.pdf"}}, func(id string) bool { return id[:4] == "aaaa" }},
		{"section", Options{Section: "STATISTICS"}, func(id string) bool { return id == "aaaa1111:2" }},
		{"section path", Options{Section: "notes / hosp"}, func(id string) bool { return id == "bbbb2222:1" }},
		{"both", Options{Documents: []string{"*.md"}, Section: "notes"}, func(id string) bool { return id[:4] == "bbbb" }},
	}
	for _, tc := range tests {
		for _, m := range []Mode{Hybrid, Dense, Lexical} {
			t.Run(tc.name+"/"+m.String(), func(t *testing.T) {
				opt := tc.opt
				opt.Mode, opt.K = m, 10
				ps, err := ix.Search(context.Background(), "random effects hospitals patients", opt)
				if err != nil {
					t.Fatal(err)
				}
				if len(ps) == 0 {
					t.Fatal("no passages")
				}
				for _, p := range ps {
					if !tc.want(p.Segment.ID) {
						t.Errorf("filter admitted %s", p.Segment.ID)
					}
				}
			})
		}
	}
	ps, err := ix.Search(context.Background(), "random", Options{Documents: []string{"nothing*"}})
	if err != nil || len(ps) != 0 {
		t.Errorf("filter admitting nothing: %v, %v", hitIDs(ps), err)
	}
}

func TestSearchNeighbours(t *testing.T) {
	ix, _ := newTestIndex(t)
	ctxIDs := func(p Passage) []string {
		var out []string
		for _, s := range p.Context {
			out = append(out, s.ID)
		}
		return out
	}
	tests := []struct {
		section    string
		neighbours int
		want       []string
	}{
		{"statistics", 0, []string{"aaaa1111:1", "aaaa1111:2", "aaaa1111:3"}}, // default 1
		{"statistics", 1, []string{"aaaa1111:1", "aaaa1111:2", "aaaa1111:3"}},
		{"statistics", 2, []string{"aaaa1111:0", "aaaa1111:1", "aaaa1111:2", "aaaa1111:3", "aaaa1111:4"}},
		{"statistics", -1, []string{"aaaa1111:2"}},
		{"introduction", 2, []string{"aaaa1111:0", "aaaa1111:1", "aaaa1111:2"}},
		{"discussion", 1, []string{"aaaa1111:3", "aaaa1111:4"}},
	}
	for _, tc := range tests {
		ps, err := ix.Search(context.Background(), "random effects folding", Options{K: 1, Section: tc.section, Neighbours: tc.neighbours, Mode: Lexical})
		if err != nil || len(ps) != 1 {
			t.Fatalf("%s: %v, %v", tc.section, hitIDs(ps), err)
		}
		if got := ctxIDs(ps[0]); !slices.Equal(got, tc.want) {
			t.Errorf("%s ±%d: context %v, want %v", tc.section, tc.neighbours, got, tc.want)
		}
	}
}

func TestSearchFollowsStore(t *testing.T) {
	ix, st := newTestIndex(t)
	ctx := context.Background()
	putDoc(t, st, ix.emb, paperC)
	ps, err := ix.Search(ctx, "機械学習", Options{K: 1, Mode: Lexical})
	if err != nil || len(ps) != 1 || ps[0].Segment.ID != "cccc3333:0" {
		t.Fatalf("after adding: %v, %v", hitIDs(ps), err)
	}
	deleteDoc(t, st, paperC.id)
	for _, m := range []Mode{Hybrid, Lexical, Dense} {
		ps, err = ix.Search(ctx, "機械学習", Options{Mode: m})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			if p.Document.ID == paperC.id {
				t.Errorf("%v: removed document found", m)
			}
		}
	}
	if n, err := st.Len(ctx); err != nil || n != 7 {
		t.Errorf("store holds %d segments (%v), want 7", n, err)
	}
}

// TestSearchPages: the page range of Options reaches the store's filter.
func TestSearchPages(t *testing.T) {
	emb := NewLocalEmbedder()
	st := memStore(t, emb)
	d := paperA
	doc, segs := store.Document{ID: d.id, Path: d.path, Format: "pdf"}, []store.Segment{}
	vs, _ := emb.Embed(context.Background(), d.texts)
	for i, text := range d.texts {
		segs = append(segs, store.Segment{ID: fmt.Sprintf("%s:%d", d.id, i), DocumentID: d.id, Index: i, Text: text,
			PageStart: i + 1, PageEnd: i + 1, Vector: vs[i]})
	}
	if err := st.Update(context.Background(), []store.Put{{Document: doc, Segments: segs}}, nil); err != nil {
		t.Fatal(err)
	}
	for _, m := range []Mode{Hybrid, Dense, Lexical} {
		ps, err := Search(context.Background(), st, emb, "random effects hospitals folding", Options{K: 10, Mode: m, PageFrom: 3, PageTo: 4, Neighbours: -1})
		if err != nil {
			t.Fatal(err)
		}
		if got := hitIDs(ps); len(got) == 0 || !slices.ContainsFunc(got, func(id string) bool { return id == "aaaa1111:2" }) {
			t.Errorf("%v: %v, want pages 3-4 only", m, got)
		}
		for _, p := range ps {
			if p.Segment.PageStart < 3 || p.Segment.PageStart > 4 {
				t.Errorf("%v: page %d admitted", m, p.Segment.PageStart)
			}
		}
	}
}

func TestSearchEmptyQuery(t *testing.T) {
	ix, _ := newTestIndex(t)
	for _, q := range []string{"", "   ", "the of and"} {
		ps, err := ix.Search(context.Background(), q, Options{})
		if err != nil || len(ps) != 0 {
			t.Errorf("Search(%q) = %v, %v; want nothing", q, hitIDs(ps), err)
		}
	}
}

// TestSearchWhileAdding runs searches while documents come and go (run
// with -race).
func TestSearchWhileAdding(t *testing.T) {
	ix, st := newTestIndex(t)
	ctx := context.Background()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 20 {
			d := paperC
			d.id = fmt.Sprintf("cccc%04d", i)
			doc, _ := putDoc(t, st, ix.emb, d)
			if i%2 == 0 {
				deleteDoc(t, st, doc.ID)
			}
		}
	}()
	for range 50 {
		if _, err := ix.Search(ctx, "機械学習 random effects", Options{K: 5}); err != nil {
			t.Fatal(err)
		}
	}
	<-done
	ps, err := ix.Search(ctx, "機械学習", Options{K: 20, Mode: Lexical})
	if err != nil || len(ps) != 10 {
		t.Errorf("after adding 20 and removing 10: %d hits, %v", len(ps), err)
	}
}

// windowStore records how a search reads segments.
type windowStore struct {
	store.Store
	mu      sync.Mutex
	windows [][2]int
	listed  bool
}

func (w *windowStore) Segments(ctx context.Context, doc string, from, to int) ([]store.Segment, error) {
	w.mu.Lock()
	w.windows = append(w.windows, [2]int{from, to})
	w.mu.Unlock()
	return w.Store.Segments(ctx, doc, from, to)
}

func (w *windowStore) Documents(ctx context.Context) ([]store.Document, error) {
	w.listed = true
	return w.Store.Documents(ctx)
}

// TestSearchReadsWindows: a search reads each hit's neighbours as one
// window of 2n+1 segments, never a whole document or the library, and
// reads no more hits than its merged passages hold.
func TestSearchReadsWindows(t *testing.T) {
	ix, st := newTestIndex(t)
	w := &windowStore{Store: st}
	for _, n := range []int{1, 2} {
		w.windows = nil
		ps, err := Search(context.Background(), w, ix.emb, "random effects hospitals", Options{K: 3, Neighbours: n})
		if err != nil || len(ps) == 0 {
			t.Fatalf("%v, %v", hitIDs(ps), err)
		}
		centres := map[int]int{}
		for _, p := range ps {
			centres[p.Segment.Index-n]++
			for _, h := range p.Hits {
				centres[h.Segment.Index-n]++
			}
		}
		reads := 0
		for _, c := range centres {
			reads += c
		}
		if len(w.windows) != reads {
			t.Fatalf("±%d: %d reads for %d hits", n, len(w.windows), reads)
		}
		for _, win := range w.windows {
			if win[1] < 0 || win[1]-win[0] != 2*n+1 || centres[win[0]] == 0 {
				t.Errorf("±%d: read window %v, not around a hit", n, win)
			}
		}
	}
	if w.listed {
		t.Error("a search listed the library's documents")
	}
}
