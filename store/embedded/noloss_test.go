package embedded

import (
	"context"
	"crypto/sha256"
	"fmt"
	"strconv"
	"testing"
)

// TestNoLoss200k stores 200,000 segments, reopens the library from disk and
// checks that every one of them is there, whole, and answerable. With
// chromem-go's own persistence (files named after 4 bytes of SHA-256 of the
// id) this set of ids loses segments; the test first shows that it does
// collide there, so it would catch a store that relied on it.
func TestNoLoss200k(t *testing.T) {
	const (
		docs    = 2000
		perDoc  = 100
		batch   = 200 // documents per commit
		total   = docs * perDoc
		version = 1
	)
	info := Info{Embedder: "tiny", Dimension: 4}

	collisions := 0
	seen := make(map[[4]byte]struct{}, total)
	for d := range docs {
		for i := range perDoc {
			h := sha256.Sum256([]byte(docID(d) + ":" + strconv.Itoa(i)))
			k := [4]byte(h[:4])
			if _, ok := seen[k]; ok {
				collisions++
			}
			seen[k] = struct{}{}
		}
	}
	if collisions == 0 {
		t.Fatal("no 4-byte hash collisions among the ids: the test would not catch chromem-go's file naming")
	}
	t.Logf("%d ids share a chromem-go file name with another", collisions)

	dir := t.TempDir()
	s := mustOpen(t, dir, info)
	ctx := context.Background()
	for start := 0; start < docs; start += batch {
		puts := make([]Put, 0, batch)
		for d := start; d < start+batch; d++ {
			doc, segs := makeDoc(docID(d), perDoc, info.Dimension, version)
			puts = append(puts, Put{Document: doc, Segments: segs})
		}
		if err := s.PutDocuments(ctx, puts); err != nil {
			t.Fatal(err)
		}
	}
	if s.Len() != total {
		t.Fatalf("Len = %d before reopening, want %d", s.Len(), total)
	}
	s.Close()

	s = mustOpen(t, dir, info)
	defer s.Close()
	if s.Len() != total || s.coll.Count() != total {
		t.Fatalf("after reopening: Len %d, chromem collection %d, want %d", s.Len(), s.coll.Count(), total)
	}
	if n := len(s.Documents()); n != docs {
		t.Fatalf("%d documents, want %d", n, docs)
	}
	ids := make(map[string]struct{}, total)
	s.Each(func(doc *Document, seg *Segment) bool {
		ids[seg.ID] = struct{}{}
		return true
	})
	if len(ids) != total {
		t.Fatalf("Each saw %d distinct segments, want %d", len(ids), total)
	}
	// Every segment by id, with its own text and vector.
	for d := range docs {
		id := docID(d)
		_, want := makeDoc(id, perDoc, info.Dimension, version)
		for i := range perDoc {
			sg, ok := s.Segment(want[i].ID)
			if !ok {
				t.Fatalf("segment %s lost", want[i].ID)
			}
			if sg.Text != want[i].Text {
				t.Fatalf("segment %s has text %q", sg.ID, sg.Text)
			}
			v, _ := s.Vector(sg.ID)
			if !close32(v, want[i].Vector) {
				t.Fatalf("segment %s has another vector", sg.ID)
			}
		}
	}
	// And the dense side finds one of them.
	_, segs := makeDoc(docID(1234), perDoc, info.Dimension, version)
	hits, err := s.Query(ctx, segs[56].Vector, 1, nil)
	if err != nil || len(hits) != 1 || hits[0].Similarity < 0.9999 {
		t.Fatalf("query: %v, %v", hits, err)
	}
}

func docID(d int) string { return fmt.Sprintf("sha256-%08x", d*2654435761) }
