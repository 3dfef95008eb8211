package retrieve

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/ibid-dev/ibid/store"
)

// seg is segment i of document doc.
func seg(doc string, i int) store.Segment {
	return store.Segment{ID: fmt.Sprintf("%s:%d", doc, i), DocumentID: doc, Index: i, Text: fmt.Sprintf("%s paragraph %d", doc, i)}
}

// hit is a passage of doc's segment i with n neighbours on each side,
// clipped at 0 (as Search builds it before merging).
func hit(doc string, i, n int) Passage {
	p := Passage{Segment: seg(doc, i), Document: store.Document{ID: doc}}
	for j := max(0, i-n); j <= i+n; j++ {
		p.Context = append(p.Context, seg(doc, j))
	}
	return p
}

func indices(segs []store.Segment) []int {
	out := make([]int, len(segs))
	for i, s := range segs {
		out[i] = s.Index
	}
	return out
}

func TestMergeWindows(t *testing.T) {
	type want struct {
		hit     string
		hits    []string
		context []int
	}
	tests := []struct {
		name string
		in   []Passage
		want []want
	}{
		{"overlapping windows are one passage", []Passage{hit("d", 3, 1), hit("d", 4, 1)},
			[]want{{"d:3", []string{"d:4"}, []int{2, 3, 4, 5}}}},
		{"the better-ranked hit leads", []Passage{hit("d", 4, 1), hit("d", 3, 1)},
			[]want{{"d:4", []string{"d:3"}, []int{2, 3, 4, 5}}}},
		{"adjacent windows are one passage", []Passage{hit("d", 2, 1), hit("d", 5, 1)},
			[]want{{"d:2", []string{"d:5"}, []int{1, 2, 3, 4, 5, 6}}}},
		{"a gap keeps two passages", []Passage{hit("d", 2, 1), hit("d", 6, 1)},
			[]want{{"d:2", nil, []int{1, 2, 3}}, {"d:6", nil, []int{5, 6, 7}}}},
		{"adjacent hits without neighbours", []Passage{hit("d", 2, 0), hit("d", 3, 0), hit("d", 5, 0)},
			[]want{{"d:2", []string{"d:3"}, []int{2, 3}}, {"d:5", nil, []int{5}}}},
		{"documents never merge", []Passage{hit("d", 3, 1), hit("e", 3, 1), hit("e", 4, 1)},
			[]want{{"d:3", nil, []int{2, 3, 4}}, {"e:3", []string{"e:4"}, []int{2, 3, 4, 5}}}},
		{"a bridge joins two passages into the better one", []Passage{hit("d", 2, 1), hit("e", 0, 0), hit("d", 8, 1), hit("d", 5, 1)},
			[]want{{"d:2", []string{"d:8", "d:5"}, []int{1, 2, 3, 4, 5, 6, 7, 8, 9}}, {"e:0", nil, []int{0}}}},
		{"a hit inside a window", []Passage{hit("d", 3, 2), hit("d", 4, 0)},
			[]want{{"d:3", []string{"d:4"}, []int{1, 2, 3, 4, 5}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for i := range tc.in {
				tc.in[i].Rank = i
			}
			got := MergeWindows(tc.in)
			if len(got) != len(tc.want) {
				t.Fatalf("%d passages %v, want %d", len(got), hitIDs(got), len(tc.want))
			}
			for i, w := range tc.want {
				p := got[i]
				var hits []string
				for _, h := range p.Hits {
					hits = append(hits, h.Segment.ID)
				}
				if p.Segment.ID != w.hit || !slices.Equal(hits, w.hits) || !slices.Equal(indices(p.Context), w.context) {
					t.Errorf("passage %d: hit %s, hits %v, context %v; want %s, %v, %v",
						i, p.Segment.ID, hits, indices(p.Context), w.hit, w.hits, w.context)
				}
				for _, h := range p.Hits {
					if !slices.ContainsFunc(p.Context, func(s store.Segment) bool { return s.ID == h.Segment.ID }) {
						t.Errorf("absorbed hit %s outside the window", h.Segment.ID)
					}
				}
			}
			// Merging merged passages changes nothing.
			again := MergeWindows(got)
			if !slices.Equal(hitIDs(again), hitIDs(got)) || len(again[0].Hits) != len(got[0].Hits) {
				t.Errorf("merging again: %v, was %v", hitIDs(again), hitIDs(got))
			}
		})
	}
}

// TestSearchMergesWindows: Search merges the windows of one document's
// hits that meet, keeps the others apart, and counts K after merging.
func TestSearchMergesWindows(t *testing.T) {
	emb := NewLocalEmbedder()
	st := memStore(t, emb)
	long := testDoc{id: "dddd4444", path: "/papers/delta.pdf"}
	for i := range 12 {
		text := fmt.Sprintf("Filler paragraph number %d about nothing in particular.", i)
		if i == 3 || i == 4 || i == 9 {
			text = fmt.Sprintf("The okapi grazes in paragraph %d of the forest.", i)
		}
		long.texts = append(long.texts, text)
	}
	other := testDoc{id: "eeee5555", path: "/notes/okapi.md", texts: []string{"An okapi note.", "Nothing here."}}
	putDoc(t, st, emb, long)
	putDoc(t, st, emb, other)

	ps, err := Search(context.Background(), st, emb, "okapi", Options{K: 3, Mode: Lexical})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 3 {
		t.Fatalf("%d passages %v, want 3 (hits 3 and 4 merged, hit 9, the note)", len(ps), hitIDs(ps))
	}
	seen := map[string]int{}
	for _, p := range ps {
		for _, s := range p.Context {
			seen[s.ID]++
		}
		switch p.Segment.DocumentID {
		case "eeee5555":
			if p.Hits != nil {
				t.Errorf("the note absorbed %v", p.Hits)
			}
		case "dddd4444":
			hits := []int{p.Segment.Index}
			for _, h := range p.Hits {
				hits = append(hits, h.Segment.Index)
			}
			slices.Sort(hits)
			switch {
			case slices.Equal(hits, []int{3, 4}):
				if !slices.Equal(indices(p.Context), []int{2, 3, 4, 5}) {
					t.Errorf("hits 3 and 4: context %v", indices(p.Context))
				}
			case slices.Equal(hits, []int{9}):
				if !slices.Equal(indices(p.Context), []int{8, 9, 10}) {
					t.Errorf("hit 9: context %v", indices(p.Context))
				}
			default:
				t.Errorf("passage of hits %v", hits)
			}
		}
	}
	for id, n := range seen {
		if n > 1 {
			t.Errorf("segment %s in %d passages", id, n)
		}
	}
	for i := 1; i < len(ps); i++ {
		if ps[i].Score > ps[i-1].Score {
			t.Errorf("passages out of rank order: %v", hitIDs(ps))
		}
	}
}
