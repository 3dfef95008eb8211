package extractive

import (
	"slices"
	"strings"

	"github.com/ibid-dev/ibid/rag/retrieve"
	"github.com/ibid-dev/ibid/store"
)

// Passage is what the answerer reads of one retrieved hit: the hit's
// segment, offered (cited) as source_K, with its own window of neighbours.
//
// Invariant: Text is the hit's own window (the hit and its neighbours in
// reading order, paragraphs apart), which the relevance floor reads;
// PageStart and PageEnd cover it. Window is, for a passage's best hit,
// every segment of the whole passage offered as source_K (its merged
// windows included) in reading order: what the answer may quote from,
// each quote cited as the segment that holds it. For a hit that a better
// hit's passage absorbed, Segment.Text is empty and Window nil: it brings
// words to the floor but nothing to quote that its passage's view does
// not already hold.
type Passage struct {
	K        int
	Segment  store.Segment
	Document store.Document
	Text     string
	// PageStart and PageEnd are the pages the window covers (0: none).
	PageStart, PageEnd int
	Window             []store.Segment
	headings           []string // the section headings of Text's segments
}

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

// Views are the answerer's view of a turn's passages: one per hit that is
// a passage (index rows, which only found their parent, have none), in the
// order retrieval ranked the hits before their windows were merged (or,
// after a reranker, in the passages' order), each with the hit's own
// window (its neighbours on each side, as the relevance floor was
// calibrated; n is retrieve.Options.Neighbours) and offered as source_k
// of the merged passage that holds it. ps are the passages offered, ks
// their aliases.
func Views(ps []retrieve.Passage, ks []int, n int) []Passage {
	n = neighbours(n)
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
	whole := map[string][]store.Segment{}
	for _, p := range ps {
		segs := []store.Segment{p.Segment}
		for _, s := range p.Context {
			if s.ID != p.Segment.ID {
				segs = append(segs, s)
			}
		}
		slices.SortFunc(segs, func(a, b store.Segment) int { return a.Index - b.Index })
		whole[p.Segment.ID] = segs
	}
	out := make([]Passage, len(views))
	for i, v := range views {
		out[i] = window(alias[v.Segment.ID], v)
		if leader[v.Segment.ID] {
			out[i].Window = whole[v.Segment.ID]
		} else {
			out[i].Segment.Text = ""
		}
	}
	return out
}

// window is passage p, offered as source_k: the hit with its neighbours
// in reading order.
func window(k int, p retrieve.Passage) Passage {
	segs := []store.Segment{p.Segment}
	for _, s := range p.Context {
		if s.ID != p.Segment.ID {
			segs = append(segs, s)
		}
	}
	slices.SortFunc(segs, func(a, b store.Segment) int { return a.Index - b.Index })
	o := Passage{K: k, Segment: p.Segment, Document: p.Document, PageStart: p.Segment.PageStart, PageEnd: p.Segment.PageEnd}
	texts := make([]string, len(segs))
	seen := map[string]bool{}
	for i, s := range segs {
		texts[i] = strings.TrimSpace(s.Text)
		for _, h := range s.Section {
			if !seen[h] {
				seen[h] = true
				o.headings = append(o.headings, h)
			}
		}
		if s.PageStart > 0 && (o.PageStart == 0 || s.PageStart < o.PageStart) {
			o.PageStart = s.PageStart
		}
		if s.PageEnd > o.PageEnd {
			o.PageEnd = s.PageEnd
		}
	}
	o.Text = strings.Join(texts, "\n\n")
	return o
}
