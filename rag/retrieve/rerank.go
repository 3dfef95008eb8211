package retrieve

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Reranker scores documents against a query: a cross-encoder behind a
// rerank endpoint (llm.Reranker), or a chat model ranking them itself
// (llm.ListwiseReranker).
//
// Rerank returns one score per doc, in the order of docs, higher being
// better; NaN says the doc was not scored. Scores are comparable only
// within one call.
type Reranker interface {
	Rerank(ctx context.Context, query string, docs []string) ([]float64, error)
}

// WindowText is the text of p's window as the model reads it: the Context
// segments' texts, trimmed, in document order, joined by blank lines.
// Rerankers judge a passage on it.
func WindowText(p Passage) string {
	texts := make([]string, 0, len(p.Context))
	for _, s := range p.Context {
		if t := strings.TrimSpace(s.Text); t != "" {
			texts = append(texts, t)
		}
	}
	return strings.Join(texts, "\n\n")
}

// rerank scores ps (merged passages, best first by fusion) with r on their
// window texts and returns the best k: scored passages by decreasing score
// (fusion order among equal scores), then the unscored ones in fusion
// order. A scored passage's Score becomes its rerank score; an unscored
// one keeps its fused score. An error of r, or a wrong number of scores,
// fails the search: a configured reranker that does not answer is a fault
// to fix, and silently falling back to fusion order would hide it. ps is
// not modified.
func rerank(ctx context.Context, r Reranker, query string, ps []Passage, k int) ([]Passage, error) {
	docs := make([]string, len(ps))
	for i, p := range ps {
		docs[i] = WindowText(p)
	}
	scores, err := r.Rerank(ctx, query, docs)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("couldn't rerank %d passages: %w", len(ps), err)
	}
	if len(scores) != len(ps) {
		return nil, fmt.Errorf("couldn't rerank: the reranker returned %d scores for %d passages", len(scores), len(ps))
	}
	order := make([]int, len(ps))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		sa, sb := scores[a], scores[b]
		switch na, nb := math.IsNaN(sa), math.IsNaN(sb); {
		case na && nb:
			return 0
		case na:
			return 1
		case nb:
			return -1
		}
		return cmp.Compare(sb, sa)
	})
	out := make([]Passage, 0, min(k, len(ps)))
	for _, i := range order[:min(k, len(order))] {
		p := ps[i]
		if !math.IsNaN(scores[i]) {
			p.Score = scores[i]
		}
		out = append(out, p)
	}
	return out, nil
}
