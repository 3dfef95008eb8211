package retrieve

import (
	"context"
	"errors"
	"math"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/rag/llm"
	"github.com/ibid-dev/ibid/rag/llmtest"
)

// fastPolicy retries after milliseconds.
var fastPolicy = llm.Policy{Base: time.Millisecond, Max: 4 * time.Millisecond}

// newTestEmbedder returns an embedder of model nomic-embed-text on srv.
func newTestEmbedder(t *testing.T, srv *llmtest.Server, batch, dim int) Embedder {
	t.Helper()
	e, err := NewOpenAIEmbedder(OpenAIEmbedderConfig{
		Server: llm.Config{BaseURL: srv.BaseURL(), APIKey: "sk-test", Policy: fastPolicy},
		Model:  "nomic-embed-text", BatchSize: batch, Dimension: dim})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestOpenAIEmbedderBatches(t *testing.T) {
	srv := llmtest.New()
	defer srv.Close()
	e := newTestEmbedder(t, srv, 2, 0)
	if e.Name() != "openai:nomic-embed-text" {
		t.Errorf("Name = %q", e.Name())
	}
	if d := e.Dimension(); d != 0 || len(srv.Requests()) != 0 {
		t.Errorf("Dimension before any answer = %d after %d requests; want 0 and no request", d, len(srv.Requests()))
	}
	texts := []string{"a", "bb", "ccc", "dddd", "eeeee"}
	vs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || !slices.Equal(reqs[2].Input, []string{"eeeee"}) || reqs[0].Model != "nomic-embed-text" ||
		reqs[0].Authorization != "Bearer sk-test" {
		t.Errorf("requests %+v, want batches of 2 with the key", reqs)
	}
	for i, v := range vs {
		n := float64(len(texts[i]))
		want := []float32{float32(n / math.Sqrt(n*n+1)), float32(1 / math.Sqrt(n*n+1)), 0, 0}
		if len(v) != 4 || math.Abs(float64(v[0]-want[0])) > 1e-6 || math.Abs(float64(v[1]-want[1])) > 1e-6 {
			t.Errorf("vector %d = %v, want %v", i, v, want)
		}
	}
	if d := e.Dimension(); d != 4 || len(srv.Requests()) != 3 {
		t.Errorf("Dimension = %d after %d requests, want 4 learned without a probe", d, len(srv.Requests()))
	}
	// An empty text embeds as zeros (and is sent as a space).
	vs, err = e.Embed(context.Background(), []string{"x", "  "})
	if err != nil || !slices.Equal(vs[1], make([]float32, 4)) || srv.Requests()[3].Input[1] != " " {
		t.Errorf("empty text: %v, %v", vs, err)
	}
}

func TestOpenAIEmbedderDimensionWithoutServer(t *testing.T) {
	srv := llmtest.New()
	defer srv.Close()
	if d := newTestEmbedder(t, srv, 0, 4).Dimension(); d != 4 {
		t.Errorf("given dimension: %d", d)
	}
	e, _ := NewOpenAIEmbedder(OpenAIEmbedderConfig{Server: llm.Config{BaseURL: srv.BaseURL()}, Model: "text-embedding-3-small"})
	if d := e.Dimension(); d != 1536 {
		t.Errorf("text-embedding-3-small: %d", d)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests to learn a dimension that was known", n)
	}
	// A given dimension the server does not keep is an error, not a
	// vector of the wrong length in the library.
	e = newTestEmbedder(t, srv, 0, 3)
	if _, err := e.Embed(context.Background(), []string{"x"}); err == nil || !strings.Contains(err.Error(), "dimension 4, not 3") {
		t.Errorf("err = %v", err)
	}
}

func TestOpenAIEmbedderRetries(t *testing.T) {
	tests := []struct {
		name     string
		fail     []int
		wantErr  string
		requests int
	}{
		{"429 then success", []int{429}, "", 2},
		{"500 then success", []int{500}, "", 2},
		{"502 503 then success", []int{502, 503}, "", 3},
		{"400 is final", []int{400}, "HTTP 400", 1},
		{"401 says what to check", []int{401}, "OPENAI_API_KEY", 1},
		{"always 429", []int{429, 429, 429, 429, 429, 429, 429}, "rate limited, try again in", 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var replies []llmtest.Reply
			for _, s := range tc.fail {
				replies = append(replies, llmtest.Reply{Status: s})
			}
			srv := llmtest.New(append(replies, llmtest.Reply{})...)
			defer srv.Close()
			e := newTestEmbedder(t, srv, 0, 0)
			var waits []llm.Wait
			ctx := llm.WithNotify(context.Background(), func(w llm.Wait) { waits = append(waits, w) })
			vs, err := e.Embed(ctx, []string{"hello", "world!"})
			if (err != nil) != (tc.wantErr != "") || err != nil && !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
			if n := len(srv.Requests()); n != tc.requests || len(waits) != n-1 {
				t.Errorf("%d requests and %d waits, want %d requests", n, len(waits), tc.requests)
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
		srv := llmtest.New(llmtest.Reply{Status: 429})
		defer srv.Close()
		e, _ := NewOpenAIEmbedder(OpenAIEmbedderConfig{Model: "m",
			Server: llm.Config{BaseURL: srv.BaseURL(), Policy: llm.Policy{Base: time.Hour, Max: time.Hour}}})
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		start := time.Now()
		_, err := e.Embed(ctx, []string{"x"})
		if !errors.Is(err, context.Canceled) || time.Since(start) > 10*time.Second {
			t.Errorf("err %v after %v", err, time.Since(start))
		}
	})
	t.Run("during request", func(t *testing.T) {
		srv := llmtest.New(llmtest.Reply{Silent: true})
		defer srv.Close()
		e := newTestEmbedder(t, srv, 0, 0)
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
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	e, _ := NewOpenAIEmbedder(OpenAIEmbedderConfig{Model: "m",
		Server: llm.Config{BaseURL: "http://" + addr + "/v1", Policy: fastPolicy}})
	start := time.Now()
	_, err = e.Embed(context.Background(), []string{"x"})
	if !errors.Is(err, llm.ErrUnreachable) || !strings.Contains(err.Error(), "is the server running?") || time.Since(start) > 5*time.Second {
		t.Errorf("err %v after %v, want a quick, clear error", err, time.Since(start))
	}
	if d := e.Dimension(); d != 0 {
		t.Errorf("Dimension of an unreachable embedder = %d", d)
	}
}
