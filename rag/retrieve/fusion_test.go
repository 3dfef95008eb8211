package retrieve

import "testing"

func TestRRF(t *testing.T) {
	got := RRF(60,
		RankedList{[]string{"a", "b", "c"}, 1},
		RankedList{[]string{"c", "a", "d"}, 1},
	)
	// a: 1/61 + 1/62; c: 1/63 + 1/61; b: 1/62; d: 1/63.
	want := []Scored{{"a", 1.0/61 + 1.0/62}, {"c", 1.0/63 + 1.0/61}, {"b", 1.0 / 62}, {"d", 1.0 / 63}}
	if len(got) != len(want) {
		t.Fatalf("RRF = %v, want %v", got, want)
	}
	for i := range want {
		if got[i].ID != want[i].ID || !nearTol(got[i].Score, want[i].Score, 1e-9) {
			t.Errorf("RRF[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	// Weights: the second list counts double, so its top wins.
	got = RRF(60, RankedList{[]string{"a", "b"}, 1}, RankedList{[]string{"b", "a"}, 2})
	if got[0].ID != "b" {
		t.Errorf("weighted RRF = %v, want b first", got)
	}
	// A tie in score is broken by the better single rank, then by id.
	got = RRF(60, RankedList{[]string{"x", "y"}, 1}, RankedList{[]string{"y", "x"}, 1})
	if got[0].ID != "x" || got[1].ID != "y" || !nearTol(got[0].Score, got[1].Score, 1e-9) {
		t.Errorf("tie = %v", got)
	}
	if got := RRF(60); len(got) != 0 {
		t.Errorf("RRF of nothing = %v", got)
	}
}

func TestConvex(t *testing.T) {
	lex := []Scored{{"a", 10}, {"b", 6}, {"c", 2}}        // normalised 1, 0.5, 0
	dense := []Scored{{"c", 0.9}, {"d", 0.5}, {"a", 0.1}} // normalised 1, 0.5, 0
	got := Convex(lex, dense, 0.25)
	want := []Scored{{"a", 0.75}, {"b", 0.375}, {"c", 0.25}, {"d", 0.125}}
	if len(got) != len(want) {
		t.Fatalf("Convex = %v", got)
	}
	for i := range want {
		if got[i].ID != want[i].ID || !nearTol(got[i].Score, want[i].Score, 1e-9) {
			t.Errorf("Convex[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	if got := Convex(nil, dense, 0.25); len(got) != 3 || got[0].ID != "c" {
		t.Errorf("Convex without lexical hits = %v", got)
	}
}
