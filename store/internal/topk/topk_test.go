package topk

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestHeapKeepsBestK(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, k := range []int{0, 1, 3, 10, 100} {
		for _, n := range []int{0, 1, 5, 50, 500} {
			xs := make([]int, n)
			for i := range xs {
				xs[i] = r.IntN(40) // many ties in value...
			}
			type item struct{ v, id int }
			better := func(a, b item) bool {
				if a.v != b.v {
					return a.v > b.v
				}
				return a.id < b.id // ...broken by id
			}
			h := New(k, better)
			all := make([]item, n)
			for i, v := range xs {
				all[i] = item{v, i}
				h.Push(all[i])
			}
			slices.SortFunc(all, func(a, b item) int {
				if better(a, b) {
					return -1
				}
				return 1
			})
			want := all[:min(k, n)]
			if got := h.Sorted(); !slices.Equal(got, want) {
				t.Fatalf("k=%d n=%d: got %v, want %v", k, n, got, want)
			}
		}
	}
}
