package rag

import (
	"strings"

	checker "github.com/ibid-dev/ibid/rag/support"
	"github.com/ibid-dev/ibid/store"
)

// This file is the answer's support checks (rag/support): each offered
// passage analysed in the background from the moment retrieval found it;
// each footnote checked once the sentence that cites it has ended, its
// support event sent right after the text that ended it; the model pass,
// when one is configured, refining the uncertain verdicts in the
// background, its events sent as they come and waited for before done.
// Nothing here holds text back: a check runs between two text events and
// costs tens of microseconds once its passage is analysed.

// stopBytes are the bytes that may end a sentence: a chunk of text without
// one cannot end the sentence a footnote waits for, so the check is not
// tried (no work, no allocation, for most chunks).
const stopBytes = ".!?\n\u3002\uff01\uff1f\u2026" // . ! ? newline 。 ！ ？ …

// checks is one answer's support checks.
//
// Invariants: a display number is in sent once its first support event
// was sent, and never gets a second unless a refinement (Refined) follows
// it; pending holds footnotes whose first event is not sent yet, in the
// order of their first reference.
type checks struct {
	evidence map[int]*evidence // by alias k, for this turn's passages
	byNumber map[int]int       // display number → alias k, for this turn's citations
	pending  []pendingCheck
	sent     map[int]bool
	// kept are the display numbers whose source keeps the focus an
	// earlier turn gave it (numbers continue across the conversation):
	// their support events do not move it.
	kept     map[int]bool
	pass     *checker.Pass
	refined  chan refinement
	inflight int
	failure  string // the model pass's first failure, said once in done's note
}

// evidence is a passage being analysed in a goroutine of its own.
type evidence struct {
	ready   chan struct{} // closed once ev is set
	ev      *checker.Evidence
	segs    []store.Segment // the passage's segments, for the source a check points at
	passage checker.Passage
}

func (e *evidence) wait() *checker.Evidence { <-e.ready; return e.ev }

// done reports whether the passage is analysed, without waiting.
func (e *evidence) done() bool {
	select {
	case <-e.ready:
		return true
	default:
		return false
	}
}

// pendingCheck is a footnote waiting for the end of the sentence that
// cites it: its number, its alias, where its first reference is in the
// answer's text.
type pendingCheck struct {
	n, k, at int
}

// refinement is the model pass's answer for footnote n.
type refinement struct {
	n     int
	claim string
	r     checker.Result
	err   error
}

// startChecks starts analysing passages (unless the answerer quotes:
// its footnotes are supported by construction) and the model pass.
func (r *answerRun) startChecks(passages []offered) {
	r.checks = checks{evidence: map[int]*evidence{}, byNumber: map[int]int{}, sent: map[int]bool{}, kept: map[int]bool{}}
	if r.info.Extractive {
		return
	}
	// One goroutine analyses the passages, best first (the likeliest to
	// be cited first): on a small machine the stream keeps a core.
	todo := make([]*evidence, len(passages))
	for i := range passages {
		o := &passages[i]
		e := &evidence{ready: make(chan struct{}), segs: o.window, passage: supportPassage(o.doc, o.window)}
		r.checks.evidence[o.k] = e
		todo[i] = e
	}
	go func() {
		for _, e := range todo {
			e.ev = checker.Analyse(e.passage)
			close(e.ready)
		}
	}()
	if j := r.p.opt.Verify; j != nil {
		r.checks.pass = j.Pass()
		r.checks.refined = make(chan refinement, 16)
	}
}

// rarity weighs terms by their rarity in the library (weights), for the
// checker.
func (r *answerRun) rarity() checker.Rarity {
	return func(terms []string) []float64 {
		m := r.weights(terms)
		w := make([]float64, len(terms))
		for i, t := range terms {
			w[i] = m[t]
		}
		return w
	}
}

// citedAt notes the first reference of footnote n (source_k) at the
// answer's current end: an answerer that quotes has its support event
// sent at once; otherwise the footnote waits for its sentence to end.
func (r *answerRun) citedAt(n int) {
	c := &r.checks
	k, ok := c.byNumber[n]
	if !ok || c.sent[n] {
		return
	}
	for _, p := range c.pending {
		if p.n == n {
			return
		}
	}
	if sp, ok := r.quoted[k]; ok {
		c.sent[n] = true
		o := r.offered[k]
		s := &Support{Number: n, Verdict: Unchecked}
		if o != nil && sp.Start < sp.End && sp.End <= len(o.seg.Text) {
			s = &Support{Number: n, Verdict: Supported, SegmentID: o.seg.ID, FocusStart: sp.Start, FocusEnd: sp.End,
				Score: 1, Sentence: o.seg.Text[sp.Start:sp.End], Claim: o.seg.Text[sp.Start:sp.End], Quoted: true}
		}
		r.send(Event{Type: EventSupport, Number: n, Support: s})
		return
	}
	if _, ok := c.evidence[k]; ok {
		c.pending = append(c.pending, pendingCheck{n: n, k: k, at: r.text.Len()})
	}
}

// textArrived checks the footnotes whose sentence the text just added
// (chunk) may have ended, and sends the model pass's refinements that
// have come.
func (r *answerRun) textArrived(chunk string) {
	if len(r.checks.pending) > 0 && strings.ContainsAny(chunk, stopBytes) {
		r.settle(false)
	}
	r.drainRefined(false)
}

// settle sends the support events of the pending footnotes whose
// sentence has ended and whose passage is analysed; when final (the
// answer is whole) of all of them, waiting for their passages.
func (r *answerRun) settle(final bool) {
	c := &r.checks
	keep := c.pending[:0]
	text := r.text.String()
	for _, p := range c.pending {
		s, e, ended := claimSpan(text, p.at)
		if !final && (!ended || !c.evidence[p.k].done()) {
			keep = append(keep, p)
			continue
		}
		r.check(p, tidyClaim(text[s:e]))
	}
	c.pending = keep
}

// check checks footnote p's claim against its passage and sends the
// verdict; an uncertain one goes to the model pass.
func (r *answerRun) check(p pendingCheck, claim string) {
	c := &r.checks
	c.sent[p.n] = true
	ev := c.evidence[p.k].wait()
	res := ev.Check(claim, r.rarity())
	r.pointSource(p, res)
	r.send(Event{Type: EventSupport, Number: p.n, Support: supportOf(p.n, claim, res)})
	if c.pass == nil || !checker.Needs(res) {
		return
	}
	c.inflight++
	ctx := r.ctx
	go func() {
		r2, err := c.pass.Refine(ctx, claim, ev, res)
		select {
		case c.refined <- refinement{n: p.n, claim: claim, r: r2, err: err}:
		case <-ctx.Done(): // the answer is gone: nobody waits
		}
	}()
}

// drainRefined sends the refinements that have come, waiting for the
// rest when final (the answer's text is whole; the wait ends with ctx).
func (r *answerRun) drainRefined(final bool) {
	c := &r.checks
	for c.inflight > 0 {
		var f refinement
		if final {
			select {
			case f = <-c.refined:
			case <-r.ctx.Done():
				return
			}
		} else {
			select {
			case f = <-c.refined:
			default:
				return
			}
		}
		c.inflight--
		if f.err != nil {
			if c.failure == "" && r.ctx.Err() == nil {
				c.failure = "The citations were checked without the model (" + f.err.Error() + ")."
			}
			continue
		}
		if f.r.Refined {
			r.send(Event{Type: EventSupport, Number: f.n, Support: supportOf(f.n, f.claim, f.r)})
		}
	}
}

// finishChecks checks what is still pending, the answer being whole, and
// waits for the model pass.
func (r *answerRun) finishChecks() {
	if len(r.checks.pending) > 0 {
		r.settle(true)
	}
	r.drainRefined(true)
}

// supportOf is the support event's payload for footnote n.
func supportOf(n int, claim string, res checker.Result) *Support {
	return &Support{Number: n, Verdict: res.Verdict, SegmentID: res.Segment, FocusStart: res.Start, FocusEnd: res.End,
		Score: res.Score, Sentence: res.Sentence, Claim: claim, Refined: res.Refined}
}

// checkFocus is the focus the checker finds for source_k's citation as
// the answer stands (the claim of a reference at its end, Claim):
// the segment of the passage that holds it and the span; ok false when
// the passage is not this turn's, is not analysed (an answer that quotes)
// or not yet (the citation is never held back for it: its support event
// brings the focus), or nothing supports the sentence.
func (r *answerRun) checkFocus(k int) (seg store.Segment, a, b int, ok bool) {
	e, has := r.checks.evidence[k]
	if !has {
		return seg, 0, 0, false
	}
	if !e.done() {
		return seg, 0, 0, false // not analysed yet: the support event will tell
	}
	text := r.text.String()
	res := e.ev.Check(Claim(text, len(text)), r.rarity())
	if res.Segment == "" {
		return seg, 0, 0, false
	}
	for _, s := range e.segs {
		if s.ID == res.Segment {
			return s, res.Start, res.End, true
		}
	}
	return seg, 0, 0, false
}

// pointSource makes the turn's source of footnote p point at the
// supporting sentence res found (the citation event, already sent, may
// have had none, or another): the turn is saved with the check's focus,
// as the faces show it once the support event came.
func (r *answerRun) pointSource(p pendingCheck, res checker.Result) {
	if res.Segment == "" || r.checks.kept[p.n] {
		return
	}
	o := r.offered[p.k]
	for i := range r.turn.Sources {
		src := &r.turn.Sources[i]
		if src.Number != p.n || src.Inferred || o == nil {
			continue
		}
		for _, seg := range r.checks.evidence[p.k].segs {
			if seg.ID == res.Segment {
				fillSource(src, seg, o.doc)
				src.SegmentID, src.PassageID = seg.ID, ""
				if seg.ID != o.seg.ID {
					src.PassageID = o.seg.ID
				}
				src.FocusStart, src.FocusEnd = res.Start, res.End
			}
		}
	}
}
