package llm

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestConnectChecksNamedModel: with --base-url and --model, Connect asks
// the server's model list once and refuses a name it does not list, naming
// what it has; a server without a list, or that cannot answer, is accepted.
func TestConnectChecksNamedModel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	connect := func(base, model string) (*Model, error) {
		return Connect(ctx, ModelConfig{Config: Config{BaseURL: base, Policy: fast}, Model: model})
	}

	// an OpenAI-compatible server (localModels also serves Ollama's tags;
	// the OpenAI list at <base>/v1/models is what a /v1 base URL asks)
	oa := localModels(t, true, "gpt-a", "gpt-b", "gpt-c")
	if m, err := connect(oa.URL+"/v1", "gpt-b"); err != nil || m.Name() != "gpt-b" {
		t.Errorf("a listed model: %v, %v", m, err)
	}
	m, err := connect(oa.URL+"/v1", "x")
	want := `model "x" is not served at ` + oa.URL + `/v1; it has: gpt-a, gpt-b, gpt-c (choose one with --model)`
	if m != nil || err == nil || err.Error() != want {
		t.Errorf("an unlisted model:\n got %v, %v\nwant %s", m, err, want)
	}

	// Ollama, through its OpenAI-compatible /v1: "llama3.2" names
	// "llama3.2:latest"
	ol := localModels(t, false, "llama3.2:latest", "qwen2.5:7b")
	if m, err := connect(ol.URL+"/v1", "llama3.2"); err != nil || m.Name() != "llama3.2" {
		t.Errorf("Ollama's :latest: %v, %v", m, err)
	}
	if _, err := connect(ol.URL+"/v1", "mistral"); err == nil || !strings.Contains(err.Error(), "it has: llama3.2:latest, qwen2.5:7b") {
		t.Errorf("unknown on Ollama: %v", err)
	}

	// a server whose /v1/models is not found but which is an Ollama:
	// its /api/tags decides
	tagsOnly := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/tags" {
			w.Write([]byte(`{"models":[{"name":"phi3:mini"}]}`))
			return
		}
		http.NotFound(w, r)
	}))
	defer tagsOnly.Close()
	if _, err := connect(tagsOnly.URL+"/v1", "phi3:mini"); err != nil {
		t.Errorf("listed in /api/tags: %v", err)
	}
	if _, err := connect(tagsOnly.URL+"/v1", "llama"); err == nil || !strings.Contains(err.Error(), "it has: phi3:mini") {
		t.Errorf("not in /api/tags: %v", err)
	}

	// no model list at all (404): accepted, as before the check
	var asked atomic.Int32
	noList := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		http.NotFound(w, r)
	}))
	defer noList.Close()
	if m, err := connect(noList.URL+"/v1", "anything"); err != nil || m.Name() != "anything" {
		t.Errorf("a server without a model list: %v, %v", m, err)
	}
	if asked.Load() == 0 {
		t.Error("the server was never asked for its models")
	}

	// a server failing (500), once, without retries: accepted
	var fails atomic.Int32
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fails.Add(1)
		http.Error(w, "boom", http.StatusInternalServerError)
	}))
	defer failing.Close()
	if _, err := connect(failing.URL+"/v1", "m"); err != nil {
		t.Errorf("a failing model list: %v", err)
	}
	if n := fails.Load(); n != 1 {
		t.Errorf("the check asked %d times; want once, no retries", n)
	}

	// nothing listening: accepted (the first question says so)
	failing.Close()
	if _, err := connect(failing.URL+"/v1", "m"); err != nil {
		t.Errorf("an unreachable server: %v", err)
	}
}
