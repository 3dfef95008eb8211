package storetest

import (
	"context"
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/store"
)

// checkDoc fails unless st holds p's document whole, with its segments
// (without vectors) and its vectors (normalised).
func checkDoc(t testing.TB, st store.Store, p store.Put) {
	t.Helper()
	ctx := context.Background()
	got, err := st.Document(ctx, p.Document.ID)
	if err != nil {
		t.Fatalf("Document(%s): %v", p.Document.ID, err)
	}
	want := p.Document
	want.Segments = len(p.Segments)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Document(%s) = %+v, want %+v", want.ID, got, want)
	}
	segs, err := st.Segments(ctx, want.ID, 0, -1)
	if err != nil || len(segs) != len(p.Segments) {
		t.Fatalf("Segments(%s) = %d segments, %v; want %d", want.ID, len(segs), err, len(p.Segments))
	}
	vecs, err := st.Vectors(ctx, want.ID)
	if err != nil || len(vecs) != len(p.Segments) {
		t.Fatalf("Vectors(%s) = %d rows, %v", want.ID, len(vecs), err)
	}
	for i, w := range p.Segments {
		if !Near(vecs[i], w.Vector) {
			t.Fatalf("vector of %s = %v, want %v", w.ID, vecs[i], w.Vector)
		}
		w.Vector = nil
		if !reflect.DeepEqual(segs[i], w) {
			t.Fatalf("segment %d of %s = %+v, want %+v", i, want.ID, segs[i], w)
		}
		one, d, err := st.Segment(ctx, w.ID)
		if err != nil || !reflect.DeepEqual(one, w) || d.ID != want.ID {
			t.Fatalf("Segment(%s) = %+v, %s, %v", w.ID, one, d.ID, err)
		}
	}
}

// Near reports whether two vectors are equal to float32 precision.
func Near(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > 1e-5 {
			return false
		}
	}
	return true
}

func length(t testing.TB, st store.Store) int {
	t.Helper()
	n, err := st.Len(context.Background())
	if err != nil {
		t.Fatalf("Len: %v", err)
	}
	return n
}

func testPutReplaceDelete(t *testing.T, h Harness) {
	ctx := context.Background()
	st, _ := fresh(t, h)
	a1, b1 := doc("a", 3, 1), doc("b", 5, 1)
	update(t, st, []store.Put{a1, b1})
	checkDoc(t, st, a1)
	checkDoc(t, st, b1)
	if n := length(t, st); n != 8 {
		t.Fatalf("Len = %d, want 8", n)
	}
	// Replace a with fewer segments: the old tail is gone everywhere.
	a2 := doc("a", 2, 2)
	update(t, st, []store.Put{a2})
	checkDoc(t, st, a2)
	if _, _, err := st.Segment(ctx, "a:2"); !isNotFound(err) {
		t.Fatalf("a:2 after replacing a with 2 segments: %v", err)
	}
	hits, err := st.Dense(ctx, a1.Segments[2].Vector, 100, store.Filter{})
	if err != nil || len(hits) != 7 {
		t.Fatalf("Dense after replace: %d hits, %v; want all 7", len(hits), err)
	}
	kw, err := st.Keyword(ctx, "version 1 of a", 100, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range append(hits, kw...) {
		if h.Segment.DocumentID == "a" && strings.Contains(h.Segment.Text, "version 1") {
			t.Fatalf("replaced segment %s returned", h.Segment.ID)
		}
	}
	update(t, st, nil, "b")
	if _, err := st.Document(ctx, "b"); !isNotFound(err) {
		t.Fatalf("Document(b) after delete: %v", err)
	}
	if _, err := st.Segments(ctx, "b", 0, -1); !isNotFound(err) {
		t.Fatalf("Segments(b) after delete: %v", err)
	}
	if _, err := st.Vectors(ctx, "b"); !isNotFound(err) {
		t.Fatalf("Vectors(b) after delete: %v", err)
	}
	wantErr(t, st.Update(ctx, nil, []string{"b"}), store.ErrNotFound)
	if n := length(t, st); n != 2 {
		t.Fatalf("Len = %d, want 2", n)
	}
	if hits, err := st.Keyword(ctx, "segment of b", 10, store.Filter{}); err != nil || slices.ContainsFunc(hits, func(h store.Hit) bool { return h.Segment.DocumentID == "b" }) {
		t.Fatalf("deleted b found by keyword: %v, %v", hits, err)
	}
	docs, err := st.Documents(ctx)
	if err != nil || len(docs) != 1 || docs[0].ID != "a" {
		t.Fatalf("Documents = %v, %v", docs, err)
	}
	// The caller's slices are not shared.
	a3 := doc("c", 2, 1)
	update(t, st, []store.Put{a3})
	a3.Segments[0].Vector[0] = 42
	a3.Segments[0].Section[0] = "changed"
	a3.Document.Meta["v"] = "changed"
	checkDoc(t, st, doc("c", 2, 1))
	segs, _ := st.Segments(ctx, "c", 0, -1)
	segs[0].Section[0] = "changed too"
	checkDoc(t, st, doc("c", 2, 1))
}

func isNotFound(err error) bool { return err != nil && errors.Is(err, store.ErrNotFound) }

func testAtomicBatch(t *testing.T, h Harness) {
	ctx := context.Background()
	st, _ := fresh(t, h)
	a, b := doc("a", 3, 1), doc("b", 2, 1)
	update(t, st, []store.Put{a, b})
	before, _ := state(ctx, st)
	// A batch with one unknown delete changes nothing.
	err := st.Update(ctx, []store.Put{doc("c", 4, 1), doc("a", 1, 2)}, []string{"b", "nope"})
	wantErr(t, err, store.ErrNotFound)
	if after, _ := state(ctx, st); !reflect.DeepEqual(before, after) {
		t.Fatalf("failed batch changed the library: %v → %v", before, after)
	}
	// The whole batch, deletes first: b goes, c comes, a is replaced, and
	// a document both deleted and put in one batch is the new version.
	update(t, st, []store.Put{doc("c", 4, 1), doc("a", 1, 2), doc("b", 1, 3)}, "b", "a")
	checkDoc(t, st, doc("a", 1, 2))
	checkDoc(t, st, doc("b", 1, 3))
	checkDoc(t, st, doc("c", 4, 1))
	if n := length(t, st); n != 6 {
		t.Fatalf("Len = %d, want 6", n)
	}
}

func testBadInput(t *testing.T, h Harness) {
	ctx := context.Background()
	st, _ := fresh(t, h)
	update(t, st, []store.Put{doc("keep", 2, 1)})
	before, _ := state(ctx, st)
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	cases := map[string]func(p *store.Put){
		"no id":         func(p *store.Put) { p.Document.ID = "" },
		"wrong seg id":  func(p *store.Put) { p.Segments[1].ID = "a:7" },
		"wrong index":   func(p *store.Put) { p.Segments[1].Index = 0 },
		"wrong doc":     func(p *store.Put) { p.Segments[0].DocumentID = "b" },
		"wrong dim":     func(p *store.Put) { p.Segments[0].Vector = p.Segments[0].Vector[:3] },
		"no vector":     func(p *store.Put) { p.Segments[0].Vector = nil },
		"NaN in vector": func(p *store.Put) { p.Segments[1].Vector[2] = nan },
		"Inf in vector": func(p *store.Put) { p.Segments[0].Vector[0] = inf },
	}
	for name, spoil := range cases {
		bad := doc("a", 2, 1)
		spoil(&bad)
		// With a good put and a good delete in the same batch: all or nothing.
		if err := st.Update(ctx, []store.Put{doc("good", 1, 1), bad}, []string{"keep"}); err == nil {
			t.Errorf("%s: Update accepted it", name)
		}
		if name == "wrong dim" {
			wantErr(t, st.Update(ctx, []store.Put{bad}, nil), store.ErrEmbedderMismatch)
		}
	}
	if after, _ := state(ctx, st); !reflect.DeepEqual(before, after) {
		t.Fatalf("rejected batches changed the library: %v → %v", before, after)
	}
}

func testCancelledUpdate(t *testing.T, h Harness) {
	st, _ := fresh(t, h)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	wantErr(t, st.Update(ctx, []store.Put{doc("a", 2, 1)}, nil), context.Canceled)
	if n := length(t, st); n != 0 {
		t.Fatalf("a cancelled Update stored %d segments", n)
	}
}

func testSegments(t *testing.T, h Harness) {
	ctx := context.Background()
	st, _ := fresh(t, h)
	update(t, st, []store.Put{doc("a", 6, 1)})
	ids := func(from, to int) []int {
		segs, err := st.Segments(ctx, "a", from, to)
		if err != nil {
			t.Fatalf("Segments(a, %d, %d): %v", from, to, err)
		}
		out := []int{}
		for _, s := range segs {
			out = append(out, s.Index)
		}
		return out
	}
	cases := []struct {
		from, to int
		want     []int
	}{
		{0, -1, []int{0, 1, 2, 3, 4, 5}},
		{2, 4, []int{2, 3}},
		{-3, 2, []int{0, 1}},
		{4, 100, []int{4, 5}},
		{5, -1, []int{5}},
		{3, 3, []int{}},
		{7, 9, []int{}},
	}
	for _, c := range cases {
		if got := ids(c.from, c.to); !slices.Equal(got, c.want) {
			t.Errorf("Segments(a, %d, %d) = %v, want %v", c.from, c.to, got, c.want)
		}
	}
	if _, err := st.Segments(ctx, "zz", 0, -1); !isNotFound(err) {
		t.Errorf("Segments of an unknown document: %v", err)
	}
	for _, id := range []string{"a:6", "zz:0", "a", "a:x", ""} {
		if _, _, err := st.Segment(ctx, id); !isNotFound(err) {
			t.Errorf("Segment(%q): %v", id, err)
		}
	}
}

func testReopen(t *testing.T, h Harness) {
	ctx := context.Background()
	loc := h.Location(t)
	st := open(t, loc, "lib")
	update(t, st, []store.Put{doc("a", 3, 1), doc("b", 2, 1), doc("c", 4, 1)})
	update(t, st, []store.Put{doc("a", 5, 2)}, "b")
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st = open(t, loc, "lib")
	checkDoc(t, st, doc("a", 5, 2))
	checkDoc(t, st, doc("c", 4, 1))
	if _, err := st.Document(ctx, "b"); !isNotFound(err) {
		t.Fatalf("deleted b after reopening: %v", err)
	}
	hits, err := st.Dense(ctx, doc("c", 4, 1).Segments[3].Vector, 1, store.Filter{})
	if err != nil || len(hits) != 1 || hits[0].Segment.ID != "c:3" {
		t.Fatalf("Dense after reopening: %v, %v", hits, err)
	}
	hits, err = st.Keyword(ctx, "segment 3 of c", 1, store.Filter{})
	if err != nil || len(hits) != 1 || hits[0].Segment.ID != "c:3" {
		t.Fatalf("Keyword after reopening: %v, %v", hits, err)
	}
	update(t, st, []store.Put{doc("d", 2, 1)})
	st.Close()
	st = open(t, loc, "lib")
	for _, p := range []store.Put{doc("a", 5, 2), doc("c", 4, 1), doc("d", 2, 1)} {
		checkDoc(t, st, p)
	}
	if n := length(t, st); n != 11 {
		t.Fatalf("Len = %d, want 11", n)
	}
}

func testEmbedderMismatch(t *testing.T, h Harness) {
	ctx := context.Background()
	loc := h.Location(t)
	st := open(t, loc, "lib")
	update(t, st, []store.Put{doc("a", 1, 1)})
	st.Close()
	for _, other := range []store.Info{
		{Embedder: "other-model", Dimension: testInfo.Dimension},
		{Embedder: testInfo.Embedder, Dimension: 16},
	} {
		_, err := store.Open(ctx, loc, store.Options{Library: "lib", Info: other, Create: true})
		wantErr(t, err, store.ErrEmbedderMismatch)
		for _, name := range []string{testInfo.Embedder, other.Embedder} {
			if !strings.Contains(err.Error(), name) {
				t.Errorf("mismatch error %q does not name %q", err, name)
			}
		}
	}
	// A zero Info adopts the library's embedder.
	st, err := store.Open(ctx, loc, store.Options{Library: "lib"})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if st.Info() != testInfo {
		t.Fatalf("Info = %v, want %v", st.Info(), testInfo)
	}
	checkDoc(t, st, doc("a", 1, 1))
	_, err = st.Dense(ctx, make([]float32, 3), 1, store.Filter{})
	wantErr(t, err, store.ErrEmbedderMismatch)
	p := doc("b", 1, 1)
	p.Segments[0].Vector = make([]float32, 16)
	wantErr(t, st.Update(ctx, []store.Put{p}, nil), store.ErrEmbedderMismatch)
	// A library that does not exist is not created without Create.
	_, err = store.Open(ctx, loc, store.Options{Library: "none", Info: testInfo})
	wantErr(t, err, store.ErrNoLibrary)
}

func testClosed(t *testing.T, h Harness) {
	ctx := context.Background()
	st, _ := fresh(t, h)
	update(t, st, []store.Put{doc("a", 1, 1)})
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	wantErr(t, st.Update(ctx, []store.Put{doc("b", 1, 1)}, nil), store.ErrClosed)
	_, err := st.Dense(ctx, doc("a", 1, 1).Segments[0].Vector, 1, store.Filter{})
	wantErr(t, err, store.ErrClosed)
	_, err = st.Keyword(ctx, "segment", 1, store.Filter{})
	wantErr(t, err, store.ErrClosed)
	_, err = st.Document(ctx, "a")
	wantErr(t, err, store.ErrClosed)
}

func testReadOnly(t *testing.T, h Harness) {
	ctx := context.Background()
	w, loc := fresh(t, h)
	update(t, w, []store.Put{doc("a", 2, 1)})
	r, err := store.Open(ctx, loc, store.Options{Library: "lib", ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	checkDoc(t, r, doc("a", 2, 1))
	wantErr(t, r.Update(ctx, []store.Put{doc("x", 1, 1)}, nil), store.ErrReadOnly)
	wantErr(t, r.Update(ctx, nil, []string{"a"}), store.ErrReadOnly)
	update(t, w, []store.Put{doc("b", 1, 1)})
	checkDoc(t, r, doc("b", 1, 1)) // a reader follows the writer
	checkDoc(t, w, doc("a", 2, 1))
	_, err = store.Open(ctx, loc, store.Options{Library: "none", Info: testInfo, Create: true, ReadOnly: true})
	wantErr(t, err, store.ErrNoLibrary)
}
