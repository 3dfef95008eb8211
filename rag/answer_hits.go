package rag

import (
	"slices"

	"github.com/ibid-dev/ibid/rag/retrieve"
)

// neighbours is the number of segments on each side of a hit that
// retrieval adds to its window, as retrieve.Options reads n.
func neighbours(n int) int {
	switch {
	case n < 0:
		return 0
	case n == 0:
		return retrieve.DefaultNeighbours
	}
	return n
}

// hitViews are the extractive answerer's view of a turn's passages: one
// per hit that is a passage (index rows, which only found their parent, have
// none), in the order retrieval ranked the hits before their windows were
// merged (or, after a reranker, in the passages' order), each with the hit's own window (its n neighbours on each side,
// as the relevance floor was calibrated) and offered as source_k of the
// merged passage that holds it. A hit its passage absorbed brings no text
// of its own to quote (its seg has no Text): a quoted sentence is always in
// the segment its citation points at, the passage's best hit. ps are the
// passages offered, ks their aliases.
func hitViews(ps []retrieve.Passage, ks []int, n int) []offered {
	alias := map[string]int{}
	leader := map[string]bool{}
	for i, p := range ps {
		alias[p.Segment.ID], leader[p.Segment.ID] = ks[i], true
		for _, h := range p.Hits {
			alias[h.Segment.ID] = ks[i]
		}
	}
	var views []retrieve.Passage
	for _, p := range ps {
		for _, h := range append([]retrieve.Hit{{Segment: p.Segment, Rank: p.Rank}}, p.Hits...) {
			if h.Segment.Parent != "" {
				continue // an index row: found the passage, holds no text of it to quote
			}
			v := retrieve.Passage{Segment: h.Segment, Document: p.Document, Rank: h.Rank}
			for _, s := range p.Context {
				if s.Index >= h.Segment.Index-n && s.Index <= h.Segment.Index+n {
					v.Context = append(v.Context, s)
				}
			}
			views = append(views, v)
		}
	}
	// A reranked search orders passages by the reranker, not by Rank:
	// that order is kept.
	byRank := func(a, b retrieve.Passage) int { return a.Rank - b.Rank }
	if slices.IsSortedFunc(ps, byRank) {
		slices.SortStableFunc(views, byRank)
	}
	out := make([]offered, len(views))
	for i, v := range views {
		out[i] = newOffered(alias[v.Segment.ID], v)
		if !leader[v.Segment.ID] {
			out[i].seg.Text = ""
		}
	}
	return out
}
