package embedded

import (
	"context"
	"slices"
	"testing"

	"github.com/ibid-dev/ibid/store"
	"github.com/ibid-dev/ibid/store/keyword"
)

// checkParentsHidden fails unless s holds the documents of docs (id →
// segments, version) whole and never returns a parent (makeDoc's segment 0,
// named by every fourth segment) from Dense, by the collection or by scan,
// nor from Keyword, while finding every other segment; and DocFreq leaves
// the parents out.
func checkParentsHidden(t *testing.T, s *Store, docs map[string][2]int) {
	t.Helper()
	ctx := context.Background()
	n, searchable, withTerm := 0, 0, 0 // segments; not parents; of those, holding "segment"
	for id, nv := range docs {
		checkDoc(t, s, id, nv[0], nv[1])
		n += nv[0]
		_, segs := makeDoc(id, nv[0], testInfo.Dimension, nv[1])
		parent, _ := store.Parents(segs)
		for i, sg := range segs {
			if !parent[i] {
				searchable++
				if slices.Contains(keyword.Tokenize(sg.KeywordText()), keyword.Tokenize("segment")[0]) {
					withTerm++
				}
			}
		}
	}
	if got, _ := s.Len(ctx); got != n {
		t.Fatalf("Len = %d, want %d", got, n)
	}
	for id, nv := range docs {
		_, segs := makeDoc(id, nv[0], testInfo.Dimension, nv[1])
		parent, err := store.Parents(segs)
		if err != nil {
			t.Fatal(err)
		}
		for i, sg := range segs {
			for _, f := range []store.Filter{{}, {Documents: []string{id}}} {
				hits, err := s.Dense(ctx, sg.Vector, 1, f)
				if err != nil {
					t.Fatal(err)
				}
				if found := len(hits) == 1 && hits[0].Segment.ID == sg.ID; found == parent[i] {
					t.Fatalf("Dense filter %+v with %s's own vector: %v (parent: %v)", f, sg.ID, hits, parent[i])
				}
				kw, err := s.Keyword(ctx, sg.KeywordText(), 1000, f)
				if err != nil {
					t.Fatal(err)
				}
				if found := slices.ContainsFunc(kw, func(h store.Hit) bool { return h.Segment.ID == sg.ID }); found == parent[i] {
					t.Fatalf("Keyword(%q) filter %+v: %s found: %v, a parent: %v",
						sg.KeywordText(), f, sg.ID, found, parent[i])
				}
			}
		}
	}
	terms := keyword.Tokenize("segment")
	df, segs, err := s.DocFreq(ctx, terms)
	if err != nil || segs != searchable || df[0] != withTerm {
		t.Fatalf("DocFreq(segment) = %v, %d, %v; want %d, %d", df, segs, err, withTerm, searchable)
	}
}

// TestIndexRowsCompactionAndCatchUp: the parents are derived again by
// compaction, by a store following another's commits record by record or
// generation by generation, and on opening.
func TestIndexRowsCompactionAndCatchUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s1 := mustOpen(t, dir, testInfo)
	defer s1.Close()
	s2 := mustOpen(t, dir, testInfo)
	defer s2.Close()
	put(t, s1, "a", 8, 1)
	put(t, s1, "b", 5, 1)
	checkParentsHidden(t, s2, map[string][2]int{"a": {8, 1}, "b": {5, 1}}) // record by record
	put(t, s1, "a", 9, 2)
	if err := s1.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	want := map[string][2]int{"a": {9, 2}, "b": {5, 1}}
	checkParentsHidden(t, s1, want)
	checkParentsHidden(t, s2, want) // a new generation
	put(t, s2, "c", 3, 1)           // no index rows: nothing hidden
	put(t, s2, "b", 4, 2)
	want = map[string][2]int{"a": {9, 2}, "b": {4, 2}, "c": {3, 1}}
	checkParentsHidden(t, s1, want)
	s1.Close()
	s2.Close()
	s3 := mustOpen(t, dir, testInfo)
	defer s3.Close()
	checkParentsHidden(t, s3, want)
}

// TestIndexRowsKeywordFileWithParents: a saved keyword index that holds
// parents (as one saved before the rule would) loses them on opening.
func TestIndexRowsKeywordFileWithParents(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := mustOpen(t, dir, testInfo)
	put(t, s, "a", 8, 1)
	s.Close()
	_, segs := makeDoc("a", 8, testInfo.Dimension, 1)
	var ids, texts []string
	for _, sg := range segs {
		ids, texts = append(ids, sg.ID), append(texts, sg.KeywordText())
	}
	if err := keyword.BuildFunc(ids, func(i int) string { return texts[i] }).Save((&disk{dir: dir}).path(keywordName)); err != nil {
		t.Fatal(err)
	}
	s = mustOpen(t, dir, testInfo)
	defer s.Close()
	checkParentsHidden(t, s, map[string][2]int{"a": {8, 1}})
}

// TestIndexRowsParentVectorInLog: a log whose parent has a vector (written
// by a writer that kept it) is read with the parent never found by Dense,
// before and after a compaction.
func TestIndexRowsParentVectorInLog(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	dim := testInfo.Dimension
	s := mustOpen(t, dir, testInfo)
	doc, segs := makeDoc("old", 4, dim, 1)
	doc.Segments = len(segs)
	e := &entry{doc: doc, segs: segs, zero: make([]bool, len(segs)), parent: make([]bool, len(segs))}
	for i := range segs {
		e.vecs = append(e.vecs, segs[i].Vector...)
		segs[i].Vector = nil
	}
	e.sum = vecSum(e.vecs)
	if err := s.lock(ctx); err != nil {
		t.Fatal(err)
	}
	err := s.writeLocked(ctx, s.disk, []*entry{e}, nil)
	s.unlock()
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	parentVec := vec("old/1", 0, dim)
	for round := range 2 {
		s = mustOpen(t, dir, testInfo)
		if v, err := s.Vectors(ctx, "old"); err != nil || !close32(v[0], parentVec) {
			t.Fatalf("round %d: the log's parent vector was not read: %v, %v", round, v, err)
		}
		for _, f := range []store.Filter{{}, {Documents: []string{"old"}}} {
			hits, err := s.Dense(ctx, parentVec, 10, f)
			if err != nil || len(hits) != 3 || slices.ContainsFunc(hits, func(h store.Hit) bool { return h.Segment.ID == "old:0" }) {
				t.Fatalf("round %d, filter %+v: Dense = %v, %v; want the 3 segments but the parent", round, f, hits, err)
			}
		}
		if round == 0 {
			if err := s.Compact(ctx); err != nil {
				t.Fatal(err)
			}
		}
		s.Close()
	}
}
