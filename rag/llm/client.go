// Package llm is ibid's one client for OpenAI-compatible servers (OpenAI,
// Ollama, llama.cpp, vLLM, LM Studio, …): streaming chat, embeddings and the
// model list, built on github.com/sashabaranov/go-openai, with room for
// reranking.
//
// Every request goes through one retry Policy and two timeouts, whatever
// the endpoint: see Policy for what is retried and how long it waits, and
// Config for the first-byte and idle timeouts. A face learns of each retry
// wait through WithNotify, and every error says what happened and what to
// do (StatusError, ConnectError, TimeoutError).
package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Config says where a server is and how patiently to talk to it.
type Config struct {
	BaseURL    string       // API base URL, e.g. https://api.openai.com/v1; empty: OpenAI's
	APIKey     string       // sent as a bearer token
	HTTPClient *http.Client // nil: a client without a global timeout
	Policy     Policy       // retries; the zero value takes the defaults
	// FirstByteTimeout bounds the wait for the response headers of each
	// attempt; IdleTimeout bounds each wait for more of the body (a
	// keep-alive line counts as news). 0 takes the default, a negative
	// value means none.
	FirstByteTimeout time.Duration
	IdleTimeout      time.Duration
	// Setting names what the user set to choose BaseURL ("--base-url",
	// "OPENAI_BASE_URL"), so that a ConnectError's advice names only that;
	// "" when ibid chose the server itself (a local Ollama found by
	// Connect) or the origin is unknown.
	Setting string
}

// Timeout defaults: long enough for a local model to read a long prompt on
// a CPU, short enough that a server that accepts and never answers does
// not hang a question.
const (
	DefaultFirstByteTimeout = 2 * time.Minute
	DefaultIdleTimeout      = 2 * time.Minute
)

// Client talks to one OpenAI-compatible server. It is safe for concurrent
// use.
type Client struct {
	base string
	key  string // the API key, for the requests go-openai does not make (rerank)
	oa   *openai.Client
	d    *doer
}

// New returns a client for cfg. It makes no request.
func New(cfg Config) *Client {
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	d := &doer{hc: hc, policy: cfg.Policy.withDefaults(),
		firstByte: timeout(cfg.FirstByteTimeout, DefaultFirstByteTimeout),
		idle:      timeout(cfg.IdleTimeout, DefaultIdleTimeout)}
	c := openai.DefaultConfig(cfg.APIKey)
	if cfg.BaseURL != "" {
		c.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	}
	c.HTTPClient = d
	// go-openai counts every line that is not "data:" (keep-alive
	// comments such as ": ping") toward EmptyMessagesLimit between two
	// chunks and fails the stream past it; slow local models send many.
	c.EmptyMessagesLimit = 1 << 30
	d.base, d.setting = c.BaseURL, cfg.Setting
	return &Client{base: c.BaseURL, key: cfg.APIKey, oa: openai.NewClientWithConfig(c), d: d}
}

func timeout(v, def time.Duration) time.Duration {
	switch {
	case v < 0:
		return 0
	case v == 0:
		return def
	}
	return v
}

// BaseURL is the API base URL the client talks to.
func (c *Client) BaseURL() string { return c.base }

// Models lists the server's models, in the server's order.
func (c *Client) Models(ctx context.Context) ([]string, error) {
	list, err := c.oa.ListModels(ctx)
	if errors.Is(err, ErrUnreachable) {
		return nil, err // it names the server already
	}
	if err != nil {
		return nil, fmt.Errorf("couldn't list the models of %s: %w", c.base, err)
	}
	out := make([]string, len(list.Models))
	for i, m := range list.Models {
		out[i] = m.ID
	}
	return out, nil
}
