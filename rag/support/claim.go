package support

import (
	"math"
	"math/bits"
	"unicode"
	"unicode/utf8"

	"github.com/clipperhouse/uax29/v2/words"
)

// Rarity gives each of terms (analysed by store/keyword's Tokenize) its
// weight, in order: higher for rarer terms, such as BM25's idf in the
// library. A nil Rarity weighs every term 1.
type Rarity func(terms []string) []float64

// maxTerms bounds the distinct terms (and the adjacent pairs) of a claim
// that are weighed: the rarest are kept. A claim is a sentence; one with
// more distinct terms is rare, and its rarest terms decide anyway.
const maxTerms = 64

// claim is a claim analysed against one Evidence: its distinct terms with
// their weights, and bit masks (bit k: term k) of those that are numbers
// or names.
type claim struct {
	terms []string
	w     []float64
	total float64
	ids   []termID // the terms' ids in the evidence's vocabulary, -1 if absent
	// extra are the evidence's terms that stand for some of the claim's
	// absent terms (mask: which): terms near them (nearTerm), the halves
	// of a compound ("birth weight" for birthweight) or a compound of two
	// adjacent ones ("birthweight" for birth-weight).
	extra   []extraTerm
	numbers uint64 // terms that hold a digit
	names   uint64 // terms of names (see names)
	// pairs are the claim's distinct adjacent term pairs, in term indexes,
	// with their weights (the sum of the two terms').
	pairs     []claimPair
	pairTotal float64
	negated   bool
	// local are the terms' weights in the evidence (see masks), and
	// localTotal their sum.
	local      []float64
	localTotal float64
}

// noPair is the key of a claim pair that no sentence holds (a term
// absent from the evidence).
const noPair = ^uint64(0)

type extraTerm struct {
	id   termID
	mask uint64
	syn  bool // a synonym (synonymSets): counts for the focus, not the verdict
}

type claimPair struct {
	a, b int // indexes into terms
	key  uint64
	w    float64
}

// analyseClaim analyses text for checking against e; ok is false when it
// has no terms at all.
func analyseClaim(text string, e *Evidence, rarity Rarity) (c claim, ok bool) {
	toks := tokenize(text)
	if len(toks) == 0 {
		return c, false
	}
	index := map[string]int{}
	seq := make([]int, 0, len(toks))
	for _, t := range toks {
		k, ok := index[t]
		if !ok {
			k = len(c.terms)
			index[t] = k
			c.terms = append(c.terms, t)
		}
		seq = append(seq, k)
	}
	c.w = make([]float64, len(c.terms))
	if rarity != nil {
		if w := rarity(c.terms); len(w) == len(c.terms) {
			for i, x := range w {
				c.w[i] = math.Pow(max(x, 0), rarityPower)
			}
		}
	} else {
		for i := range c.w {
			c.w[i] = 1
		}
	}
	if len(c.terms) > maxTerms {
		c.keepRarest(index, &seq)
	}
	for _, x := range c.w {
		c.total += x
	}
	if c.total == 0 {
		// Every term is everywhere in the library: weigh them alike.
		for i := range c.w {
			c.w[i] = 1
		}
		c.total = float64(len(c.w))
	}
	c.ids = make([]termID, len(c.terms))
	for i, t := range c.terms {
		id, ok := e.vocab[t]
		if !ok {
			id = -1
		}
		c.ids[i] = id
		if set, syn := synonyms[t]; !ok && syn {
			for j, w := range e.words {
				if s2, ok := synonyms[w]; ok && s2 == set {
					c.extra = append(c.extra, extraTerm{termID(j), 1 << i, true})
				}
			}
		}
		if !ok {
			for j, w := range e.words {
				if nearTerm(t, w) {
					c.extra = append(c.extra, extraTerm{termID(j), 1 << i, false})
				}
			}
			for k := minHalf; k <= len(t)-minHalf; k++ {
				a, okA := e.vocab[t[:k]]
				b, okB := e.vocab[t[k:]]
				if okA && okB {
					c.extra = append(c.extra, extraTerm{a, 1 << i, false}, extraTerm{b, 1 << i, false})
					break
				}
			}
		}
		if hasDigit(t) {
			c.numbers |= 1 << i
		}
	}
	for i := 1; i < len(seq); i++ {
		a, b := seq[i-1], seq[i]
		if a < 0 || b < 0 || a == b || c.ids[a] >= 0 && c.ids[b] >= 0 {
			continue
		}
		if id, ok := e.vocab[c.terms[a]+c.terms[b]]; ok {
			c.extra = append(c.extra, extraTerm{id, 1<<a | 1<<b, false})
		}
	}
	for _, t := range names(text) {
		if k, ok := index[t]; ok && k < len(c.terms) {
			c.names |= 1 << k
		}
	}
	c.names &^= c.numbers
	for i := 1; i < len(seq); i++ {
		a, b := seq[i-1], seq[i]
		if a == b || a < 0 || b < 0 {
			continue
		}
		key := noPair
		if c.ids[a] >= 0 && c.ids[b] >= 0 {
			key = pairKey(c.ids[a], c.ids[b])
		}
		dup := false
		for _, p := range c.pairs {
			if p.a == a && p.b == b || p.a == b && p.b == a {
				dup = true
				break
			}
		}
		if dup || len(c.pairs) == maxTerms {
			continue
		}
		p := claimPair{a: a, b: b, key: key, w: c.w[a] + c.w[b]}
		c.pairs = append(c.pairs, p)
		c.pairTotal += p.w
	}
	c.negated = cues(text)&cueNegated != 0
	return c, true
}

// keepRarest keeps the maxTerms heaviest terms, renumbering index and seq
// (a dropped term becomes -1 in seq).
func (c *claim) keepRarest(index map[string]int, seq *[]int) {
	order := make([]int, len(c.terms))
	for i := range order {
		order[i] = i
	}
	// Selection by weight, ties to the earlier term; n is small.
	for i := 0; i < maxTerms; i++ {
		best := i
		for j := i + 1; j < len(order); j++ {
			if c.w[order[j]] > c.w[order[best]] || c.w[order[j]] == c.w[order[best]] && order[j] < order[best] {
				best = j
			}
		}
		order[i], order[best] = order[best], order[i]
	}
	remap := make([]int, len(c.terms))
	for i := range remap {
		remap[i] = -1
	}
	terms := make([]string, maxTerms)
	w := make([]float64, maxTerms)
	for k, old := range order[:maxTerms] {
		remap[old] = k
		terms[k], w[k] = c.terms[old], c.w[old]
	}
	for t, old := range index {
		if remap[old] < 0 {
			delete(index, t)
		} else {
			index[t] = remap[old]
		}
	}
	for i, k := range *seq {
		(*seq)[i] = remap[k]
	}
	c.terms, c.w = terms, w
}

// weight is the total weight of the terms in mask.
func (c *claim) weight(mask uint64) float64 {
	s := 0.0
	for mask != 0 {
		k := bits.TrailingZeros64(mask)
		s += c.w[k]
		mask &= mask - 1
	}
	return s
}

// names are the analysed terms of the words of text that name something:
// a word with two capitals or more ("ASQA", "PrP", "mRNA"), a word that
// mixes letters and digits ("p53"), or a capitalised word that does not
// start the sentence ("Varroa" in "Mites of Varroa …").
func names(text string) []string {
	var out []string
	first := true
	it := words.FromString(text)
	for it.Next() {
		w := it.Value()
		r, _ := utf8.DecodeRuneInString(w)
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			continue
		}
		upper, letters, digits := 0, 0, 0
		for _, r := range w {
			switch {
			case unicode.IsUpper(r):
				upper++
				letters++
			case unicode.IsLetter(r):
				letters++
			case unicode.IsDigit(r):
				digits++
			}
		}
		name := upper >= 2 || letters > 0 && digits > 0 || !first && unicode.IsUpper(r)
		first = false
		if name {
			out = append(out, tokenize(w)...)
		}
	}
	return out
}

// minHalf is the shortest half of a compound term (see claim.extra).
const minHalf = 4

// nearPrefix is how many leading bytes two terms must share to be near.
var nearPrefix = 6

// nearTerm reports whether terms a and b, not equal, are near: both at
// least nearPrefix bytes long, sharing their first nearPrefix bytes
// ("glutam" in glutamate and glutamatergic), neither a number.
func nearTerm(a, b string) bool {
	return len(a) >= nearPrefix && len(b) >= nearPrefix && a[:nearPrefix] == b[:nearPrefix] && !hasDigit(a) && !hasDigit(b)
}

var rarityPower = 1.0
