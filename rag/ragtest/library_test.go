package ragtest

import (
	"context"
	"errors"
	"testing"

	"github.com/ibid-dev/ibid/rag/retrieve"
	"github.com/ibid-dev/ibid/store"
)

func TestLibrary(t *testing.T) {
	ctx := context.Background()
	l := Sample()
	ps, err := l.Search(ctx, "gulf stream warm water and ocean currents", retrieve.Options{K: 2})
	if err != nil || len(ps) != 2 || ps[0].Segment.ID != "d2:0" || ps[0].Document.Title != "Ocean Currents" {
		t.Fatalf("search: %+v, %v", ps, err)
	}
	// Neighbours: one on each side by default, none when negative.
	if c := ps[0].Context; len(c) != 2 || c[0].ID != "d2:0" || c[1].ID != "d2:1" {
		t.Errorf("context %+v", c)
	}
	ps, _ = l.Search(ctx, "gulf stream", retrieve.Options{Neighbours: -1})
	if len(ps) != 1 || len(ps[0].Context) != 1 {
		t.Errorf("no neighbours: %+v", ps)
	}
	if ps, _ := l.Search(ctx, "nothing matches zebra", retrieve.Options{}); len(ps) != 0 {
		t.Errorf("unmatched query found %+v", ps)
	}
	l.All = true
	if ps, _ := l.Search(ctx, "zebra", retrieve.Options{}); len(ps) != 5 || ps[4].Segment.ID != "d2:1" {
		t.Errorf("All: %d passages", len(ps))
	}
	if q := l.Queries(); len(q) != 4 || q[0] != "gulf stream warm water and ocean currents" {
		t.Errorf("queries %q", q)
	}
	seg, doc, err := l.Segment(ctx, "d1:2")
	if err != nil || seg.Index != 2 || seg.PageStart != 5 || doc.Segments != 3 {
		t.Errorf("segment %+v %+v %v", seg, doc, err)
	}
	if _, _, err := l.Segment(ctx, "d9:0"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown segment: %v", err)
	}
	l.Remove("d1")
	if _, err := l.Segments(ctx, "d1"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("removed document: %v", err)
	}
	if docs, _ := l.Documents(ctx); len(docs) != 1 || docs[0].ID != "d2" {
		t.Errorf("documents %+v", docs)
	}
}
