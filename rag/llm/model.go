package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"
)

// OllamaURL is where Connect looks for a local Ollama when no base URL is
// configured.
const OllamaURL = "http://127.0.0.1:11434"

// ollamaProbeTimeout bounds the look for a local Ollama: ibid must start at
// once when there is none.
const ollamaProbeTimeout = 300 * time.Millisecond

// ModelConfig says which chat model to use. The zero value means "find a
// local Ollama, else none".
type ModelConfig struct {
	Config          // the server; an empty BaseURL looks for a local Ollama
	Model    string // model name; "" picks the server's first listed model
	NoOllama bool   // do not look for a local Ollama
}

// Model is a chat model on a server. It is safe for concurrent use.
type Model struct {
	name string
	c    *Client

	// noSchema is set once the server refused a json_schema response
	// format; later requests ask for json_object at once.
	noSchema atomic.Bool
}

// Name is the model's name as the server knows it.
func (m *Model) Name() string { return m.name }

// Client is the client the model talks through.
func (m *Model) Client() *Client { return m.c }

// NewModel returns the chat model called name on c's server. It makes no
// request.
func NewModel(c *Client, name string) *Model { return &Model{name: name, c: c} }

// Connect returns a chat model for cfg. With no BaseURL it tries a local
// Ollama at 127.0.0.1:11434 (a quick probe of at most 300 ms; it picks
// cfg.Model or the first model Ollama lists). When nothing answers it
// returns (nil, nil): the caller then answers without a model. With a
// BaseURL and no Model it asks the server for its first listed model.
func Connect(ctx context.Context, cfg ModelConfig) (*Model, error) {
	if cfg.BaseURL == "" {
		if cfg.NoOllama {
			return nil, nil
		}
		hc := cfg.HTTPClient
		if hc == nil {
			hc = &http.Client{}
		}
		name, ok := probeOllama(ctx, hc, OllamaURL, cfg.Model)
		if !ok {
			return nil, nil
		}
		c := cfg.Config
		c.BaseURL, c.APIKey = OllamaURL+"/v1", "ollama"
		return NewModel(New(c), name), nil
	}
	m := NewModel(New(cfg.Config), cfg.Model)
	if m.name == "" {
		list, err := m.c.Models(ctx)
		if err != nil && Status(err) != 0 {
			return nil, fmt.Errorf("%w (or name a model with --model)", err) // a server without a model list
		}
		if err != nil {
			return nil, err
		}
		if len(list) == 0 {
			return nil, fmt.Errorf("%s lists no models: name one with --model", cfg.BaseURL)
		}
		m.name = list[0]
	}
	return m, nil
}

// probeOllama asks a local Ollama for its models, within a short timeout.
// It returns the model to use: want when set (Ollama answers for any model
// it has), else the first listed.
func probeOllama(ctx context.Context, hc *http.Client, base, want string) (string, bool) {
	ctx, cancel := context.WithTimeout(ctx, ollamaProbeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/tags", nil)
	if err != nil {
		return "", false
	}
	resp, err := hc.Do(req)
	if err != nil {
		return "", false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", false
	}
	var tags struct {
		Models []struct {
			Name string `json:"name"`
		} `json:"models"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tags); err != nil {
		return "", false
	}
	if want != "" {
		return want, true
	}
	if len(tags.Models) == 0 {
		return "", false
	}
	return tags.Models[0].Name, true
}
