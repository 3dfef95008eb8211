package retrieve

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/ibid-dev/ibid/store"
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
	if err := st.PutDocument(context.Background(), doc, segs); err != nil {
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

func newTestIndex(t *testing.T) (*Index, store.Store) {
	t.Helper()
	emb := NewLocalEmbedder()
	st, err := store.Open("", store.Info{Embedder: emb.Name(), Dimension: emb.Dimension()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	for _, d := range []testDoc{paperA, noteB} {
		putDoc(t, st, emb, d)
	}
	ix, err := NewIndex(st, emb)
	if err != nil {
		t.Fatal(err)
	}
	return ix, st
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
			ps, err := ix.Search(context.Background(), "random effects for hospitals", Options{K: 3, Mode: m})
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

func TestIndexAddRemove(t *testing.T) {
	ix, st := newTestIndex(t)
	ctx := context.Background()
	doc, segs := putDoc(t, st, ix.emb, paperC)
	ix.AddDocument(doc, segs)
	ps, err := ix.Search(ctx, "機械学習", Options{K: 1, Mode: Lexical})
	if err != nil || len(ps) != 1 || ps[0].Segment.ID != "cccc3333:0" {
		t.Fatalf("after AddDocument: %v, %v", hitIDs(ps), err)
	}
	if err := st.DeleteDocument(ctx, doc.ID); err != nil {
		t.Fatal(err)
	}
	ix.RemoveDocument(doc.ID)
	for _, m := range []Mode{Hybrid, Lexical} {
		ps, err = ix.Search(ctx, "機械学習", Options{Mode: m})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			if p.Document.ID == doc.ID {
				t.Errorf("%v: removed document found", m)
			}
		}
	}
	// A hit whose document the store lost before the index heard of it is
	// skipped, not returned half-empty.
	if err := st.DeleteDocument(ctx, noteB.id); err != nil {
		t.Fatal(err)
	}
	ps, err = ix.Search(ctx, "plain words", Options{Mode: Lexical})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if p.Document.ID == noteB.id {
			t.Errorf("stale hit %s returned", p.Segment.ID)
		}
	}
	if ix.BM25().Len() != 7 {
		t.Errorf("BM25 holds %d segments, want 7", ix.BM25().Len())
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
			doc, segs := putDoc(t, st, ix.emb, d)
			ix.AddDocument(doc, segs)
			if i%2 == 0 {
				st.DeleteDocument(ctx, doc.ID)
				ix.RemoveDocument(doc.ID)
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
