package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"sync"
)

// Reranker scores documents against a query with a cross-encoder behind a
// rerank endpoint. It speaks the formats in use:
//
//   - Cohere, Jina, vLLM, llama.cpp and Infinity: POST {model, query,
//     documents, top_n} to /v1/rerank or /rerank, answered by
//     {results: [{index, relevance_score, document?}]};
//   - Hugging Face TEI: POST {query, texts, truncate} to /rerank, answered
//     by [{index, score}].
//
// The client's base URL usually ends in /v1: Rerank tries {base}/rerank,
// then, on 404, the other of {root}/rerank and {base}/v1/rerank; a server
// that rejects the first body (HTTP 400 or 422) is asked again with TEI's.
// What worked is remembered for later calls. Requests go through the
// client's Policy and timeouts. It is safe for concurrent use.
type Reranker struct {
	c     *Client
	model string

	mu   sync.Mutex
	url  string // the endpoint that answered, "" until one did
	body int    // the body format that it took
}

// Body formats of a rerank request.
const (
	bodyCohere = iota
	bodyTEI
)

// NewReranker returns the reranker called model on c's server. It makes no
// request.
func NewReranker(c *Client, model string) *Reranker { return &Reranker{c: c, model: model} }

// maxRerankBody bounds how much of a rerank answer is read.
const maxRerankBody = 16 << 20

// Rerank returns one score per doc, in the order of docs, higher being
// better (the server's relevance scores, comparable within the call). A
// doc the server did not score (its answer lists fewer results) gets NaN.
// An answer that names an index twice or one out of range is an error: it
// is not an answer to this request. Every error names the URL.
func (r *Reranker) Rerank(ctx context.Context, query string, docs []string) ([]float64, error) {
	if len(docs) == 0 {
		return nil, nil
	}
	r.mu.Lock()
	url, body := r.url, r.body
	r.mu.Unlock()
	if url != "" {
		return r.send(ctx, url, body, query, docs)
	}
	var tried []string
	var last error
	for _, url := range r.endpoints() {
		scores, err := r.send(ctx, url, bodyCohere, query, docs)
		if st := Status(err); st == http.StatusBadRequest || st == http.StatusUnprocessableEntity {
			var teiErr error
			if scores, teiErr = r.send(ctx, url, bodyTEI, query, docs); teiErr == nil {
				r.remember(url, bodyTEI)
				return scores, nil
			}
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("%w (and with TEI's request body: %w)", err, teiErr)
		}
		if err == nil {
			r.remember(url, bodyCohere)
			return scores, nil
		}
		if Status(err) != http.StatusNotFound {
			return nil, err
		}
		tried, last = append(tried, url), err
	}
	return nil, fmt.Errorf("no rerank endpoint: %s answered HTTP 404 (a rerank server is TEI, Infinity, vLLM, llama.cpp with --reranking, Cohere or Jina); last: %w",
		strings.Join(tried, " and "), last)
}

// endpoints are the URLs to try, in order: {base}/rerank, then {root}/rerank
// when the base ends in /v1, else {base}/v1/rerank.
func (r *Reranker) endpoints() []string {
	base := strings.TrimRight(r.c.base, "/")
	if root, ok := strings.CutSuffix(base, "/v1"); ok {
		return []string{base + "/rerank", root + "/rerank"}
	}
	return []string{base + "/rerank", base + "/v1/rerank"}
}

func (r *Reranker) remember(url string, body int) {
	r.mu.Lock()
	r.url, r.body = url, body
	r.mu.Unlock()
}

// send asks url once (under the client's Policy) in the body format and
// maps the answer back to docs.
func (r *Reranker) send(ctx context.Context, url string, format int, query string, docs []string) ([]float64, error) {
	var payload any
	switch format {
	case bodyTEI:
		payload = struct {
			Query    string   `json:"query"`
			Texts    []string `json:"texts"`
			Truncate bool     `json:"truncate"`
		}{query, docs, true}
	default:
		payload = struct {
			Model     string   `json:"model,omitempty"`
			Query     string   `json:"query"`
			Documents []string `json:"documents"`
			TopN      int      `json:"top_n"`
		}{r.model, query, docs, len(docs)}
	}
	data, err := json.Marshal(payload)
	if err != nil {
		return nil, fmt.Errorf("couldn't encode the rerank request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("rerank at %s: %w", url, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if r.c.key != "" {
		req.Header.Set("Authorization", "Bearer "+r.c.key)
	}
	resp, err := r.c.d.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("rerank at %s: %w", url, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxRerankBody))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("rerank at %s: couldn't read the answer: %w", url, err)
	}
	scores, err := parseRerank(raw, len(docs))
	if err != nil {
		return nil, fmt.Errorf("rerank at %s (HTTP %d): %w", url, resp.StatusCode, err)
	}
	return scores, nil
}

// rerankResult is one scored document of any of the answer formats.
type rerankResult struct {
	Index          *int     `json:"index"`
	RelevanceScore *float64 `json:"relevance_score"` // Cohere, Jina, vLLM, llama.cpp, Infinity
	Score          *float64 `json:"score"`           // TEI
}

// parseRerank maps a rerank answer (an object with results, or TEI's bare
// list) back to n documents; unscored ones get NaN.
func parseRerank(raw []byte, n int) ([]float64, error) {
	raw = bytes.TrimSpace(raw)
	var results []rerankResult
	switch {
	case len(raw) > 0 && raw[0] == '[':
		if err := json.Unmarshal(raw, &results); err != nil {
			return nil, fmt.Errorf("the answer is not a list of scores: %w", err)
		}
	case len(raw) > 0 && raw[0] == '{':
		var obj struct {
			Results *[]rerankResult `json:"results"`
		}
		if err := json.Unmarshal(raw, &obj); err != nil {
			return nil, fmt.Errorf("the answer is not rerank results: %w", err)
		}
		if obj.Results == nil {
			return nil, fmt.Errorf("the answer has no results: %q", oneLine(string(raw), 200))
		}
		results = *obj.Results
	default:
		return nil, fmt.Errorf("the answer is not a JSON object or list: %q", oneLine(string(raw), 200))
	}
	scores := make([]float64, n)
	for i := range scores {
		scores[i] = math.NaN()
	}
	seen := make([]bool, n)
	for _, res := range results {
		if res.Index == nil {
			return nil, errors.New("a result has no index")
		}
		i := *res.Index
		if i < 0 || i >= n {
			return nil, fmt.Errorf("a result names document %d of %d sent", i, n)
		}
		if seen[i] {
			return nil, fmt.Errorf("document %d is scored twice", i)
		}
		seen[i] = true
		switch {
		case res.RelevanceScore != nil:
			scores[i] = *res.RelevanceScore
		case res.Score != nil:
			scores[i] = *res.Score
		}
	}
	return scores, nil
}
