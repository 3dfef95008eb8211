// Package extractive is the answerer that needs no model: it quotes the
// whole sentences of the retrieved passages that best answer a question,
// each cited by its passage's alias, or, when even the best passage covers
// too little of the question (the relevance floor), declines and names the
// closest passages. It chooses; package rag writes the choice into the
// citation stream (neutralised, streamed) as the extractive Answerer.
//
// It never imports rag: it reads passages as Passage (Views makes them
// from retrieval's passages) and a library's term statistics through
// store.TermCounter.
package extractive

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/store"
	"github.com/ibid-dev/ibid/store/keyword"
)

// Answerer limits: sentences come from the top maxPassages passages, at
// most perPassage from each and maxSentences in all.
const (
	maxPassages  = 4
	perPassage   = 2
	maxSentences = 5
	relative     = 0.5 // a sentence scoring under this share of the best is left out
	duplicate    = 0.6 // a sentence sharing more of its terms than this with a chosen one is a near-duplicate
	echo         = 0.7 // a sentence whose terms are more than this share the question's own merely echoes it
)

// Query is one question put to the answerer.
type Query struct {
	Question string
	// Passages are the turn's passages as Views makes them, best first.
	Passages []Passage
	// Stats, if not nil, gives the library's term statistics, which weigh
	// the question's terms by rarity; without it every term weighs 1 and
	// a plainer floor applies.
	Stats store.TermCounter
	// Explain, if not nil, is told why each sentence was chosen, or why
	// none was (ibid ask --explain).
	Explain func(line string)
}

// Result is the answerer's choice.
//
// Invariant: Declined and Quotes exclude each other; with no passages
// both are empty.
type Result struct {
	// Declined: the library does not seem to answer the question; Closest
	// are the passages to name instead (at most two, best first).
	Declined bool
	Closest  []Passage
	// Quotes are the sentences to quote, in the order to write them:
	// sentences of one passage together, passages in rank order.
	Quotes []Quote
}

// Quote is one quoted sentence.
type Quote struct {
	K    int    // alias of the passage it is cited as
	Text string // the sentence as quoted (white space runs single, markers off)
	// Span is where it lies in its passage's Segment.Text.
	Span ingest.Span
	// Rank is its passage's rank among the passages quoted from: a new
	// rank starts a new paragraph.
	Rank int
}

// sentence is a candidate sentence of the answer.
type sentence struct {
	text  string
	span  ingest.Span // where it lies in its passage's segment text
	terms map[string]bool
	k     int // alias of its passage
	rank  int // its passage's rank
	pos   int // its position in the passage
	score float64
	why   string // how the score came about, for --explain
}

// Answer chooses, without a model, the whole sentences of the top
// passages that best answer the question. When even the best passage
// covers too little of the question (relevance under AnswerFloor, or fewer
// than two of its terms), it declines and names the two closest passages,
// quoting nothing. ctx is checked for cancellation before the work starts.
func Answer(ctx context.Context, q Query) (Result, error) {
	explain := q.Explain
	if explain == nil {
		explain = func(string) {}
	}
	passages := q.Passages
	if err := ctx.Err(); err != nil || len(passages) == 0 {
		return Result{}, err
	}
	terms := questionTerms(q.Question)
	weights, weighted := Weights(ctx, q.Stats, terms)
	floor := AnswerFloor
	if !weighted {
		floor = answerFloorPlain
	}
	qseq := keyword.Tokenize(q.Question)
	rel, held := relevance(terms, weights, passages, qseq)
	if rel < floor || held < min(2, len(terms)) {
		explain(fmt.Sprintf("declined: the best passage holds %.2f of the question's terms%s (floor %.2f); terms: %s",
			rel, weightNote(weighted), floor, strings.Join(terms, ", ")))
		return Result{Declined: true, Closest: passages[:min(2, len(passages))]}, nil
	}
	explain(fmt.Sprintf("answered: the best passage holds %.2f of the question's terms%s (floor %.2f)", rel, weightNote(weighted), floor))

	qset := map[string]bool{}
	for _, t := range terms {
		qset[t] = true
	}
	var cands []sentence
	for rank, o := range passages[:min(len(passages), maxPassages)] {
		for pos, sq := range splitQuotes(o.Segment.Text) {
			toks := keyword.Tokenize(sq.text)
			c := sentence{text: sq.text, span: sq.span, terms: ContentTerms(toks), k: o.K, rank: rank, pos: pos}
			c.score, c.why = scoreSentence(&c, terms, weights, qset)
			if quotes(toks, qseq) {
				c.score *= 0.1
				c.why += ", down-weighted: it quotes the question itself"
			}
			cands = append(cands, c)
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	picked := pick(cands)
	for _, s := range picked {
		explain(fmt.Sprintf("[source_%d] %s: %q", s.k, s.why, clip(s.text, 80)))
	}
	sort.SliceStable(picked, func(i, j int) bool {
		if picked[i].rank != picked[j].rank {
			return picked[i].rank < picked[j].rank
		}
		return picked[i].pos < picked[j].pos
	})
	res := Result{Quotes: make([]Quote, len(picked))}
	for i, s := range picked {
		res.Quotes[i] = Quote{K: s.k, Text: s.text, Span: s.span, Rank: s.rank}
	}
	return res, nil
}

func weightNote(weighted bool) string {
	if weighted {
		return ", weighted by rarity"
	}
	return ""
}

// scoreSentence scores a candidate by what the question asks: the share
// of the question's terms it holds, weighted by rarity; a little for its
// passage's rank; less for a sentence that merely repeats the question (its
// terms are mostly the question's), for a question, and for fragments or
// walls of text.
func scoreSentence(c *sentence, terms []string, weights []float64, qset map[string]bool) (float64, string) {
	cov := coverage(terms, weights, c.terms)
	var matched []string
	own := 0
	for t := range c.terms {
		if qset[t] {
			matched = append(matched, t)
		} else {
			own++
		}
	}
	sort.Strings(matched)
	rankBonus := 0.15 / float64(c.rank+1)
	score := cov + rankBonus
	why := fmt.Sprintf("holds %.2f of the question (%s), passage rank %d", cov, strings.Join(matched, " "), c.rank+1)
	if len(c.terms) > 0 && float64(len(matched))/float64(len(c.terms)) > echo || own < 3 {
		score *= 0.4
		why += ", down-weighted: mostly the question's own words"
	}
	if strings.HasSuffix(strings.TrimSpace(c.text), "?") {
		score *= 0.5
		why += ", down-weighted: a question"
	}
	if n := len(c.text); n < 30 || n > 600 {
		score *= 0.7
		why += ", down-weighted: length"
	}
	return score, fmt.Sprintf("score %.2f: %s", score, why)
}

// quotes reports whether a sentence's terms hold the question's terms in
// order, one after another (a tip or a list of example questions that
// repeats the question): such a sentence asks, it does not answer. Short
// questions (under three terms) are never taken as quoted.
func quotes(sentence, question []string) bool {
	if len(question) < 3 || len(question) > len(sentence) {
		return false
	}
	for i := 0; i+len(question) <= len(sentence); i++ {
		if slices.Equal(sentence[i:i+len(question)], question) {
			return true
		}
	}
	return false
}

// pick chooses, from candidates sorted best first, up to
// maxSentences sentences, at most perPassage per passage,
// none far worse than the best and none a near-duplicate of one chosen.
func pick(cands []sentence) []sentence {
	per := map[int]int{}
	var picked []sentence
	for _, c := range cands {
		if len(picked) == maxSentences {
			break
		}
		if len(picked) > 0 && c.score < relative*picked[0].score {
			break
		}
		if c.score <= 0 || per[c.k] == perPassage || nearDuplicate(c, picked) {
			continue
		}
		per[c.k]++
		picked = append(picked, c)
	}
	return picked
}

// nearDuplicate reports whether c shares most of its terms with a sentence
// already picked.
func nearDuplicate(c sentence, picked []sentence) bool {
	for _, p := range picked {
		both, either := 0, len(p.terms)
		for t := range c.terms {
			if p.terms[t] {
				both++
			} else {
				either++
			}
		}
		if either > 0 && float64(both)/float64(either) > duplicate {
			return true
		}
	}
	return false
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
