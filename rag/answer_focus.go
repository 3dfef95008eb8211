package rag

import (
	"github.com/ibid-dev/ibid/rag/extractive"
	"github.com/ibid-dev/ibid/rag/retrieve"
	"github.com/ibid-dev/ibid/store"
)

// focus is the place inside parent that matched best, as byte offsets
// [start, end) into parent.Text, from hits (a passage's Hits, best first):
// the first hit that is a child of parent (an index row whose Parent is
// parent.ID, with text of its own shorter than parent's). Its offsets in
// the document's text, taken relative to parent.Start, must fall inside
// parent.Text and select exactly the child's text; otherwise, or when no
// hit is a child of parent (plain neighbours absorbed by window merging,
// generated questions, a row mirroring the whole parent), there is no
// focus and both are 0.
func focus(parent store.Segment, hits []retrieve.Hit) (start, end int) {
	for _, h := range hits {
		c := h.Segment
		if c.Parent == "" || c.Parent != parent.ID || c.Text == "" || len(c.Text) >= len(parent.Text) {
			continue
		}
		a, b := c.Start-parent.Start, c.End-parent.Start
		if a < 0 || b <= a || b > len(parent.Text) || parent.Text[a:b] != c.Text {
			return 0, 0
		}
		return a, b
	}
	return 0, 0
}

// sentenceFocus settles the focus of src, offered as source_k, at its
// first citation in this answer (see Source). When numbers continue
// across the conversation and an earlier turn cited the segment, its
// focus is that turn's, as its number is. Otherwise it is, first that
// applies: the span the answerer told it quoted (Request.Quoted; an empty
// one: none); the sentence of the passage the support check finds for
// the claim of a reference at the end of the answer so far (Claim), in whichever of the passage's
// segments holds it (the citation then points at that segment, and
// PassageID names the one offered); the best child hit of a hierarchical
// parent (offered.focusStart).
func (r *answerRun) sentenceFocus(src *Source, k int) {
	o, ok := r.offered[k]
	if !ok {
		return // described from an earlier turn, focus and all
	}
	if r.p.opt.Numbering == NumberingConversation {
		for _, t := range r.past {
			for _, s := range t.Sources {
				if s.Cited() == src.SegmentID && !s.Inferred {
					src.SegmentID, src.PassageID, src.FocusStart, src.FocusEnd = s.SegmentID, s.PassageID, s.FocusStart, s.FocusEnd
					src.SegmentHash = s.SegmentHash
					r.checks.kept[src.Number] = true
					return
				}
			}
		}
	}
	if sp, ok := r.quoted[k]; ok {
		src.FocusStart, src.FocusEnd = 0, 0
		if sp.Start >= 0 && sp.Start < sp.End && sp.End <= len(o.seg.Text) {
			src.FocusStart, src.FocusEnd = sp.Start, sp.End
		}
		return
	}
	seg, a, b, ok := r.checkFocus(k)
	if !ok {
		return // the child's focus, if any (source)
	}
	if seg.ID != o.seg.ID {
		fillSource(src, seg, o.doc)
		src.SegmentID, src.PassageID = seg.ID, o.seg.ID
	}
	src.FocusStart, src.FocusEnd = a, b
}

// weights are the rarity weights (idf) of terms in the library, each
// asked of it once per answer; all 1 when the library cannot tell
// (extractive.Weights).
func (r *answerRun) weights(terms []string) map[string]float64 {
	if r.idf == nil {
		r.idf = map[string]float64{}
	}
	var missing []string
	for _, t := range terms {
		if _, ok := r.idf[t]; !ok {
			missing = append(missing, t)
		}
	}
	if len(missing) > 0 {
		stats, _ := r.p.r.(store.TermCounter)
		w, _ := extractive.Weights(r.ctx, stats, missing)
		for i, t := range missing {
			r.idf[t] = w[i]
		}
	}
	return r.idf
}
