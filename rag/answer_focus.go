package rag

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ibid-dev/ibid/rag/extractive"
	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/rag/retrieve"
	"github.com/ibid-dev/ibid/store"
	"github.com/ibid-dev/ibid/store/keyword"
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

// citingBytes bounds how much of the answer's end citingSentence reads.
const citingBytes = 4096

// citingSentence is the sentence of an answer that a reference placed at
// the end of text (the answer so far, references left out, as the
// citation engine delivers it before the reference) cites: the text from
// the end of the sentence before up to the reference, split as documents
// are (ingest.Sentences). A reference after a full stop ("… almonds. [1]")
// cites the sentence it follows; one inside a sentence ("A [1] and B
// [2].") cites the text from the sentence's start up to it. Only the last
// citingBytes bytes of text are read.
func citingSentence(text string) string {
	text = strings.TrimRight(text, " \t\r\n")
	if cut := len(text) - citingBytes; cut > 0 {
		for cut < len(text) && !utf8.RuneStart(text[cut]) {
			cut++
		}
		text = text[cut:]
	}
	spans := ingest.Sentences(text)
	if len(spans) == 0 {
		return ""
	}
	last := spans[len(spans)-1]
	return text[last.Start:last.End]
}

// support is the sentence of text (ingest.Sentences, which never ends one
// inside a code span; white space and list or quote markers around it
// left out) with the best lexical support for citing: the largest sum of
// weight over the distinct analysed terms (keyword.Tokenize, question
// words left out) that the two share; ties go to the earlier sentence.
// ok is false when no sentence shares a term with citing. weight gives
// each of citing's terms its weight (terms missing weigh 0).
func support(text, citing string, weight func(terms []string) map[string]float64) (sp ingest.Span, ok bool) {
	set := extractive.ContentTerms(keyword.Tokenize(citing))
	if len(set) == 0 {
		return ingest.Span{}, false
	}
	terms := make([]string, 0, len(set))
	for t := range set {
		terms = append(terms, t)
	}
	slices.Sort(terms)
	w := weight(terms)
	best := 0.0
	for _, s := range ingest.Sentences(text) {
		score := 0.0
		for t := range extractive.TermSet(text[s.Start:s.End]) {
			if set[t] {
				score += w[t]
			}
		}
		if score > best {
			best, sp, ok = score, extractive.TrimSpan(text, s), true
		}
	}
	return sp, ok
}

// sentenceFocus settles the focus of src, offered as source_k and
// described by source (which gave it its child focus, if any), at its
// first citation in this answer (see Source). When numbers continue
// across the conversation and an earlier turn cited the segment, its focus
// is that turn's, as its number is. Otherwise, when the passage offered as
// source_k in this turn has no child focus, it is the sentence of its
// segment that best supports the sentence citing it: the span the
// answerer told it quoted (Request.Quoted; an empty one: none), or else
// the sentence support finds for citingSentence of the answer so far.
func (r *answerRun) sentenceFocus(src *Source, k int) {
	o, ok := r.offered[k]
	if !ok {
		return // described from an earlier turn, focus and all
	}
	if r.p.opt.Numbering == NumberingConversation {
		for _, t := range r.past {
			for _, s := range t.Sources {
				if s.SegmentID == src.SegmentID && !s.Inferred {
					src.FocusStart, src.FocusEnd = s.FocusStart, s.FocusEnd
					return
				}
			}
		}
	}
	if o.focusEnd > 0 {
		return
	}
	sp, ok := r.quoted[k]
	if !ok {
		sp, ok = support(o.seg.Text, citingSentence(r.text.String()), r.weights)
	}
	if ok && sp.Start >= 0 && sp.Start < sp.End && sp.End <= len(o.seg.Text) {
		src.FocusStart, src.FocusEnd = sp.Start, sp.End
	}
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
