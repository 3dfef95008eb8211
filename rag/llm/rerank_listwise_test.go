package llm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/rag/llm"
	"github.com/ibid-dev/ibid/rag/llmtest"
)

func listwiseModel(srv *llmtest.Server) *llm.Model {
	c := llm.New(llm.Config{BaseURL: srv.BaseURL(), APIKey: "k", Policy: llm.Policy{Retries: -1, Base: time.Millisecond}})
	return llm.NewModel(c, "fake-model")
}

// userPrompt is the user message of request i.
func userPrompt(t *testing.T, srv *llmtest.Server, i int) string {
	t.Helper()
	reqs := srv.Requests()
	if i >= len(reqs) {
		t.Fatalf("%d requests, want more than %d", len(reqs), i)
	}
	for _, raw := range reqs[i].Messages {
		var m struct{ Role, Content string }
		json.Unmarshal(raw, &m)
		if m.Role == "user" {
			return m.Content
		}
	}
	t.Fatalf("request %d has no user message", i)
	return ""
}

// orderOf is the docs by decreasing score.
func orderOf(scores []float64) []int {
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		if scores[a] > scores[b] {
			return -1
		}
		if scores[a] < scores[b] {
			return 1
		}
		return 0
	})
	return idx
}

// TestListwiseSlidingWindow: 25 passages, window 20, step 10: the model
// first ranks passages 6..25 (it reverses them), then the top 15 of the
// result, where it puts its [6] (doc 24, risen from the back) first.
func TestListwiseSlidingWindow(t *testing.T) {
	t.Parallel()
	var docs []string
	for i := range 25 {
		docs = append(docs, fmt.Sprintf("doc%02d says something", i))
	}
	var reverse []string
	for i := 20; i >= 1; i-- {
		reverse = append(reverse, fmt.Sprintf("[%d]", i))
	}
	srv := llmtest.New(
		llmtest.Reply{Chunks: llmtest.Split(strings.Join(reverse, " > "), 7)},
		llmtest.Reply{Chunks: []string{"<think>[1] is best? no.</think>", "[6] > [1] > [6] > [99]"}},
	)
	defer srv.Close()
	r := llm.NewListwiseReranker(listwiseModel(srv))
	scores, err := r.Rerank(context.Background(), "what does doc24 say", docs)
	if err != nil {
		t.Fatal(err)
	}
	want := []int{24, 0, 1, 2, 3, 4}
	for d := 23; d >= 5; d-- {
		want = append(want, d)
	}
	if got := orderOf(scores); !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	if scores[24] != 25 || scores[5] != 1 {
		t.Errorf("scores %v: want 25 for the first, 1 for the last", scores)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Fatalf("%d model calls, want 2 windows", n)
	}
	first, second := userPrompt(t, srv, 0), userPrompt(t, srv, 1)
	if !strings.Contains(first, "[1] doc05 ") || !strings.Contains(first, "[20] doc24 ") || strings.Contains(first, "doc04") {
		t.Errorf("first window is not docs 5..24:\n%s", first)
	}
	if !strings.Contains(second, "[1] doc00 ") || !strings.Contains(second, "[6] doc24 ") || !strings.Contains(second, "[15] doc15 ") || strings.Contains(second, "doc14") {
		t.Errorf("second window is not the top 15 after the first:\n%s", second)
	}
	if !strings.Contains(second, "what does doc24 say") || !strings.Contains(second, "15 passages") {
		t.Errorf("prompt lacks the query or the count:\n%s", second)
	}
	if r.Unparsed.Load() != 0 {
		t.Errorf("Unparsed %d", r.Unparsed.Load())
	}
}

func TestListwiseUnparsedAndShort(t *testing.T) {
	t.Parallel()
	docs := []string{"alpha [2] cites", "beta " + strings.Repeat("word ", 400), "gamma"}
	srv := llmtest.New(llmtest.Reply{Chunks: []string{"Sorry, I cannot rank these."}})
	defer srv.Close()
	r := llm.NewListwiseReranker(listwiseModel(srv))
	scores, err := r.Rerank(context.Background(), "q", docs)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(scores, []float64{3, 2, 1}) || r.Unparsed.Load() != 1 {
		t.Errorf("unparseable answer: scores %v, Unparsed %d; want input order, 1", scores, r.Unparsed.Load())
	}
	p := userPrompt(t, srv, 0)
	if strings.Contains(p, "[2] cites") || !strings.Contains(p, "alpha (2) cites") {
		t.Errorf("a document's own [2] reached the prompt as an identifier:\n%s", p)
	}
	if cut := "[2] beta " + strings.Repeat("word ", llm.DefaultListwiseMaxWords-2) + "word\n\n"; !strings.Contains(p, cut) {
		t.Errorf("long passage not cut to %d words:\n%s", llm.DefaultListwiseMaxWords, p)
	}
	// One document: nothing to ask.
	scores, err = r.Rerank(context.Background(), "q", docs[:1])
	if err != nil || !slices.Equal(scores, []float64{1}) || len(srv.Requests()) != 1 {
		t.Errorf("one doc: %v, %v, %d requests", scores, err, len(srv.Requests()))
	}
}

func TestListwiseModelError(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(llmtest.Reply{Status: 400})
	defer srv.Close()
	_, err := llm.NewListwiseReranker(listwiseModel(srv)).Rerank(context.Background(), "q", []string{"a", "b"})
	if err == nil || !strings.Contains(err.Error(), "couldn't rank") || llm.Status(err) != 400 {
		t.Errorf("model error: %v", err)
	}
}
