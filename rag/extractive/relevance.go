package extractive

import (
	"context"
	"strings"

	"github.com/ibid-dev/ibid/rag/support"
	"github.com/ibid-dev/ibid/store"
	"github.com/ibid-dev/ibid/store/keyword"
)

// AnswerFloor is the relevance floor of the extractive answerer: when the
// best passage holds less than this share of the question's terms,
// weighted by their rarity in the library (BM25's idf), or fewer than two
// of them, the library is taken not to answer the question. Every floor
// from 0 to 0.42 gives the same, best, worst-case rate (0.90) on the
// calibration sets (odd lines of testdata/relevance, the SciFact training
// claims): the two-term rule does most of the work there. The floor is
// the middle of that range, for margin on both sides. docs/answers.md has
// the figures on the held-out sets.
const AnswerFloor = 0.20

// answerFloorPlain is the floor for a library that cannot give term
// statistics (none of ibid's stores; test fakes): the unweighted share of
// the question's terms. It is not tuned.
const answerFloorPlain = 0.50

// Weights are the rarity weights (idf) of terms in the library that ts
// counts, or all 1 when it cannot tell (ts nil, or an error).
func Weights(ctx context.Context, ts store.TermCounter, terms []string) (w []float64, weighted bool) {
	w = make([]float64, len(terms))
	for i := range w {
		w[i] = 1
	}
	if ts == nil || len(terms) == 0 {
		return w, false
	}
	df, n, err := ts.DocFreq(ctx, terms)
	if err != nil || len(df) != len(terms) || n <= 0 {
		return w, false
	}
	for i, d := range df {
		w[i] = support.IDF(d, n)
	}
	return w, true
}

// cover is the weighted share of terms that text holds, and how many of
// them it holds.
func cover(terms []string, weights []float64, text map[string]bool) (share float64, held int) {
	var have, all float64
	for i, t := range terms {
		all += weights[i]
		if text[t] {
			have += weights[i]
			held++
		}
	}
	if all == 0 {
		return 0, 0
	}
	return have / all, held
}

// relevance is how well the best of the top passages covers the question:
// the largest weighted share of the question's terms found in a passage
// (its context window, its document's title and its segments' headings).
//
// Sentences that quote the question itself (a list of example questions)
// do not count: a passage that only repeats the question does not answer it.
func relevance(terms []string, weights []float64, passages []Passage, question []string) (best float64, held int) {
	for _, o := range passages[:min(len(passages), maxPassages)] {
		set := termSet(o.Document.Title)
		for _, h := range o.headings {
			for _, t := range analyse(h) {
				set[t] = true
			}
		}
		if strings.Contains(o.Text, "?") {
			for _, s := range splitSentences(o.Text) {
				if toks := analyse(s); !quotes(toks, question) {
					for _, t := range toks {
						set[t] = true
					}
				}
			}
		} else {
			for _, t := range analyse(o.Text) {
				set[t] = true
			}
		}
		c, h := cover(terms, weights, set)
		if c > best {
			best, held = c, h
		}
	}
	return best, held
}

// TermSet is the set of a text's analysed terms (keyword.Tokenize).
func TermSet(text string) map[string]bool {
	set := map[string]bool{}
	for _, t := range keyword.Tokenize(text) {
		set[t] = true
	}
	return set
}

// termSet is the set of a text's terms as the answerer compares them
// (analyse).
func termSet(text string) map[string]bool {
	set := map[string]bool{}
	for _, t := range analyse(text) {
		set[t] = true
	}
	return set
}
