package ragtest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/rag/retrieve"
	"github.com/ibid-dev/ibid/store"
)

func TestLibrary(t *testing.T) {
	ctx := context.Background()
	l := Sample()
	ps, err := l.Search(ctx, "gulf stream warm water", retrieve.Options{K: 2})
	if err != nil || len(ps) != 1 || ps[0].Segment.ID != "d2:0" || ps[0].Document.Title != "Ocean Currents" {
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
	if ps, _ := l.Search(ctx, "zebra", retrieve.Options{}); len(ps) != 11 || ps[10].Segment.ID != "d2:1" {
		t.Errorf("All: %d passages", len(ps))
	}
	if q := l.Queries(); len(q) != 4 || q[0] != "gulf stream warm water" {
		t.Errorf("queries %q", q)
	}
	seg, doc, err := l.Segment(ctx, "d1:8")
	if err != nil || seg.Index != 8 || seg.PageStart != 5 || doc.Segments != 9 {
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

// TestSearchMergesWindows: as a real library's, the hits of one document
// whose windows overlap or touch become one passage under the better hit,
// the other hits absorbed with their ranks; windows apart stay apart; K
// counts passages after merging.
func TestSearchMergesWindows(t *testing.T) {
	ctx := context.Background()
	l := New().Add(store.Document{ID: "m", Title: "Moths"},
		Seg("Moths navigate by the moon.", 1),     // m:0 two query words
		Seg("Filler about nothing at all.", 1),    // m:1
		Seg("Moths circle lamps at night.", 2),    // m:2 one query word
		Seg("More filler without the words.", 2),  // m:3
		Seg("Still more filler text here.", 3),    // m:4
		Seg("Moths and the moon again here.", 3)). // m:5 two query words
		Add(store.Document{ID: "o", Title: "Other"}, Seg("Moths elsewhere.", 1))
	ps, err := l.Search(ctx, "moths moon", retrieve.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ids := func(ps []retrieve.Passage) string {
		var b strings.Builder
		for _, p := range ps {
			fmt.Fprintf(&b, "%s@%d[", p.Segment.ID, p.Rank)
			for _, c := range p.Context {
				b.WriteString(" " + c.ID)
			}
			b.WriteString(" ] hits")
			for _, h := range p.Hits {
				fmt.Fprintf(&b, " %s@%d", h.Segment.ID, h.Rank)
			}
			b.WriteString("; ")
		}
		return b.String()
	}
	// Ranking: m:0, m:5 (two words), m:2, o:0 (one). Windows of one
	// neighbour: m:0 [0,1] and m:2 [1,3] overlap; m:5 [4,5] touches [1,3].
	want := "m:0@0[ m:0 m:1 m:2 m:3 m:4 m:5 ] hits m:5@1 m:2@2; o:0@3[ o:0 ] hits; "
	if got := ids(ps); got != want {
		t.Errorf("merged:\n got %s\nwant %s", got, want)
	}
	if !reflect.DeepEqual(ps, retrieve.MergeWindows(ps)) {
		t.Error("merging the result again changes it")
	}
	// No neighbours: m:0, m:5 and m:2 stand apart; K stops after two
	// passages, so o:0 is never taken.
	ps, _ = l.Search(ctx, "moths moon", retrieve.Options{Neighbours: -1, K: 2})
	if got, want := ids(ps), "m:0@0[ m:0 ] hits; m:5@1[ m:5 ] hits; "; got != want {
		t.Errorf("no neighbours, K 2:\n got %s\nwant %s", got, want)
	}
	// All: every segment its own passage, unmerged.
	l.All = true
	if ps, _ := l.Search(ctx, "zebra", retrieve.Options{}); len(ps) != 7 || len(ps[0].Hits) != 0 {
		t.Errorf("All: %s", ids(ps))
	}
}
