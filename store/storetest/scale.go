package storetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/ibid-dev/ibid/internal/figures"
	"github.com/ibid-dev/ibid/store"
)

// testNoLoss stores 200,000 segments (with -short or -race: 5,000, or
// 20,000 with IBID_FIGURES=1 as CI runs it), in several commits, reopens
// the library and finds every one of them by id, with its own text and
// vector.
func testNoLoss(t *testing.T, h Harness) {
	const perDoc = 100
	docs := 2000
	if testing.Short() || raceEnabled {
		docs = 50
		if figures.Enabled() {
			docs = 200
		}
	}
	ctx := context.Background()
	loc := h.Location(t)
	st := open(t, loc, "lib")
	id := func(d int) string { return fmt.Sprintf("sha256-%08x", d*2654435761) }
	batch := min(200, docs/4)
	for start := 0; start < docs; start += batch {
		puts := make([]store.Put, 0, batch)
		for d := start; d < min(start+batch, docs); d++ {
			puts = append(puts, doc(id(d), perDoc, 1))
		}
		update(t, st, puts)
	}
	if n := length(t, st); n != docs*perDoc {
		t.Fatalf("Len = %d before reopening, want %d", n, docs*perDoc)
	}
	st.Close()
	st = open(t, loc, "lib")
	if n := length(t, st); n != docs*perDoc {
		t.Fatalf("Len = %d after reopening, want %d", n, docs*perDoc)
	}
	all, err := st.Documents(ctx)
	if err != nil || len(all) != docs {
		t.Fatalf("%d documents (%v), want %d", len(all), err, docs)
	}
	for d := range docs {
		want := doc(id(d), perDoc, 1)
		segs, err := st.Segments(ctx, want.Document.ID, 0, -1)
		if err != nil || len(segs) != perDoc {
			t.Fatalf("document %s: %d segments, %v", want.Document.ID, len(segs), err)
		}
		vecs, err := st.Vectors(ctx, want.Document.ID)
		if err != nil {
			t.Fatal(err)
		}
		for i, sg := range segs {
			if sg.ID != want.Segments[i].ID || sg.Text != want.Segments[i].Text || !Near(vecs[i], want.Segments[i].Vector) {
				t.Fatalf("segment %s lost or changed: %+v", want.Segments[i].ID, sg)
			}
		}
	}
	// Both searches still find one of them.
	want := doc(id(docs/2+1), perDoc, 1).Segments[56]
	hits, err := st.Dense(ctx, want.Vector, 1, store.Filter{})
	if err != nil || len(hits) != 1 || hits[0].Segment.ID != want.ID {
		t.Fatalf("Dense: %v, %v; want %s", hits, err, want.ID)
	}
	hits, err = st.Keyword(ctx, want.Text, 1, store.Filter{})
	if err != nil || len(hits) != 1 || hits[0].Segment.ID != want.ID {
		t.Fatalf("Keyword: %v, %v; want %s", hitIDs(hits), err, want.ID)
	}
}
