package storetest

import (
	"context"
	"testing"

	"github.com/ibid-dev/ibid/store"
)

// testDocumentCount: the backend counts its documents without reading them
// (store.DocumentCounter, which both backends of this repository have),
// and the count is always Documents' length: after puts, a replacement, a
// delete and a refused batch, as another store on the same library (another
// process) sees it, never counting another library's documents, and an
// error once closed.
func testDocumentCount(t *testing.T, h Harness) {
	ctx := context.Background()
	loc := h.Location(t)
	st := open(t, loc, "lib")
	c, ok := st.(store.DocumentCounter)
	if !ok {
		t.Fatalf("%T does not count its documents (store.DocumentCounter)", st)
	}
	other := open(t, loc, "lib")
	want := func(step string, n int) {
		t.Helper()
		for _, s := range []store.Store{st, other} {
			docs, err := s.Documents(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got, err := store.CountDocuments(ctx, s)
			if err != nil || got != n || len(docs) != n {
				t.Fatalf("%s: CountDocuments = %d, %v with %d documents listed, want %d", step, got, err, len(docs), n)
			}
		}
	}
	want("a new library", 0)
	update(t, st, []store.Put{doc("a", 2, 1), doc("b", 1, 1), doc("c", 3, 1)})
	want("three put", 3)
	update(t, other, []store.Put{doc("b", 2, 2)})
	want("one replaced by the other store", 3)
	update(t, other, nil, "c")
	want("one deleted by the other store", 2)
	if err := st.Update(ctx, []store.Put{doc("d", 1, 1)}, []string{"missing"}); err == nil {
		t.Fatal("a batch deleting a missing document was not refused")
	}
	want("a refused batch", 2)
	update(t, open(t, loc, "another"), []store.Put{doc("x", 1, 1), doc("y", 1, 1)})
	want("another library at the same location", 2)

	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	_, err := c.DocumentCount(ctx)
	wantErr(t, err, store.ErrClosed)
}
