package rag

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// OllamaURL is where ConnectModel looks for a local Ollama when no base URL
// is configured.
const OllamaURL = "http://127.0.0.1:11434"

// ollamaProbeTimeout bounds the look for a local Ollama: ibid must start at
// once when there is none.
const ollamaProbeTimeout = 300 * time.Millisecond

// ModelConfig says which chat model to use. The zero value means "find a
// local Ollama, else none".
type ModelConfig struct {
	BaseURL    string // OpenAI-compatible API base URL, e.g. https://api.openai.com/v1
	APIKey     string
	Model      string       // model name; "" picks the server's first listed model
	HTTPClient *http.Client // nil uses a client without a global timeout
	NoOllama   bool         // do not look for a local Ollama
}

// Model is a connected OpenAI-compatible chat model. It is safe for
// concurrent use.
type Model struct {
	name   string
	client *openai.Client

	// noSchema is set once the server refused a json_schema response
	// format; later requests ask for json_object at once.
	noSchema atomic.Bool

	// retries and backoff govern retrying 429 and 5xx answers that come
	// before the first token. Attempt i (from 1) waits backoff << (i-1).
	retries int
	backoff time.Duration
}

// Name is the model's name as the server knows it.
func (m *Model) Name() string { return m.name }

// ConnectModel returns a chat model for cfg. With no BaseURL it tries a
// local Ollama at 127.0.0.1:11434 (a quick probe of at most 300 ms; it picks
// cfg.Model or the first model Ollama lists). When nothing answers it
// returns (nil, nil): the caller then uses the extractive answerer.
func ConnectModel(ctx context.Context, cfg ModelConfig) (*Model, error) {
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	if cfg.BaseURL == "" {
		if cfg.NoOllama {
			return nil, nil
		}
		name, ok := probeOllama(ctx, hc, OllamaURL, cfg.Model)
		if !ok {
			return nil, nil
		}
		return newModel(OllamaURL+"/v1", "ollama", name, hc), nil
	}
	name := cfg.Model
	m := newModel(cfg.BaseURL, cfg.APIKey, name, hc)
	if name == "" {
		list, err := m.client.ListModels(ctx)
		if err != nil {
			return nil, fmt.Errorf("couldn't list the models of %s (name one with --model): %w", cfg.BaseURL, err)
		}
		if len(list.Models) == 0 {
			return nil, fmt.Errorf("%s lists no models: name one with --model", cfg.BaseURL)
		}
		m.name = list.Models[0].ID
	}
	return m, nil
}

func newModel(baseURL, key, name string, hc *http.Client) *Model {
	c := openai.DefaultConfig(key)
	c.BaseURL = strings.TrimRight(baseURL, "/")
	// A copy of the caller's client whose transport lets a stream tell a
	// finished answer from a cut connection (see doneTransport).
	wrapped := *hc
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	wrapped.Transport = doneTransport{base}
	c.HTTPClient = &wrapped
	// go-openai counts every line that is not "data:" (keep-alive
	// comments such as ": ping") toward EmptyMessagesLimit between two
	// chunks and fails the stream past it; slow local models send many.
	c.EmptyMessagesLimit = 1 << 30
	return &Model{name: name, client: openai.NewClientWithConfig(c), retries: 4, backoff: 250 * time.Millisecond}
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

// httpStatus returns the HTTP status of a go-openai error, or 0.
func httpStatus(err error) int {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		return apiErr.HTTPStatusCode
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) {
		return reqErr.HTTPStatusCode
	}
	return 0
}

// retryable reports whether a failure before the first token is worth
// another try: rate limits and server errors.
func retryable(status int) bool {
	return status == http.StatusTooManyRequests || status >= 500
}
