package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/rag/llmtest"
)

func TestCompleteTextAndUsage(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(llmtest.Reply{Chunks: []string{"a short ", "context"},
		Usage: &llmtest.Usage{Prompt: 1200, Completion: 9, Cached: 1000}})
	defer srv.Close()
	m := modelOn(srv, Config{Policy: fast})
	msgs := []Message{{Role: RoleSystem, Content: "be brief"}, {Role: RoleUser, Content: "situate this"}}
	c, err := m.Complete(context.Background(), msgs, 120)
	if err != nil {
		t.Fatal(err)
	}
	want := Completion{Text: "a short context", InputTokens: 1200, OutputTokens: 9, CachedTokens: 1000}
	if c != want {
		t.Errorf("Complete = %+v, want %+v", c, want)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	r := reqs[0]
	got := r.Chat()
	if !r.Stream || r.StreamOptions == nil || !r.StreamOptions.IncludeUsage || r.MaxTokens != 120 || r.MaxCompletionTokens != 0 || r.Model != "fake-model" ||
		len(got) != 2 || got[0] != (llmtest.Message{Role: "system", Content: "be brief"}) ||
		got[1] != (llmtest.Message{Role: "user", Content: "situate this"}) {
		t.Errorf("request = %+v, messages %+v", r, got)
	}
}

func TestCompleteWithoutUsage(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(llmtest.Reply{Chunks: []string{"text"}})
	defer srv.Close()
	c, err := modelOn(srv, Config{Policy: fast}).Complete(context.Background(), []Message{{Role: RoleUser, Content: "q"}}, 0)
	if err != nil || c != (Completion{Text: "text"}) {
		t.Errorf("Complete = %+v, %v; want the text and zero usage", c, err)
	}
	if r := srv.Requests()[0]; r.MaxTokens != 0 || r.MaxCompletionTokens != 0 {
		t.Errorf("maxTokens 0 sent a bound: %+v", r)
	}
}

func TestCompleteReasoningModelBound(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(llmtest.Reply{Chunks: []string{"ok"}})
	defer srv.Close()
	m := NewModel(New(Config{BaseURL: srv.BaseURL(), Policy: fast}), "o3-mini")
	if _, err := m.Complete(context.Background(), []Message{{Role: RoleUser, Content: "q"}}, 50); err != nil {
		t.Fatal(err)
	}
	if r := srv.Requests()[0]; r.MaxTokens != 0 || r.MaxCompletionTokens != 50 {
		t.Errorf("a reasoning model got max_tokens %d, max_completion_tokens %d; want 0, 50", r.MaxTokens, r.MaxCompletionTokens)
	}
}

func TestCompleteRetriesThroughPolicy(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(llmtest.Reply{Status: 500}, llmtest.Reply{Status: 429}, llmtest.Reply{Chunks: []string{"fine"}})
	defer srv.Close()
	var w waits
	c, err := modelOn(srv, Config{Policy: fast}).Complete(w.ctx(), []Message{{Role: RoleUser, Content: "q"}}, 0)
	if err != nil || c.Text != "fine" {
		t.Fatalf("Complete = %+v, %v", c, err)
	}
	if n := len(srv.Requests()); n != 3 || len(w.all()) != 2 {
		t.Errorf("%d requests and %d waits, want 3 and 2", n, len(w.all()))
	}

	srv.SetReplies(llmtest.Reply{Status: 500})
	_, err = modelOn(srv, Config{Policy: Policy{Retries: 2, Base: time.Millisecond, Max: time.Millisecond}}).
		Complete(context.Background(), []Message{{Role: RoleUser, Content: "q"}}, 0)
	if Status(err) != 500 || !strings.Contains(err.Error(), "after 3 tries") {
		t.Errorf("500 past the policy: %v", err)
	}
}

// An answer whose stream breaks off before its end is sent again.
func TestCompleteBrokenBodyRetried(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"who"}}]}`+"\n\n")
		if n.Add(1) == 1 {
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler) // the connection is cut mid-answer
		}
		io.WriteString(w, `data: {"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"le"},"finish_reason":"stop"}]}`+"\n\n")
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	defer srv.Close()
	m := NewModel(New(Config{BaseURL: srv.URL + "/v1", Policy: fast}), "m")
	c, err := m.Complete(context.Background(), []Message{{Role: RoleUser, Content: "q"}}, 0)
	if err != nil || c.Text != "whole" || n.Load() != 2 {
		t.Errorf("Complete = %+v, %v after %d requests; want the whole answer after 2", c, err, n.Load())
	}
}

func TestCompleteNoChoices(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"id":"x","object":"chat.completion.chunk","choices":[]}`+"\n\n")
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	defer srv.Close()
	m := NewModel(New(Config{BaseURL: srv.URL + "/v1", Policy: fast}), "m")
	if _, err := m.Complete(context.Background(), []Message{{Role: RoleUser, Content: "q"}}, 0); err == nil || !strings.Contains(err.Error(), "no choices") {
		t.Errorf("no choices: %v", err)
	}
}

func TestCompleteCancel(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(llmtest.Reply{Chunks: []string{"late"}})
	defer srv.Close()
	srv.SetLatency(10 * time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := modelOn(srv, Config{Policy: fast}).Complete(ctx, []Message{{Role: RoleUser, Content: "q"}}, 0)
	if !errors.Is(err, context.Canceled) || time.Since(start) > 2*time.Second {
		t.Errorf("cancelled: %v after %v", err, time.Since(start))
	}
}

// A server that ignores max_tokens and a model that loops: the answer is
// cut at a sentence's end within AnswerBound, Complete stops reading and
// closes the stream (the server sees the client go), long before the
// 200,000 lines the model would write.
func TestCompleteBoundsRunawayAnswer(t *testing.T) {
	t.Parallel()
	lines := make([]string, 200_000)
	for i := range lines {
		lines[i] = fmt.Sprintf("Line %d of an answer that never ends. ", i)
	}
	srv := llmtest.New(llmtest.Reply{Chunks: lines, Usage: &llmtest.Usage{Prompt: 10, Completion: 1e6}})
	defer srv.Close()
	var wrote atomic.Int64
	srv.Wrote = func(int) { wrote.Add(1) }
	start := time.Now()
	c, err := modelOn(srv, Config{Policy: fast}).Complete(context.Background(), []Message{{Role: RoleUser, Content: "summarise"}}, 150)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Truncated || len(c.Text) > AnswerBound(150) || len(c.Text) < AnswerBound(150)/2 || !strings.HasSuffix(c.Text, "never ends.") {
		t.Fatalf("Complete = %d bytes, truncated %v, ending %q", len(c.Text), c.Truncated, c.Text[max(0, len(c.Text)-20):])
	}
	if c.InputTokens != 0 || c.OutputTokens != 0 {
		t.Errorf("a cut answer claims the usage of the whole: %+v", c)
	}
	select {
	case <-srv.Gone:
	case <-time.After(10 * time.Second):
		t.Fatal("the server never saw the client go: the stream was not closed")
	}
	if n := wrote.Load(); n > 10_000 {
		t.Errorf("the server wrote %d of 200,000 lines before the client went", n)
	}
	t.Logf("cut after %v; the server wrote %d lines", time.Since(start), wrote.Load())
}

// One piece of 5.4 MB in a single line is not read whole: reading stops at
// the raw bound, and what came before is the answer.
func TestCompleteBoundsOneHugePiece(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(llmtest.Reply{Chunks: []string{"A first sentence. ", strings.Repeat("x", 5_400_000)}})
	defer srv.Close()
	c, err := modelOn(srv, Config{Policy: fast}).Complete(context.Background(), []Message{{Role: RoleUser, Content: "q"}}, 150)
	if err != nil || !c.Truncated || c.Text != "A first sentence." {
		t.Fatalf("Complete = %q (truncated %v), %v", c.Text, c.Truncated, err)
	}
}

// A server that refuses stream_options is asked again without, and not
// asked with it again.
func TestCompleteStreamOptionsRefused(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(llmtest.Reply{Chunks: []string{"fine"}, RefuseStreamOptions: true})
	defer srv.Close()
	m := modelOn(srv, Config{Policy: fast})
	for range 2 {
		if c, err := m.Complete(context.Background(), []Message{{Role: RoleUser, Content: "q"}}, 10); err != nil || c.Text != "fine" {
			t.Fatalf("Complete = %+v, %v", c, err)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || reqs[0].StreamOptions == nil || reqs[1].StreamOptions != nil || reqs[2].StreamOptions != nil {
		t.Fatalf("%d requests; stream_options sent: %v", len(reqs), func() (out []bool) {
			for _, r := range reqs {
				out = append(out, r.StreamOptions != nil)
			}
			return out
		}())
	}
}
