package llm

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
)

// ListwiseReranker has a chat model rank documents itself, listwise
// (RankGPT, Sun et al. 2023): the model reads a window of numbered
// passages and answers with their order, "[3] > [1] > [2]". A sliding
// window, from the back of the list to the front, lets it rank more
// documents than fit in one prompt: each window overlaps the next by
// Window-Step, so a relevant document found late can climb to the top.
//
// Its scores are consistent with its final order: len(docs) for the first,
// one less for each next; none is NaN. It is safe for concurrent use.
type ListwiseReranker struct {
	m *Model
	// Window is how many passages one prompt holds (default 20); Step how
	// far the window moves toward the front each time (default 10, at
	// most Window).
	Window, Step int
	// MaxWords cuts each passage to that many words in the prompt
	// (default 300, as RankGPT: 20 of them fit in about 8,000 tokens).
	MaxWords int
	// Unparsed counts the windows whose answer named no passage of the
	// window: they kept their order.
	Unparsed atomic.Int64
}

// Defaults of ListwiseReranker.
const (
	DefaultListwiseWindow   = 20
	DefaultListwiseStep     = 10
	DefaultListwiseMaxWords = 300
)

// NewListwiseReranker returns a listwise reranker asking m, with the
// default window, step and passage length.
func NewListwiseReranker(m *Model) *ListwiseReranker { return &ListwiseReranker{m: m} }

// Rerank ranks docs for query and returns their scores in the order of
// docs: len(docs) for the best, 1 for the last. A model error ends the
// ranking with that error; an answer that cannot be read keeps its
// window's order (counted in Unparsed).
func (r *ListwiseReranker) Rerank(ctx context.Context, query string, docs []string) ([]float64, error) {
	w, step := r.Window, r.Step
	if w <= 1 {
		w = DefaultListwiseWindow
	}
	if step <= 0 {
		step = DefaultListwiseStep
	}
	step = min(step, w)
	order := make([]int, len(docs)) // order[rank] = doc
	for i := range order {
		order[i] = i
	}
	for end := len(docs); len(docs) > 1; end -= step {
		begin := max(0, end-w)
		if err := r.rankWindow(ctx, query, docs, order[begin:end]); err != nil {
			return nil, err
		}
		if begin == 0 {
			break
		}
	}
	scores := make([]float64, len(docs))
	for rank, d := range order {
		scores[d] = float64(len(docs) - rank)
	}
	return scores, nil
}

// rankWindow asks the model to order the docs of win (indices into docs)
// and reorders win in place.
func (r *ListwiseReranker) rankWindow(ctx context.Context, query string, docs []string, win []int) error {
	maxWords := r.MaxWords
	if maxWords <= 0 {
		maxWords = DefaultListwiseMaxWords
	}
	var answer strings.Builder
	err := r.m.Stream(ctx, listwisePrompt(query, docs, win, maxWords), nil, func(s string) { answer.WriteString(s) })
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("the model %s couldn't rank passages: %w", r.m.Name(), err)
	}
	perm, ok := parsePermutation(answer.String(), len(win))
	if !ok {
		r.Unparsed.Add(1)
		return nil
	}
	ranked := make([]int, len(win))
	for i, p := range perm {
		ranked[i] = win[p]
	}
	copy(win, ranked)
	return nil
}

// listwisePrompt is RankGPT's instruction, the window's passages numbered
// from 1 (cut to maxWords, their brackets made parentheses so that a
// document's own "[2]" cannot pass for an identifier) and the question
// again.
func listwisePrompt(query string, docs []string, win []int, maxWords int) []Message {
	n := len(win)
	var b strings.Builder
	fmt.Fprintf(&b, "I will provide you with %d passages, each indicated by a numerical identifier []. Rank the passages based on their relevance to the search query: %s\n\n", n, query)
	unbracket := strings.NewReplacer("[", "(", "]", ")")
	for i, d := range win {
		words := strings.Fields(docs[d])
		if len(words) > maxWords {
			words = words[:maxWords]
		}
		fmt.Fprintf(&b, "[%d] %s\n\n", i+1, unbracket.Replace(strings.Join(words, " ")))
	}
	fmt.Fprintf(&b, "Search Query: %s\n\nRank the %d passages above based on their relevance to the search query. List them in descending order of relevance using their identifiers, the most relevant first. The output format should be [] > [], e.g., [2] > [1]. Answer only with the ranking, without any other word or explanation.", query, n)
	return []Message{
		{Role: RoleSystem, Content: "You are RankGPT, an intelligent assistant that can rank passages based on their relevance to the query."},
		{Role: RoleUser, Content: b.String()},
	}
}

var (
	thinkBlock   = regexp.MustCompile(`(?s)<think>.*?(</think>|$)`)
	bracketedNum = regexp.MustCompile(`\[\s*(\d{1,4})\s*\]`)
	bareNum      = regexp.MustCompile(`\d{1,4}`)
)

// parsePermutation reads a model's ranking of n passages numbered from 1
// ("[3] > [1] > [2]"; bare numbers are read when no bracketed one is
// there; a reasoning model's <think> block is skipped) as a permutation of
// 0..n-1: the numbers named, in order, duplicates and numbers out of range
// ignored, then the ones not named in their original order. ok is false
// when the answer names no passage of the window.
func parsePermutation(answer string, n int) (perm []int, ok bool) {
	answer = thinkBlock.ReplaceAllString(answer, "")
	var nums []string
	for _, m := range bracketedNum.FindAllStringSubmatch(answer, -1) {
		nums = append(nums, m[1])
	}
	if nums == nil {
		nums = bareNum.FindAllString(answer, -1)
	}
	seen := make([]bool, n)
	for _, s := range nums {
		k, err := strconv.Atoi(s)
		if err != nil || k < 1 || k > n || seen[k-1] {
			continue
		}
		seen[k-1] = true
		perm = append(perm, k-1)
	}
	if len(perm) == 0 {
		return nil, false
	}
	for i, s := range seen {
		if !s {
			perm = append(perm, i)
		}
	}
	return perm, true
}
