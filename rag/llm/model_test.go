package llm

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/rag/llmtest"
)

func TestConnect(t *testing.T) {
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

func TestProbeOllama(t *testing.T) {
	ollama := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/tags" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`{"models":[{"name":"llama3.2:3b"},{"name":"qwen"}]}`))
	}))
	defer ollama.Close()
	hc := &http.Client{}
	if name, ok := probeOllama(context.Background(), hc, ollama.URL, ""); !ok || name != "llama3.2:3b" {
		t.Errorf("probe: %q %v", name, ok)
	}
	if name, ok := probeOllama(context.Background(), hc, ollama.URL, "qwen"); !ok || name != "qwen" {
		t.Errorf("probe with a model: %q %v", name, ok)
	}
	// A server that does not answer in time is no Ollama.
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(2 * time.Second):
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	start := time.Now()
	if _, ok := probeOllama(context.Background(), hc, slow.URL, ""); ok {
		t.Errorf("slow server taken for Ollama")
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("probe took %v", d)
	}
}

func TestFormatFallsBackWhenSchemaRefused(t *testing.T) {
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
	srv := llmtest.New(llmtest.Reply{Chunks: []string{"Bees ", "[source_1]."}, Pings: 400})
	defer srv.Close()
	got, err := ask(context.Background(), modelOn(srv, Config{}))
	if err != nil || got != "Bees [source_1]." {
		t.Errorf("got %q, %v", got, err)
	}
}
