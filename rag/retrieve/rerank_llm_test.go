package retrieve

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/rag/llm"
	"github.com/ibid-dev/ibid/rag/llmtest"
)

// Both rerankers of rag/llm are Rerankers.
var (
	_ Reranker = (*llm.Reranker)(nil)
	_ Reranker = (*llm.ListwiseReranker)(nil)
)

// TestSearchRerankEndpoint: a search reranked by a TEI server (found at
// /rerank behind a /v1 base URL) comes back in the server's order, with its
// scores.
func TestSearchRerankEndpoint(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b struct {
			Query string   `json:"query"`
			Texts []string `json:"texts"`
		}
		if r.URL.Path != "/rerank" {
			http.NotFound(w, r)
			return
		}
		if json.NewDecoder(r.Body).Decode(&b) != nil || b.Texts == nil {
			http.Error(w, "missing field `texts`", http.StatusUnprocessableEntity)
			return
		}
		type result struct {
			Index int     `json:"index"`
			Score float64 `json:"score"`
		}
		out := []result{}
		for i, text := range b.Texts { // prefers windows about hospitals differing
			if strings.Contains(text, "Hospitals differ") {
				out = append(out, result{i, 0.99})
			}
		}
		json.NewEncoder(w).Encode(out)
	}))
	defer srv.Close()
	ix, _ := newTestIndex(t)
	rr := llm.NewReranker(llm.New(llm.Config{BaseURL: srv.URL + "/v1"}), "bge-reranker-base")
	ps, err := ix.Search(context.Background(), "random effects hospitals", Options{K: 2, Mode: Lexical, Neighbours: -1, Rerank: rr})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || !strings.Contains(WindowText(ps[0]), "Hospitals differ") || ps[0].Score != 0.99 {
		t.Errorf("reranked %v, first window %q (score %v), want the Hospitals differ window first at 0.99", hitIDs(ps), WindowText(ps[0]), ps[0].Score)
	}
}

// TestSearchRerankListwise: the chat model's ranking decides the order.
func TestSearchRerankListwise(t *testing.T) {
	ix, _ := newTestIndex(t)
	plain, err := ix.Search(context.Background(), "random effects hospitals", Options{K: 3, Mode: Lexical, Neighbours: -1})
	if err != nil || len(plain) != 3 {
		t.Fatalf("%v, %v", hitIDs(plain), err)
	}
	srv := llmtest.New(llmtest.Reply{Chunks: []string{"[3] > [1] > [2]"}})
	defer srv.Close()
	rr := llm.NewListwiseReranker(llm.NewModel(llm.New(llm.Config{BaseURL: srv.BaseURL()}), "fake-model"))
	ps, err := ix.Search(context.Background(), "random effects hospitals", Options{K: 3, Mode: Lexical, Neighbours: -1, Rerank: rr, RerankDepth: 3})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{plain[2].Segment.ID, plain[0].Segment.ID, plain[1].Segment.ID}
	if got := hitIDs(ps); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("listwise order %v, want %v", got, want)
	}
}
