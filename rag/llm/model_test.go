package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/rag/llmtest"
)

func TestConnect(t *testing.T) {
	t.Parallel()
	m, err := Connect(context.Background(), ModelConfig{NoOllama: true})
	if m != nil || err != nil {
		t.Errorf("nothing configured: %v, %v; want nil, nil", m, err)
	}
	srv := llmtest.New()
	defer srv.Close()
	m, err = Connect(context.Background(), ModelConfig{Config: Config{BaseURL: srv.BaseURL()}})
	if err != nil || m.Name() != "fake-model" || m.Client().BaseURL() != srv.BaseURL() {
		t.Errorf("first listed model: %v, %v", m, err)
	}
	m, err = Connect(context.Background(), ModelConfig{Config: Config{BaseURL: srv.URL + "/nowhere", Policy: fast}})
	if err == nil || !strings.Contains(err.Error(), "--model") || !strings.Contains(err.Error(), "HTTP 404") {
		t.Errorf("a server without /models and no --model: %v, %v", m, err)
	}
	// A server that is not there is not told to name a model.
	srv.Close()
	m, err = Connect(context.Background(), ModelConfig{Config: Config{BaseURL: srv.BaseURL(), Policy: fast}})
	if !errors.Is(err, ErrUnreachable) || strings.Contains(err.Error(), "--model") {
		t.Errorf("no server: %v, %v", m, err)
	}
}

// localModels serves Ollama's /api/tags (unless openAIOnly) and an
// OpenAI-compatible /v1/models listing names, as the two kinds of local
// server do.
func localModels(t *testing.T, openAIOnly bool, names ...string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var v any
		switch {
		case r.URL.Path == "/api/tags" && !openAIOnly:
			var ms []map[string]string
			for _, n := range names {
				ms = append(ms, map[string]string{"name": n})
			}
			v = map[string]any{"models": ms}
		case r.URL.Path == "/v1/models":
			var ms []map[string]string
			for _, n := range names {
				ms = append(ms, map[string]string{"id": n, "object": "model"})
			}
			v = map[string]any{"object": "list", "data": ms}
		default:
			http.NotFound(w, r)
			return
		}
		json.NewEncoder(w).Encode(v)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestProbeLocal(t *testing.T) {
	t.Parallel()
	hc := &http.Client{}
	ctx := context.Background()

	ollama := localModels(t, false, "llama3.2:latest", "qwen2.5:7b")
	s, ok := probeLocal(ctx, hc, ollama.URL)
	if !ok || s.server != "Ollama" || !s.ollama || strings.Join(s.models, ",") != "llama3.2:latest,qwen2.5:7b" {
		t.Fatalf("Ollama: %+v %v", s, ok)
	}
	for want, got := range map[string]string{"": "llama3.2:latest", "llama3.2": "llama3.2:latest", "qwen2.5:7b": "qwen2.5:7b"} {
		if name, err := s.pick(want); err != nil || name != got {
			t.Errorf("pick(%q) = %q, %v; want %q", want, name, err, got)
		}
	}
	_, err := s.pick("mistral")
	if msg := fmt.Sprint(err); !strings.Contains(msg, `no model "mistral"`) || !strings.Contains(msg, "llama3.2:latest, qwen2.5:7b") ||
		!strings.Contains(msg, "ollama pull") {
		t.Errorf("unknown model on Ollama: %v", err)
	}

	// An OpenAI-compatible server on the port (llama.cpp, LM Studio, …).
	oa := localModels(t, true, "phi-3")
	s, ok = probeLocal(ctx, hc, oa.URL)
	if !ok || s.ollama || s.server != strings.TrimPrefix(oa.URL, "http://") || strings.Join(s.models, ",") != "phi-3" {
		t.Fatalf("OpenAI-compatible: %+v %v", s, ok)
	}
	_, err = s.pick("phi-4")
	if msg := fmt.Sprint(err); !strings.Contains(msg, `no model "phi-4"`) || !strings.Contains(msg, "phi-3") || strings.Contains(msg, "ollama") {
		t.Errorf("unknown model on an OpenAI-compatible server: %v", err)
	}

	// A long list is cut, saying how many more.
	var many []string
	for i := range maxListed + 3 {
		many = append(many, fmt.Sprintf("m%d", i))
	}
	s, _ = probeLocal(ctx, hc, localModels(t, false, many...).URL)
	if _, err := s.pick("x"); !strings.Contains(fmt.Sprint(err), "and 3 more") || strings.Contains(fmt.Sprint(err), many[maxListed]) {
		t.Errorf("long list: %v", err)
	}
	// A server with no model says how to get one.
	s, ok = probeLocal(ctx, hc, localModels(t, false).URL)
	if _, err := s.pick(""); !ok || !strings.Contains(fmt.Sprint(err), "ollama pull") {
		t.Errorf("empty Ollama: %v %v", ok, err)
	}

	// Nothing listening, or neither listing, is no server.
	if _, ok := probeLocal(ctx, hc, "http://"+freeAddr(t)); ok {
		t.Error("nothing listening taken for a server")
	}
	if _, ok := probeLocal(ctx, hc, httptest.NewServer(http.NotFoundHandler()).URL); ok {
		t.Error("a server without a model list taken for one")
	}
	// A server that does not answer in time is none.
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(2 * time.Second):
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	start := time.Now()
	if _, ok := probeLocal(ctx, hc, slow.URL); ok {
		t.Errorf("slow server taken for a local server")
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("probe took %v", d)
	}
}

// TestConnectFindsLocalServer: with no base URL, Connect finds the local
// server by itself, picks --model among what it lists, and its label says
// what was found.
func TestConnectFindsLocalServer(t *testing.T) {
	defer func(u string) { localURL = u }(localURL)
	ctx := context.Background()
	localURL = localModels(t, false, "llama3.2:latest", "qwen2.5:7b").URL
	m, err := Connect(ctx, ModelConfig{})
	if err != nil || m.Label() != "Ollama · llama3.2:latest" || m.Client().BaseURL() != localURL+"/v1" {
		t.Fatalf("found Ollama: %v, %v", m, err)
	}
	if m, err := Connect(ctx, ModelConfig{Model: "qwen2.5:7b"}); err != nil || m.Name() != "qwen2.5:7b" {
		t.Errorf("--model among the listed: %v, %v", m, err)
	}
	if m, err := Connect(ctx, ModelConfig{Model: "mistral"}); m != nil || !strings.Contains(fmt.Sprint(err), "it has llama3.2:latest, qwen2.5:7b") {
		t.Errorf("unknown --model: %v, %v", m, err)
	}
	if m, err := Connect(ctx, ModelConfig{NoOllama: true}); m != nil || err != nil {
		t.Errorf("IBID_NO_OLLAMA: %v, %v", m, err)
	}
	localURL = localModels(t, true, "phi-3").URL
	if m, err := Connect(ctx, ModelConfig{}); err != nil || m.Label() != strings.TrimPrefix(localURL, "http://")+" · phi-3" {
		t.Errorf("found an OpenAI-compatible server: %v, %v", m, err)
	}
}

func TestModelLabel(t *testing.T) {
	t.Parallel()
	c := New(Config{})
	if l := NewModel(c, "gpt-4o").Label(); l != "gpt-4o" {
		t.Errorf("a named server's model: %q", l)
	}
	m := NewModel(c, "llama3.2")
	m.found = "Ollama"
	if l := m.Label(); l != "Ollama · llama3.2" {
		t.Errorf("a found Ollama's model: %q", l)
	}
}

func TestFormatFallsBackWhenSchemaRefused(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(llmtest.Reply{RefuseSchema: true, Chunks: []string{`{"a":`, `1}`}})
	defer srv.Close()
	m := modelOn(srv, Config{Policy: fast})
	f := &Format{Name: "thing", Schema: json.RawMessage(`{"type":"object"}`)}
	var b strings.Builder
	if err := m.Stream(context.Background(), []Message{{Role: RoleUser, Content: "q"}}, f, func(s string) { b.WriteString(s) }); err != nil {
		t.Fatal(err)
	}
	if b.String() != `{"a":1}` {
		t.Errorf("got %q", b.String())
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].ResponseFormat.Type != "json_schema" || reqs[1].ResponseFormat.Type != "json_object" {
		t.Fatalf("formats asked: %+v", reqs)
	}
	// The refusal is remembered: the next answer asks for json_object at once.
	if err := m.Stream(context.Background(), []Message{{Role: RoleUser, Content: "q"}}, f, func(string) {}); err != nil {
		t.Fatal(err)
	}
	if reqs = srv.Requests(); len(reqs) != 3 || reqs[2].ResponseFormat.Type != "json_object" {
		t.Errorf("third request asked %+v", reqs[len(reqs)-1].ResponseFormat)
	}
	// Without a format no response format is sent.
	if err := m.Stream(context.Background(), []Message{{Role: RoleUser, Content: "q"}}, nil, func(string) {}); err != nil {
		t.Fatal(err)
	}
	if reqs = srv.Requests(); reqs[3].ResponseFormat != nil {
		t.Errorf("free text asked for %+v", reqs[3].ResponseFormat)
	}
}

func TestStreamSurvivesManyKeepAlives(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(llmtest.Reply{Chunks: []string{"Bees ", "[source_1]."}, Pings: 400})
	defer srv.Close()
	got, err := ask(context.Background(), modelOn(srv, Config{}))
	if err != nil || got != "Bees [source_1]." {
		t.Errorf("got %q, %v", got, err)
	}
}
