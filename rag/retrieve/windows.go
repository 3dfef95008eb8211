package retrieve

import (
	"slices"

	"github.com/ibid-dev/ibid/store"
)

// MergeWindows merges the passages of one document whose windows (the
// segment index ranges their Context covers) overlap or touch, so that no
// segment is offered twice and a stretch of a document is one passage. A
// parent Search made a window of its own (a hierarchical parent, up to
// about 2,000 tokens, a short one with the passages around it) merges
// only with a window that overlaps it: two windows side by side stay two
// passages.
//
// ps is ranked best first and stays so: a passage that meets an earlier
// (better-ranked) passage's window is merged into it, and the rest keep
// their order. A merged passage keeps the better-ranked Segment (the hit a
// citation of it points at), Document and Score; its Context is the union
// of the windows in document order; its Hits gains the absorbed hits (their
// own Hits included), best first. Rank is kept as given (Search sets it;
// other callers may leave it 0). Passages of different documents are never
// merged. Merging merged passages changes nothing, so MergeWindows may run
// on the result of Search. ps is not modified.
func MergeWindows(ps []Passage) []Passage {
	out := make([]Passage, 0, len(ps))
	for _, p := range ps {
		out = mergeInto(out, p)
	}
	return out
}

// mergeInto adds p, the next passage in rank order, to out: merged into the
// first passage of out whose window it meets, or appended. A merge that
// widens a window may then meet a later passage of out, which is merged in
// too (its hits absorbed), until no two windows of one document meet.
func mergeInto(out []Passage, p Passage) []Passage {
	p.Context = window(p)
	p.Hits = slices.Clone(p.Hits)
	at := -1
	for i := range out {
		if meets(out[i], p) {
			at = i
			break
		}
	}
	if at < 0 {
		return append(out, p)
	}
	out[at] = absorb(out[at], p)
	for j := at + 1; j < len(out); {
		if meets(out[at], out[j]) {
			out[at] = absorb(out[at], out[j])
			out = slices.Delete(out, j, j+1)
			continue
		}
		j++
	}
	return out
}

// window is p's Context in document order with its hit in it, each segment
// once.
func window(p Passage) []store.Segment {
	segs := append([]store.Segment{p.Segment}, p.Context...)
	slices.SortStableFunc(segs, func(a, b store.Segment) int { return a.Index - b.Index })
	return slices.CompactFunc(segs, func(a, b store.Segment) bool { return a.ID == b.ID })
}

// meets reports whether a and b are of one document and their windows
// (sorted Contexts) overlap, or are adjacent while neither is a whole
// parent.
func meets(a, b Passage) bool {
	if a.Segment.DocumentID != b.Segment.DocumentID || len(a.Context) == 0 || len(b.Context) == 0 {
		return false
	}
	touch := 1
	if a.whole || b.whole {
		touch = 0
	}
	aLo, aHi := a.Context[0].Index, a.Context[len(a.Context)-1].Index
	bLo, bHi := b.Context[0].Index, b.Context[len(b.Context)-1].Index
	return aHi+touch >= bLo && bHi+touch >= aLo
}

// absorb merges worse into better: better's hit, document and score stay;
// the windows join; worse's hit and its absorbed hits join better's, in
// Rank order (input order where ranks are equal).
func absorb(better, worse Passage) Passage {
	seen := map[string]bool{better.Segment.ID: true}
	for _, h := range better.Hits {
		seen[h.Segment.ID] = true
	}
	hits := slices.Clone(better.Hits)
	for _, h := range append([]Hit{{worse.Segment, worse.Rank}}, worse.Hits...) {
		if !seen[h.Segment.ID] {
			seen[h.Segment.ID] = true
			hits = append(hits, h)
		}
	}
	slices.SortStableFunc(hits, func(a, b Hit) int { return a.Rank - b.Rank })
	better.Hits = hits
	ctx := append(slices.Clone(better.Context), worse.Context...)
	slices.SortStableFunc(ctx, func(a, b store.Segment) int { return a.Index - b.Index })
	better.Context = slices.CompactFunc(ctx, func(a, b store.Segment) bool { return a.ID == b.ID })
	better.whole = better.whole && worse.whole && len(better.Context) == 1
	return better
}
