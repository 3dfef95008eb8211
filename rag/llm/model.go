package llm

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"
)

// OllamaURL is where Connect looks for a local Ollama when no base URL is
// configured.
const OllamaURL = "http://127.0.0.1:11434"

// localURL is where Connect looks (OllamaURL; tests point it at a fake).
var localURL = OllamaURL

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
	// found is what Connect found by itself ("Ollama", or the address of
	// another OpenAI-compatible server); "" for a server the user named.
	found string

	// noSchema is set once the server refused a json_schema response
	// format; later requests ask for json_object at once.
	noSchema atomic.Bool
	// noUsage is set once the server refused stream_options (asking for
	// the usage of a streamed answer); later requests do without.
	noUsage atomic.Bool
}

// Name is the model's name as the server knows it.
func (m *Model) Name() string { return m.name }

// Label says which model answers, for a status line: "Ollama · llama3.2"
// for a server Connect found by itself, the name alone for one the user
// named.
func (m *Model) Label() string {
	if m.found == "" {
		return m.name
	}
	return m.found + " · " + m.name
}

// Client is the client the model talks through.
func (m *Model) Client() *Client { return m.c }

// NewModel returns the chat model called name on c's server. It makes no
// request.
func NewModel(c *Client, name string) *Model { return &Model{name: name, c: c} }

// Connect returns a chat model for cfg. With no BaseURL it looks for a
// local server at 127.0.0.1:11434 (once, at most 300 ms): Ollama's
// /api/tags, else an OpenAI-compatible /v1/models. It picks cfg.Model
// among the models listed (an unknown name is an error that lists some of
// them) or the first listed. When nothing answers it returns (nil, nil):
// the caller then answers without a model. With a BaseURL and no Model it
// asks the server for its first listed model; with both it checks, once
// and briefly (see checkServed), that the server lists the model, and
// refuses a name it does not list with the names it does.
func Connect(ctx context.Context, cfg ModelConfig) (*Model, error) {
	if cfg.BaseURL == "" {
		if cfg.NoOllama {
			return nil, nil
		}
		hc := cfg.HTTPClient
		if hc == nil {
			hc = &http.Client{}
		}
		local, ok := probeLocal(ctx, hc, localURL)
		if !ok {
			return nil, nil
		}
		name, err := local.pick(cfg.Model)
		if err != nil {
			return nil, err
		}
		c := cfg.Config
		c.BaseURL, c.APIKey, c.Setting = localURL+"/v1", "ollama", ""
		m := NewModel(New(c), name)
		m.found = local.server
		return m, nil
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
		return m, nil
	}
	if err := checkServed(ctx, cfg.Config, cfg.Model); err != nil {
		return nil, err
	}
	return m, nil
}
