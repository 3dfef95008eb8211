package retrieve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

const localGolden = "8:-0.0400 15:0.0400 22:-0.0458"

// fingerprint names a vector's first three non-zero entries.
func fingerprint(v []float32) string {
	var parts []string
	for i, x := range v {
		if x != 0 && len(parts) < 3 {
			parts = append(parts, fmt.Sprintf("%d:%.4f", i, x))
		}
	}
	return strings.Join(parts, " ")
}

func cosine(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestLocalEmbedder(t *testing.T) {
	e := NewLocalEmbedder()
	if e.Name() != "local-hash-v1/384" || e.Dimension() != 384 {
		t.Fatalf("Name %q, Dimension %d", e.Name(), e.Dimension())
	}
	texts := []string{
		"Machine learning for protein structure prediction.",
		"機械学習によるタンパク質構造予測",
		"机器学习的方法",
		"机器学习方法研究",
		"今天天气很好",
		"",
	}
	a, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewLocalEmbedder().Embed(context.Background(), slices.Clone(texts))
	for i := range texts {
		if len(a[i]) != e.Dimension() {
			t.Fatalf("vector %d has length %d", i, len(a[i]))
		}
		if !slices.Equal(a[i], b[i]) {
			t.Errorf("text %d: not deterministic", i)
		}
		norm := math.Sqrt(cosine(a[i], a[i]))
		if texts[i] == "" {
			if norm != 0 {
				t.Errorf("empty text: norm %v, want 0", norm)
			}
		} else if math.Abs(norm-1) > 1e-5 {
			t.Errorf("text %d: norm %v", i, norm)
		}
	}
	// Fixed values guard against a hash that changes between runs or
	// versions (libraries store these vectors).
	if got := fingerprint(a[0]); got != localGolden {
		t.Errorf("vector 0 starts %s, want %s: the local embedder changed; rename it (local-hash-v2) so old libraries are refused", got, localGolden)
	}
	if sim, other := cosine(a[2], a[3]), cosine(a[2], a[4]); sim < 0.3 || sim <= other+0.2 {
		t.Errorf("Chinese: similar texts %.3f, unrelated %.3f", sim, other)
	}
	// Partial words match: "structural" shares trigrams with "structure".
	c, _ := e.Embed(context.Background(), []string{"structural predictions", "weather today"})
	if cosine(a[0], c[0]) <= cosine(a[0], c[1]) {
		t.Errorf("related English %.3f not above unrelated %.3f", cosine(a[0], c[0]), cosine(a[0], c[1]))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Embed(ctx, texts); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Embed: %v", err)
	}
}

// fakeEmbeddings is an httptest server speaking OpenAI's /v1/embeddings:
// each text's vector is [len(text), 1, 0] (normalised by the client). It
// fails the first requests with the given statuses.
type fakeEmbeddings struct {
	mu       sync.Mutex
	fail     []int // statuses to answer first, in order
	requests [][]string
	block    chan struct{} // if set, requests wait for it (or the client to go)
}

func (f *fakeEmbeddings) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	if r.Header.Get("Authorization") != "Bearer sk-test" {
		http.Error(w, `{"error":{"message":"bad key","type":"invalid_request_error"}}`, http.StatusUnauthorized)
		return
	}
	var req struct {
		Input          []string `json:"input"`
		Model          string   `json:"model"`
		EncodingFormat string   `json:"encoding_format"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != "nomic-embed-text" {
		http.Error(w, `{"error":{"message":"bad request","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	if f.block != nil {
		select {
		case <-f.block:
		case <-r.Context().Done():
			return
		}
	}
	f.mu.Lock()
	f.requests = append(f.requests, req.Input)
	var status int
	if len(f.fail) > 0 {
		status, f.fail = f.fail[0], f.fail[1:]
	}
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if status != 0 {
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":{"message":"status %d","type":"server_error","code":null}}`, status)
		return
	}
	type datum struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	resp := struct {
		Object string  `json:"object"`
		Data   []datum `json:"data"`
		Model  string  `json:"model"`
		Usage  struct {
			PromptTokens int `json:"prompt_tokens"`
			TotalTokens  int `json:"total_tokens"`
		} `json:"usage"`
	}{Object: "list", Model: req.Model}
	// Answer in reverse order: the client must sort by index.
	for i := len(req.Input) - 1; i >= 0; i-- {
		resp.Data = append(resp.Data, datum{"embedding", i, []float32{float32(len(req.Input[i])), 1, 0}})
	}
	json.NewEncoder(w).Encode(resp)
}

func newFakeEmbedder(t *testing.T, f *fakeEmbeddings, batch int) *openAIEmbedder {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	e, err := NewOpenAIEmbedder(OpenAIEmbedderConfig{BaseURL: srv.URL + "/v1", APIKey: "sk-test", Model: "nomic-embed-text", BatchSize: batch})
	if err != nil {
		t.Fatal(err)
	}
	oe := e.(*openAIEmbedder)
	oe.backoff = time.Millisecond
	return oe
}

func TestOpenAIEmbedderBatches(t *testing.T) {
	f := &fakeEmbeddings{}
	e := newFakeEmbedder(t, f, 2)
	if e.Name() != "openai:nomic-embed-text" {
		t.Errorf("Name = %q", e.Name())
	}
	texts := []string{"a", "bb", "ccc", "dddd", "eeeee"}
	vs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.requests) != 3 || !slices.Equal(f.requests[2], []string{"eeeee"}) {
		t.Errorf("requests %q, want batches of 2", f.requests)
	}
	for i, v := range vs {
		n := float64(len(texts[i]))
		want := []float32{float32(n / math.Sqrt(n*n+1)), float32(1 / math.Sqrt(n*n+1)), 0}
		if len(v) != 3 || math.Abs(float64(v[0]-want[0])) > 1e-6 || math.Abs(float64(v[1]-want[1])) > 1e-6 {
			t.Errorf("vector %d = %v, want %v", i, v, want)
		}
	}
	if d := e.Dimension(); d != 3 || len(f.requests) != 3 {
		t.Errorf("Dimension = %d after %d requests, want 3 learned without a probe", d, len(f.requests))
	}
}

func TestOpenAIEmbedderProbesDimension(t *testing.T) {
	f := &fakeEmbeddings{}
	e := newFakeEmbedder(t, f, 0)
	if d := e.Dimension(); d != 3 || len(f.requests) != 1 {
		t.Errorf("Dimension = %d after %d requests", d, len(f.requests))
	}
	e.Dimension()
	if len(f.requests) != 1 {
		t.Errorf("probed again: %d requests", len(f.requests))
	}
}

func TestOpenAIEmbedderRetries(t *testing.T) {
	tests := []struct {
		name     string
		fail     []int
		wantErr  bool
		requests int
	}{
		{"429 then success", []int{429}, false, 2},
		{"500 then success", []int{500}, false, 2},
		{"502 503 then success", []int{502, 503}, false, 3},
		{"400 is final", []int{400}, true, 1},
		{"always 429", []int{429, 429, 429, 429, 429, 429, 429}, true, 6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeEmbeddings{fail: tc.fail}
			e := newFakeEmbedder(t, f, 0)
			vs, err := e.Embed(context.Background(), []string{"hello", "world!"})
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if len(f.requests) != tc.requests {
				t.Errorf("%d requests, want %d", len(f.requests), tc.requests)
			}
			if err == nil && len(vs) != 2 {
				t.Errorf("%d vectors", len(vs))
			}
			if err != nil && !strings.Contains(err.Error(), "nomic-embed-text") {
				t.Errorf("error does not name the model: %v", err)
			}
		})
	}
}

func TestOpenAIEmbedderCancel(t *testing.T) {
	t.Run("during backoff", func(t *testing.T) {
		f := &fakeEmbeddings{fail: []int{429, 429, 429, 429, 429, 429}}
		e := newFakeEmbedder(t, f, 0)
		e.backoff = time.Hour
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		start := time.Now()
		_, err := e.Embed(ctx, []string{"x"})
		if !errors.Is(err, context.Canceled) || time.Since(start) > 10*time.Second {
			t.Errorf("err %v after %v", err, time.Since(start))
		}
	})
	t.Run("during request", func(t *testing.T) {
		f := &fakeEmbeddings{block: make(chan struct{})}
		defer close(f.block)
		e := newFakeEmbedder(t, f, 0)
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		if _, err := e.Embed(ctx, []string{"x"}); !errors.Is(err, context.Canceled) {
			t.Errorf("err %v", err)
		}
	})
}

func TestOpenAIEmbedderNeedsModel(t *testing.T) {
	if _, err := NewOpenAIEmbedder(OpenAIEmbedderConfig{}); err == nil {
		t.Error("no error without a model")
	}
}

func TestOpenAIEmbedderRefused(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there now
	e, _ := NewOpenAIEmbedder(OpenAIEmbedderConfig{BaseURL: url + "/v1", Model: "m"})
	start := time.Now()
	if _, err := e.Embed(context.Background(), []string{"x"}); err == nil || time.Since(start) > 5*time.Second {
		t.Errorf("err %v after %v, want a quick error", err, time.Since(start))
	}
	if d := e.Dimension(); d != 0 {
		t.Errorf("Dimension of an unreachable embedder = %d", d)
	}
}
