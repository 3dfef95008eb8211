package rag

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/rag/llmtest"
)

func TestConnectModel(t *testing.T) {
	m, err := ConnectModel(context.Background(), ModelConfig{NoOllama: true})
	if m != nil || err != nil {
		t.Errorf("nothing configured: %v, %v; want nil, nil", m, err)
	}
	srv := llmtest.New()
	defer srv.Close()
	m, err = ConnectModel(context.Background(), ModelConfig{BaseURL: srv.BaseURL()})
	if err != nil || m.Name() != "fake-model" {
		t.Errorf("first listed model: %v, %v", m, err)
	}
	m, err = ConnectModel(context.Background(), ModelConfig{BaseURL: srv.URL + "/nowhere"})
	if err == nil {
		t.Errorf("a server without /models and no --model: %v", m)
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
