package support

import (
	"fmt"
	"math"
)

// Verdict says whether a passage supports a claim.
type Verdict string

const (
	// Supported: the passage says what the claim says.
	Supported Verdict = "supported"
	// Partial: the passage says some of it, or the check cannot tell.
	Partial Verdict = "partial"
	// Unsupported: the passage does not say it.
	Unsupported Verdict = "unsupported"
	// Unchecked: nothing to judge (a claim with no words to compare, a
	// passage with no sentence that can be evidence).
	Unchecked Verdict = "unchecked"
)

// Valid reports whether v is one of the four verdicts.
func (v Verdict) Valid() bool {
	switch v {
	case Supported, Partial, Unsupported, Unchecked:
		return true
	}
	return false
}

func (v Verdict) String() string { return string(v) }

// Result is what a check found.
//
// Invariants: Segment is "" exactly when there is no span (Start == End ==
// 0, Sentence ""): nothing to judge, or no sentence shares a word with
// the claim; otherwise it is the ID of one of the passage's segments and
// 0 <= Start < End <= len(that segment's Text), the span holding
// Sentence, a whole sentence that is not a heading. Score is in
// [0, 1]; Verdict follows from it by the thresholds (params' low and
// high), except Unchecked (Score 0) and a verdict a model refined (Refined).
type Result struct {
	Verdict  Verdict
	Score    float64
	Segment  string
	Start    int
	End      int
	Sentence string
	// Refined is true when a model judged the claim (Judge) after the
	// lexical check; Verdict is then the model's, Score still lexical.
	Refined bool
}

func (r Result) String() string {
	return fmt.Sprintf("%s %.2f %s[%d:%d]", r.Verdict, r.Score, r.Segment, r.Start, r.End)
}

// Check checks claim (the sentence that cites) against the evidence:
// the sentence that supports it best, and a verdict. rarity weighs the
// claim's terms (nil: all alike). It reads e and never changes it.
func (e *Evidence) Check(claim string, rarity Rarity) Result {
	return e.check(claim, rarity, &defaultParams)
}

func (e *Evidence) check(text string, rarity Rarity, p *params) Result {
	c, ok := analyseClaim(text, e, rarity)
	if !ok || len(e.sents) == 0 {
		return Result{Verdict: Unchecked}
	}
	mt := e.match(&c)
	best := e.focus(&c, &mt, p)
	v := e.verdictFeatures(&c, &mt, best)
	s := e.sents[best]
	var r Result
	if mt.soft[best] != 0 { // a sentence that shares nothing with the claim supports nothing
		r = Result{Segment: e.segs[s.seg].ID, Start: s.start, End: s.end, Sentence: e.segs[s.seg].Text[s.start:s.end]}
	}
	r.Score = p.score(&v)
	r.Verdict = p.verdict(r.Score)
	if r.Verdict == Supported && (c.negated != (s.cues&cueNegated != 0) || v[vMissNum] > 0) {
		// Negation must agree, and a claim's numbers must be found.
		r.Verdict = Partial
	}
	return r
}

// params are the weights and thresholds of the check (see tune_test.go).
type params struct {
	sent      [nSent]float64    // the sentence score's weights
	bias      float64           // the verdict's logistic bias
	coef      [nVerdict]float64 // and weights
	low, high float64           // verdict thresholds on the score
}

// score is the verdict's score: a logistic function of its features.
func (p *params) score(v *[nVerdict]float64) float64 {
	z := p.bias
	for i, x := range v {
		z += p.coef[i] * x
	}
	return 1 / (1 + math.Exp(-z))
}

func (p *params) verdict(score float64) Verdict {
	switch {
	case score >= p.high:
		return Supported
	case score < p.low:
		return Unsupported
	}
	return Partial
}
