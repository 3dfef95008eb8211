package retrieve

import (
	"cmp"
	"slices"
)

// RRFK is the rank constant of reciprocal-rank fusion (Cormack, Clarke and
// Büttcher 2009): a hit at rank r (from 1) of a list scores 1/(RRFK + r).
const RRFK = 60

// Fusion weights of the BM25 and dense lists in Hybrid mode
// (docs/retrieval.md says how they were chosen).
const (
	BM25Weight  = 1.0
	DenseWeight = 1.0
)

// RankedList is one retriever's result: segment ids, best first, and the
// weight of the list in the fusion.
type RankedList struct {
	IDs    []string
	Weight float64
}

// RRF fuses ranked lists by weighted reciprocal rank: an id scores the sum
// over the lists that hold it of weight/(k + rank). The result is sorted by
// score, best first, ties broken by the best single rank, then by id.
func RRF(k float64, lists ...RankedList) []Scored {
	score := map[string]float64{}
	best := map[string]int{}
	for _, l := range lists {
		for r, id := range l.IDs {
			score[id] += l.Weight / (k + float64(r+1))
			if b, ok := best[id]; !ok || r < b {
				best[id] = r
			}
		}
	}
	out := make([]Scored, 0, len(score))
	for id, s := range score {
		out = append(out, Scored{id, s})
	}
	slices.SortFunc(out, func(a, b Scored) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		if c := cmp.Compare(best[a.ID], best[b.ID]); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out
}

// Convex fuses two scored lists by a convex combination of their scores,
// each min-max normalised over its own list: (1-alpha)·a + alpha·b. An id
// missing from a list gets that list's minimum (0 after normalising). The
// result is sorted by score, best first, ties by id.
func Convex(a, b []Scored, alpha float64) []Scored {
	score := map[string]float64{}
	add := func(l []Scored, w float64) {
		if len(l) == 0 {
			return
		}
		hi, lo := l[0].Score, l[0].Score
		for _, s := range l {
			hi, lo = max(hi, s.Score), min(lo, s.Score)
		}
		for _, s := range l {
			v := 1.0
			if hi > lo {
				v = (s.Score - lo) / (hi - lo)
			}
			score[s.ID] += w * v
		}
	}
	add(a, 1-alpha)
	add(b, alpha)
	out := make([]Scored, 0, len(score))
	for id, s := range score {
		out = append(out, Scored{id, s})
	}
	slices.SortFunc(out, func(x, y Scored) int {
		if c := cmp.Compare(y.Score, x.Score); c != 0 {
			return c
		}
		return cmp.Compare(x.ID, y.ID)
	})
	return out
}
