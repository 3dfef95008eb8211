package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// relevance is the fakes' cross-encoder: how many of the query's words
// the document holds, plus a little for shorter documents.
func relevance(query, doc string) float64 {
	n := 0.0
	for _, w := range strings.Fields(strings.ToLower(query)) {
		if strings.Contains(strings.ToLower(doc), w) {
			n++
		}
	}
	return n + 1/float64(1+len(doc))
}

// rankedBy returns the indices of docs, best first (as rerank servers
// list their results).
func rankedBy(query string, docs []string) []int {
	idx := make([]int, len(docs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		ra, rb := relevance(query, docs[a]), relevance(query, docs[b])
		switch {
		case ra > rb:
			return -1
		case ra < rb:
			return 1
		}
		return 0
	})
	return idx
}

// rerankFake is a rerank server: one format at some paths; 404 elsewhere.
type rerankFake struct {
	*httptest.Server
	mu   sync.Mutex
	hits []string // "METHOD path" of every request
	auth []string
	// answer overrides the format's answer when set.
	answer func(w http.ResponseWriter, body map[string]any) bool
}

// cohereBody is the request of Cohere, Jina, vLLM, llama.cpp, Infinity.
type cohereBody struct {
	Model     string   `json:"model"`
	Query     string   `json:"query"`
	Documents []string `json:"documents"`
	TopN      int      `json:"top_n"`
}

// newRerankFake serves format ("cohere", "infinity" or "tei") at paths.
func newRerankFake(t *testing.T, format string, paths ...string) *rerankFake {
	f := &rerankFake{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.hits = append(f.hits, r.Method+" "+r.URL.Path)
		f.auth = append(f.auth, r.Header.Get("Authorization"))
		f.mu.Unlock()
		if r.Method != http.MethodPost || !slices.Contains(paths, r.URL.Path) {
			http.Error(w, `{"error":"Not Found"}`, http.StatusNotFound)
			return
		}
		data, _ := io.ReadAll(r.Body)
		var generic map[string]any
		if err := json.Unmarshal(data, &generic); err != nil {
			http.Error(w, `{"error":"bad json"}`, http.StatusBadRequest)
			return
		}
		if f.answer != nil && f.answer(w, generic) {
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch format {
		case "tei":
			var b struct {
				Query string   `json:"query"`
				Texts []string `json:"texts"`
			}
			if json.Unmarshal(data, &b) != nil || b.Texts == nil {
				w.WriteHeader(http.StatusUnprocessableEntity)
				io.WriteString(w, `Failed to deserialize the JSON body into the target type: missing field "texts" at line 1 column 80`)
				return
			}
			var out []map[string]any
			for _, i := range rankedBy(b.Query, b.Texts) {
				out = append(out, map[string]any{"index": i, "score": relevance(b.Query, b.Texts[i])})
			}
			json.NewEncoder(w).Encode(out)
		default:
			var b cohereBody
			if json.Unmarshal(data, &b) != nil || b.Documents == nil {
				w.WriteHeader(http.StatusBadRequest)
				io.WriteString(w, `{"error":{"message":"documents is required"}}`)
				return
			}
			var results []map[string]any
			for _, i := range rankedBy(b.Query, b.Documents) {
				if b.TopN > 0 && len(results) == b.TopN {
					break
				}
				res := map[string]any{"index": i, "relevance_score": relevance(b.Query, b.Documents[i])}
				if format == "infinity" {
					res["document"] = b.Documents[i]
				} else {
					res["document"] = map[string]string{"text": b.Documents[i]}
				}
				results = append(results, res)
			}
			json.NewEncoder(w).Encode(map[string]any{"model": b.Model, "results": results, "usage": map[string]int{"total_tokens": 1}})
		}
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *rerankFake) requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.hits)
}

func testClient(base string) *Client {
	return New(Config{BaseURL: base, APIKey: "sk-test", Policy: Policy{Base: time.Millisecond, Max: 2 * time.Millisecond}})
}

var rerankDocs = []string{
	"Bananas are yellow and grow in bunches.",
	"The mitochondria is the powerhouse of the cell.",
	"Cells divide by mitosis; mitochondria divide on their own.",
}

// checkScores: scores match relevance doc by doc (mapped back by index),
// NaN where want is NaN.
func checkScores(t *testing.T, got []float64, query string, unscored ...int) {
	t.Helper()
	if len(got) != len(rerankDocs) {
		t.Fatalf("%d scores for %d docs", len(got), len(rerankDocs))
	}
	for i, s := range got {
		if slices.Contains(unscored, i) {
			if !math.IsNaN(s) {
				t.Errorf("doc %d scored %v, want NaN (not returned)", i, s)
			}
			continue
		}
		if want := relevance(query, rerankDocs[i]); s != want {
			t.Errorf("doc %d scored %v, want %v", i, s, want)
		}
	}
}

func TestRerankFormats(t *testing.T) {
	t.Parallel()
	const query = "mitochondria cell"
	tests := []struct {
		name, format string
		paths        []string
		base         string // appended to the server's URL
		want         []string
	}{
		{"cohere /v1/rerank", "cohere", []string{"/v1/rerank"}, "/v1", []string{"POST /v1/rerank"}},
		{"llama.cpp /rerank, base /v1", "cohere", []string{"/rerank"}, "/v1", []string{"POST /v1/rerank", "POST /rerank"}},
		{"vLLM /v1/rerank, base without /v1", "cohere", []string{"/v1/rerank"}, "", []string{"POST /rerank", "POST /v1/rerank"}},
		{"infinity /rerank", "infinity", []string{"/rerank"}, "", []string{"POST /rerank"}},
		{"TEI /rerank, base /v1", "tei", []string{"/rerank"}, "/v1", []string{"POST /v1/rerank", "POST /rerank", "POST /rerank"}},
		{"TEI /rerank, base root", "tei", []string{"/rerank"}, "", []string{"POST /rerank", "POST /rerank"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newRerankFake(t, tc.format, tc.paths...)
			r := NewReranker(testClient(f.URL+tc.base), "bge-reranker")
			got, err := r.Rerank(context.Background(), query, rerankDocs)
			if err != nil {
				t.Fatal(err)
			}
			checkScores(t, got, query)
			if !slices.Equal(f.requests(), tc.want) {
				t.Errorf("requests %v, want %v", f.requests(), tc.want)
			}
			// What worked is remembered: one request next time.
			if _, err := r.Rerank(context.Background(), query, rerankDocs); err != nil {
				t.Fatal(err)
			}
			if reqs := f.requests(); len(reqs) != len(tc.want)+1 || reqs[len(reqs)-1] != tc.want[len(tc.want)-1] {
				t.Errorf("second call: requests %v", reqs)
			}
			for _, a := range f.auth {
				if a != "Bearer sk-test" {
					t.Errorf("Authorization %q", a)
				}
			}
		})
	}
}

func TestRerankRequestBody(t *testing.T) {
	t.Parallel()
	f := newRerankFake(t, "cohere", "/v1/rerank")
	var got cohereBody
	f.answer = func(w http.ResponseWriter, body map[string]any) bool {
		b, _ := json.Marshal(body)
		json.Unmarshal(b, &got)
		return false
	}
	if _, err := NewReranker(testClient(f.URL+"/v1"), "jina-reranker-v2").Rerank(context.Background(), "q", rerankDocs); err != nil {
		t.Fatal(err)
	}
	if got.Model != "jina-reranker-v2" || got.Query != "q" || !slices.Equal(got.Documents, rerankDocs) || got.TopN != len(rerankDocs) {
		t.Errorf("request body %+v", got)
	}
}

// TestRerankPartialAnswers: results out of order, a server that returns
// fewer than asked (top_n smaller than docs), null scores.
func TestRerankPartialAnswers(t *testing.T) {
	t.Parallel()
	const query = "mitochondria cell"
	f := newRerankFake(t, "cohere", "/v1/rerank")
	answers := map[string]string{
		"top 1":        `{"results":[{"index":1,"relevance_score":%[1]v}]}`,
		"out of order": `{"results":[{"index":2,"relevance_score":%[3]v},{"index":1,"relevance_score":%[1]v}]}`,
		"null score":   `{"results":[{"index":1,"relevance_score":%[1]v},{"index":0,"relevance_score":null}]}`,
	}
	unscored := map[string][]int{"top 1": {0, 2}, "out of order": {0}, "null score": {0, 2}}
	for name, a := range answers {
		t.Run(name, func(t *testing.T) {
			f.answer = func(w http.ResponseWriter, _ map[string]any) bool {
				fmt.Fprintf(w, a, relevance(query, rerankDocs[1]), relevance(query, rerankDocs[0]), relevance(query, rerankDocs[2]))
				return true
			}
			got, err := NewReranker(testClient(f.URL+"/v1"), "m").Rerank(context.Background(), query, rerankDocs)
			if err != nil {
				t.Fatal(err)
			}
			checkScores(t, got, query, unscored[name]...)
		})
	}
}

func TestRerankErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		status int
		body   string
		want   []string // in the error
	}{
		{"server error", 500, `{"error":{"message":"CUDA out of memory"}}`, []string{"/v1/rerank", "HTTP 500", "CUDA out of memory"}},
		{"not JSON", 200, `<html>proxy login</html>`, []string{"/v1/rerank", "HTTP 200", "not a JSON object or list", "proxy login"}},
		{"no results", 200, `{"object":"error"}`, []string{"/v1/rerank", "no results"}},
		{"duplicate index", 200, `{"results":[{"index":0,"relevance_score":1},{"index":0,"relevance_score":2}]}`, []string{"/v1/rerank", "scored twice"}},
		{"index out of range", 200, `{"results":[{"index":3,"relevance_score":1}]}`, []string{"/v1/rerank", "document 3 of 3"}},
		{"no index", 200, `[{"score":1}]`, []string{"no index"}},
		{"both bodies refused", 422, `{"error":"unprocessable"}`, []string{"/v1/rerank", "HTTP 422", "TEI"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newRerankFake(t, "cohere", "/v1/rerank")
			f.answer = func(w http.ResponseWriter, _ map[string]any) bool {
				w.WriteHeader(tc.status)
				io.WriteString(w, tc.body)
				return true
			}
			_, err := NewReranker(testClient(f.URL+"/v1"), "m").Rerank(context.Background(), "q", rerankDocs)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if tc.status == 500 && len(f.requests()) != DefaultRetries+1 {
				t.Errorf("500 sent %d times, want the policy's %d", len(f.requests()), DefaultRetries+1)
			}
		})
	}
	// Nothing at either path.
	f := newRerankFake(t, "cohere")
	_, err := NewReranker(testClient(f.URL+"/v1"), "m").Rerank(context.Background(), "q", rerankDocs)
	if err == nil || Status(err) != http.StatusNotFound || !strings.Contains(err.Error(), f.URL+"/v1/rerank and "+f.URL+"/rerank") {
		t.Errorf("no endpoint: %v", err)
	}
}

// TestRerankRetries: a busy server is asked again under the client's
// Policy, and an empty list asks nothing.
func TestRerankRetries(t *testing.T) {
	t.Parallel()
	f := newRerankFake(t, "cohere", "/v1/rerank")
	busy := 1
	f.answer = func(w http.ResponseWriter, _ map[string]any) bool {
		if busy > 0 {
			busy--
			w.WriteHeader(http.StatusServiceUnavailable)
			return true
		}
		return false
	}
	r := NewReranker(testClient(f.URL+"/v1"), "m")
	got, err := r.Rerank(context.Background(), "mitochondria cell", rerankDocs)
	if err != nil {
		t.Fatal(err)
	}
	checkScores(t, got, "mitochondria cell")
	if n := len(f.requests()); n != 2 {
		t.Errorf("%d requests, want 2 (one retry)", n)
	}
	if got, err := r.Rerank(context.Background(), "q", nil); err != nil || got != nil || len(f.requests()) != 2 {
		t.Errorf("no docs: %v, %v, %d requests", got, err, len(f.requests()))
	}
}
