package storetest

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/ibid-dev/ibid/store"
)

func testLibraries(t *testing.T, h Harness) {
	ctx := context.Background()
	loc := h.Location(t)
	if libs, err := store.Libraries(ctx, loc); err != nil || len(libs) != 0 {
		t.Fatalf("Libraries of a fresh location = %v, %v", libs, err)
	}
	a := open(t, loc, "alpha")
	update(t, a, []store.Put{doc("x", 3, 1), doc("y", 2, 1)})
	b := open(t, loc, "beta")
	update(t, b, []store.Put{doc("z", 4, 1)})
	libs, err := store.Libraries(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	want := []store.LibraryInfo{
		{Name: "alpha", Info: testInfo, Documents: 2, Segments: 5},
		{Name: "beta", Info: testInfo, Documents: 1, Segments: 4},
	}
	slices.SortFunc(libs, func(x, y store.LibraryInfo) int {
		if x.Name < y.Name {
			return -1
		}
		return 1
	})
	if !slices.Equal(libs, want) {
		t.Fatalf("Libraries = %+v, want %+v", libs, want)
	}
	// Libraries are apart: what one holds, the other does not.
	if _, err := b.Document(ctx, "x"); !isNotFound(err) {
		t.Fatalf("beta sees alpha's document: %v", err)
	}
	for _, bad := range []string{"..", "a/b", `a\b`, "."} {
		if _, err := store.Open(ctx, loc, store.Options{Library: bad, Info: testInfo, Create: true}); err == nil {
			t.Errorf("library name %q accepted", bad)
		}
	}
}

func testDrop(t *testing.T, h Harness) {
	ctx := context.Background()
	loc := h.Location(t)
	st := open(t, loc, "gone")
	update(t, st, []store.Put{doc("x", 3, 1), doc("y", 2, 1)})
	keep := open(t, loc, "kept")
	update(t, keep, []store.Put{doc("k", 1, 1)})
	st.Close()
	if err := store.Drop(ctx, loc, "gone"); err != nil {
		t.Fatal(err)
	}
	libs, err := store.Libraries(ctx, loc)
	if err != nil || len(libs) != 1 || libs[0].Name != "kept" {
		t.Fatalf("Libraries after Drop = %+v, %v", libs, err)
	}
	_, err = store.Open(ctx, loc, store.Options{Library: "gone", Info: testInfo})
	wantErr(t, err, store.ErrNoLibrary)
	// Created again, it starts empty: nothing of the dropped one comes back.
	again := open(t, loc, "gone")
	if n := length(t, again); n != 0 {
		t.Fatalf("a library created after Drop holds %d segments", n)
	}
	update(t, again, []store.Put{doc("z", 1, 1)})
	again.Close()
	again = open(t, loc, "gone")
	if s, err := state(ctx, again); err != nil || len(s) != 1 || s["z"] == nil {
		t.Fatalf("library after Drop and add = %v, %v", s, err)
	}
	if err := store.Drop(ctx, loc, "never-was"); err != nil {
		t.Fatalf("Drop of a library that does not exist: %v", err)
	}
	checkDoc(t, keep, doc("k", 1, 1))
}

// testDropSeenByReaders: a store open on a library that another handle
// (another process, as ibid rm --all is) drops stops showing what it held:
// its documents, segments and search hits are gone, or reads fail with
// ErrNoLibrary; nothing dropped is served on.
func testDropSeenByReaders(t *testing.T, h Harness) {
	ctx := context.Background()
	loc := h.Location(t)
	reader := open(t, loc, "served")
	update(t, reader, []store.Put{doc("x", 3, 1)})
	if n := length(t, reader); n != 3 {
		t.Fatalf("before the drop: %d segments", n)
	}
	if err := store.Drop(ctx, loc, "served"); err != nil {
		t.Fatal(err)
	}
	gone := func(what string, err error) {
		t.Helper()
		if err != nil && !errors.Is(err, store.ErrNoLibrary) && !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("%s after the drop: %v", what, err)
		}
	}
	docs, err := reader.Documents(ctx)
	gone("Documents", err)
	if len(docs) != 0 {
		t.Fatalf("a dropped library still shows %d documents", len(docs))
	}
	_, _, err = reader.Segment(ctx, "x:0")
	if err == nil {
		t.Fatal("a dropped library still serves segment x:0")
	}
	gone("Segment", err)
	hits, err := reader.Keyword(ctx, segText("x", 0, 1), 5, store.Filter{})
	gone("Keyword", err)
	if len(hits) != 0 {
		t.Fatalf("a dropped library still finds %d keyword hits", len(hits))
	}
	hits, err = reader.Dense(ctx, Vector("x", 0, testInfo.Dimension), 5, store.Filter{})
	gone("Dense", err)
	if len(hits) != 0 {
		t.Fatalf("a dropped library still finds %d dense hits", len(hits))
	}
}
