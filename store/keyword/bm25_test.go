package keyword

import (
	"math"
	"testing"
)

// tinyBM25 is three segments whose scores were computed by hand (N = 3,
// average length 2, k1 1.2, b 0.75; Lucene's idf).
func tinyBM25() *BM25 {
	x := NewBM25()
	x.K1, x.B = 1.2, 0.75
	x.Add("d1:0", "cat cat dog") // length 3
	x.Add("d2:0", "dog bird")    // length 2
	x.Add("d3:0", "fish")        // length 1
	return x
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestBM25HandComputed(t *testing.T) {
	x := tinyBM25()
	tests := []struct {
		query string
		want  []Scored
	}{
		// idf(cat) = ln(1 + 2.5/1.5); d1: tf 2, norm 1.2·(0.25 + 0.75·3/2) = 1.65.
		{"cat", []Scored{{"d1:0", 1.1823695104798893}}},
		// idf(dog) = ln(1.6); the shorter d2 wins.
		{"dog", []Scored{{"d2:0", 0.47000362924573563}, {"d1:0", 0.39019169220400696}}},
		{"cats and dogs", []Scored{{"d1:0", 1.5725612026838962}, {"d2:0", 0.47000362924573563}}},
		{"unicorn", nil},
		{"the", nil},
	}
	for _, tc := range tests {
		got := x.Search(tc.query, 10, nil)
		if len(got) != len(tc.want) {
			t.Fatalf("Search(%q) = %v, want %v", tc.query, got, tc.want)
		}
		for i := range got {
			if got[i].ID != tc.want[i].ID || !near(got[i].Score, tc.want[i].Score) {
				t.Errorf("Search(%q)[%d] = %v, want %v", tc.query, i, got[i], tc.want[i])
			}
		}
	}
	if got := x.Search("dog", 1, nil); len(got) != 1 || got[0].ID != "d2:0" {
		t.Errorf("Search(dog, n=1) = %v", got)
	}
	if got := x.Search("dog", 10, func(id string) bool { return id != "d2:0" }); len(got) != 1 || got[0].ID != "d1:0" {
		t.Errorf("Search(dog) admitting d1 only = %v", got)
	}
}

func TestBM25RemoveAndReplace(t *testing.T) {
	x := tinyBM25()
	x.Remove("d2:0")
	x.Remove("nope:0")
	if x.Len() != 2 {
		t.Fatalf("Len = %d, want 2", x.Len())
	}
	// Now N = 2, average length 2, df(dog) = 1: the same as an index built
	// without d2.
	y := NewBM25()
	y.K1, y.B = 1.2, 0.75
	y.Add("d1:0", "cat cat dog")
	y.Add("d3:0", "fish")
	for _, q := range []string{"dog", "cat", "fish bird"} {
		a, b := x.Search(q, 10, nil), y.Search(q, 10, nil)
		if len(a) != len(b) {
			t.Fatalf("%q: after remove %v, fresh %v", q, a, b)
		}
		for i := range a {
			if a[i].ID != b[i].ID || !near(a[i].Score, b[i].Score) {
				t.Errorf("%q: after remove %v, fresh %v", q, a, b)
			}
		}
	}
	x.Add("d3:0", "bird bird") // replaces d3's text
	if got := x.Search("fish", 10, nil); len(got) != 0 {
		t.Errorf("replaced text still found: %v", got)
	}
	if got := x.Search("bird", 10, nil); len(got) != 1 || got[0].ID != "d3:0" {
		t.Errorf("Search(bird) = %v", got)
	}
}

func TestBM25Compaction(t *testing.T) {
	x := NewBM25()
	for i := range 3000 {
		x.Add(segID(i), "common word"+segID(i%7))
	}
	for i := range 2500 {
		x.Remove(segID(i))
	}
	if len(x.slots) >= 3000 || x.dead > 1024 && x.dead > x.live {
		t.Errorf("not compacted: %d slots, %d dead, %d live", len(x.slots), x.dead, x.live)
	}
	got := x.Search("common", 1000, nil)
	if len(got) != 500 {
		t.Fatalf("found %d, want 500", len(got))
	}
	for _, s := range got {
		if s.ID < segID(2500) {
			t.Fatalf("removed segment %s found", s.ID)
		}
	}
}

func segID(i int) string {
	const digits = "0123456789"
	b := []byte("s00000:0")
	for j := 5; j >= 1; j-- {
		b[j] = digits[i%10]
		i /= 10
	}
	return string(b)
}

func TestBuildMatchesAdd(t *testing.T) {
	texts := []string{"Graph neural networks for molecules", "機械学習による翻訳", "Neural machine translation", "molecules and graphs"}
	ids := []string{"a:0", "b:0", "c:0", "d:0"}
	built := Build(ids, texts)
	added := NewBM25()
	for i := range ids {
		added.Add(ids[i], texts[i])
	}
	for _, q := range []string{"neural graph", "翻訳", "molecule"} {
		a, b := built.Search(q, 10, nil), added.Search(q, 10, nil)
		if len(a) == 0 || len(a) != len(b) {
			t.Fatalf("%q: built %v, added %v", q, a, b)
		}
		for i := range a {
			if a[i] != b[i] {
				t.Errorf("%q: built %v, added %v", q, a, b)
			}
		}
	}
}
