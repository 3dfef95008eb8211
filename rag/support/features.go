package support

import (
	"math"
	"math/bits"
)

// Sentence features: what the focus is chosen by, each in [0, 1].
const (
	sCov     = iota // weighted share of the claim's terms in the sentence (synonyms counted)
	sLocal          // the same with each term also weighed by its rarity in the passage
	sPair           // weighted share of the claim's adjacent pairs adjacent there
	sCtx            // share the sentence before adds, when this one starts with an anaphor
	sNum            // share of the claim's numbers there (0 when it has none)
	sName           // share of the claim's names there (0 when it has none)
	sAim            // 1: the sentence states an aim (cueAim)
	sFinding        // 1: the sentence reports a finding (cueFinding)
	nSent
)

// Verdict features: what the score is computed from, each in [0, 1].
const (
	vCov      = iota // the focus's share of the claim's terms (no synonyms)
	vPair            // the focus's sPair
	vWindow          // share in the focus completed by its neighbours (completed)
	vPassage         // share anywhere in the passage
	vRepeat          // share of the claim's terms found in two sentences or more
	vTop2            // 1: the claim's two rarest terms share a sentence
	vMissNum         // share of the claim's numbers found nowhere in the passage
	vMissName        // share of the claim's names found nowhere in the passage
	vFinding         // the focus's sFinding
	vTerms           // the claim's distinct terms, log(1+n)/5
	nVerdict
)

// matches are, for each sentence, the claim's terms it holds (bit k:
// term k), without and with synonyms, and the union of the former.
type matches struct {
	strict, soft []uint64
	all          uint64
}

// match finds c's terms in e's sentences. It also sets c's weights in
// the passage (claim.local).
func (e *Evidence) match(c *claim) matches {
	slot := make([]uint64, 2*len(e.vocab)) // per term: strict, soft
	for _, x := range c.extra {
		if !x.syn {
			slot[2*x.id] |= x.mask
		}
		slot[2*x.id+1] |= x.mask
	}
	for k, id := range c.ids {
		if id >= 0 {
			slot[2*id], slot[2*id+1] = 1<<k, 1<<k
		}
	}
	mt := matches{strict: make([]uint64, len(e.sents)), soft: make([]uint64, len(e.sents))}
	var sf [maxTerms]int
	for i := range e.sents {
		var m, soft uint64
		for _, id := range e.sents[i].terms {
			m |= slot[2*id]
			soft |= slot[2*id+1]
		}
		mt.strict[i], mt.soft[i] = m, soft
		mt.all |= m
		for b := soft; b != 0; b &= b - 1 {
			sf[bits.TrailingZeros64(b)]++
		}
	}
	// Each term's weight in the passage: its rarity in the library times
	// its rarity among the passage's sentences.
	n := float64(len(e.sents))
	c.local = make([]float64, len(c.terms))
	c.localTotal = 0
	for k := range c.terms {
		c.local[k] = c.w[k] * math.Log(1+n/float64(max(sf[k], 1)))
		c.localTotal += c.local[k]
	}
	return mt
}

// focus is the sentence with the largest score under p, ties to the
// earlier.
func (e *Evidence) focus(c *claim, mt *matches, p *params) int {
	best, bestScore := 0, math.Inf(-1)
	for i := range e.sents {
		x := e.sentence(c, mt, i)
		sc := 0.0
		for k, w := range p.sent {
			sc += w * x[k]
		}
		if sc > bestScore {
			best, bestScore = i, sc
		}
	}
	return best
}

// sentence is the feature vector of sentence i for c.
func (e *Evidence) sentence(c *claim, mt *matches, i int) (x [nSent]float64) {
	s := &e.sents[i]
	m := mt.soft[i]
	x[sCov] = c.weight(m) / c.total
	if c.localTotal > 0 {
		x[sLocal] = weightOf(m, c.local) / c.localTotal
	}
	x[sPair] = e.pairShare(c, i)
	if s.cues&cueAnaphor != 0 && i > 0 {
		x[sCtx] = c.weight(mt.soft[i-1]&^m) / c.total
	}
	x[sNum] = share(mt.strict[i], c.numbers)
	x[sName] = share(mt.strict[i], c.names)
	x[sAim] = bit(s.cues&cueAim != 0)
	x[sFinding] = bit(s.cues&cueFinding != 0)
	return x
}

// verdictFeatures are the verdict's features, best being the focus.
func (e *Evidence) verdictFeatures(c *claim, mt *matches, best int) (v [nVerdict]float64) {
	masks, all := mt.strict, mt.all
	m := masks[best]
	v[vCov] = c.weight(m) / c.total
	v[vPair] = e.pairShare(c, best)
	v[vWindow] = c.weight(e.completed(masks, best)) / c.total
	v[vPassage] = c.weight(all) / c.total
	var once, twice uint64
	for _, mi := range masks {
		twice |= once & mi
		once |= mi
	}
	v[vRepeat] = c.weight(twice) / c.total
	if top := c.rarest2(); top != 0 {
		for _, mi := range masks {
			if mi&top == top {
				v[vTop2] = 1
				break
			}
		}
	}
	if c.numbers != 0 {
		v[vMissNum] = 1 - share(all, c.numbers)
	}
	if c.names != 0 {
		v[vMissName] = 1 - share(all, c.names)
	}
	v[vFinding] = bit(e.sents[best].cues&cueFinding != 0)
	v[vTerms] = math.Log1p(float64(len(c.terms))) / 5
	return v
}

// completed is the mask of sentence i with the sentences that complete
// it: the one before when i starts with an anaphor ("It binds …"), the
// one after when that one does (it goes on about i's subject).
func (e *Evidence) completed(masks []uint64, i int) uint64 {
	m := masks[i]
	if i > 0 && e.sents[i].cues&cueAnaphor != 0 {
		m |= masks[i-1]
	}
	if i+1 < len(masks) && e.sents[i+1].cues&cueAnaphor != 0 {
		m |= masks[i+1]
	}
	return m
}

// rarest2 is the mask of c's two heaviest terms (ties to the earlier), 0
// when it has fewer than two.
func (c *claim) rarest2() uint64 {
	top1, top2 := -1, -1
	for k, w := range c.w {
		switch {
		case top1 < 0 || w > c.w[top1]:
			top1, top2 = k, top1
		case top2 < 0 || w > c.w[top2]:
			top2 = k
		}
	}
	if top2 < 0 {
		return 0
	}
	return 1<<top1 | 1<<top2
}

// pairShare is the weighted share of c's pairs that sentence i holds as
// adjacent terms.
func (e *Evidence) pairShare(c *claim, i int) float64 {
	if c.pairTotal == 0 {
		return 0
	}
	have := 0.0
	for _, cp := range c.pairs {
		if cp.key != noPair && hasPair(e.sents[i].pairs, cp.key) {
			have += cp.w
		}
	}
	return have / c.pairTotal
}

// weightOf is the total of w over the bits of mask.
func weightOf(mask uint64, w []float64) float64 {
	s := 0.0
	for mask != 0 {
		s += w[bits.TrailingZeros64(mask)]
		mask &= mask - 1
	}
	return s
}

// share is the share of want's bits that have holds (0 when want is 0).
func share(have, want uint64) float64 {
	if want == 0 {
		return 0
	}
	return float64(bits.OnesCount64(have&want)) / float64(bits.OnesCount64(want))
}

func bit(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
