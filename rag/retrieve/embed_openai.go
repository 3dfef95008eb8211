package retrieve

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// OpenAIEmbedderConfig configures an OpenAI-compatible embeddings endpoint.
type OpenAIEmbedderConfig struct {
	BaseURL   string // e.g. http://localhost:11434/v1; empty: OpenAI's
	APIKey    string
	Model     string // required
	BatchSize int    // texts per request; default 64
	// HTTPClient is used for the requests; nil: a client with a 2-minute
	// timeout.
	HTTPClient *http.Client
}

// DefaultEmbedBatch is the default number of texts per embeddings request.
const DefaultEmbedBatch = 64

// NewOpenAIEmbedder returns an embedder that calls an OpenAI-compatible
// /embeddings endpoint through go-openai: texts in batches of BatchSize,
// each request retried with exponential backoff (0.5 s, 1 s, 2 s, ... up to
// 6 tries) on 429 and 5xx answers and on network errors other than a
// refused connection, never past the context. Its Name is "openai:" + Model; its Dimension is learned from the
// first answer (Dimension probes the endpoint once if asked before).
// Returned vectors are normalised.
func NewOpenAIEmbedder(cfg OpenAIEmbedderConfig) (Embedder, error) {
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, errors.New("an embedding model name is required")
	}
	c := openai.DefaultConfig(cfg.APIKey)
	if cfg.BaseURL != "" {
		c.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 2 * time.Minute}
	}
	c.HTTPClient = hc
	batch := cfg.BatchSize
	if batch <= 0 {
		batch = DefaultEmbedBatch
	}
	return &openAIEmbedder{client: openai.NewClientWithConfig(c), model: cfg.Model, batch: batch,
		backoff: 500 * time.Millisecond, tries: 6}, nil
}

// openAIEmbedder is an Embedder over an OpenAI-compatible endpoint.
//
// Invariant: once dim is set (> 0), every vector returned has that length;
// an answer of another length is an error.
type openAIEmbedder struct {
	client  *openai.Client
	model   string
	batch   int
	backoff time.Duration // first retry delay, doubled each time
	tries   int

	mu  sync.Mutex
	dim int
}

func (e *openAIEmbedder) Name() string { return "openai:" + e.model }

// Dimension is the vectors' length: learned from the first answer, or by
// embedding one short text now (0 if the endpoint cannot be reached).
func (e *openAIEmbedder) Dimension() int {
	e.mu.Lock()
	d := e.dim
	e.mu.Unlock()
	if d > 0 {
		return d
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := e.Embed(ctx, []string{"dimension probe"}); err != nil {
		return 0
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.dim
}

func (e *openAIEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for lo := 0; lo < len(texts); lo += e.batch {
		vs, err := e.embedBatch(ctx, texts[lo:min(lo+e.batch, len(texts))])
		if err != nil {
			return nil, err
		}
		out = append(out, vs...)
	}
	return out, nil
}

func (e *openAIEmbedder) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	// Some servers refuse empty inputs; an empty text embeds as zeros.
	in := make([]string, len(texts))
	for i, t := range texts {
		if strings.TrimSpace(t) == "" {
			t = " "
		}
		in[i] = t
	}
	req := openai.EmbeddingRequestStrings{Input: in, Model: openai.EmbeddingModel(e.model),
		EncodingFormat: openai.EmbeddingEncodingFormatFloat}
	delay := e.backoff
	var resp openai.EmbeddingResponse
	var err error
	for try := 1; ; try++ {
		resp, err = e.client.CreateEmbeddings(ctx, req)
		if err == nil || try >= e.tries || !retryable(err) || ctx.Err() != nil {
			break
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("couldn't embed with %s: %w", e.model, ctx.Err())
		case <-t.C:
		}
		delay *= 2
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("couldn't embed with %s: %w", e.model, ctx.Err())
		}
		return nil, fmt.Errorf("couldn't embed with %s: %w", e.model, err)
	}
	if len(resp.Data) != len(texts) {
		return nil, fmt.Errorf("embeddings endpoint returned %d vectors for %d texts", len(resp.Data), len(texts))
	}
	data := slices.Clone(resp.Data)
	slices.SortStableFunc(data, func(a, b openai.Embedding) int { return a.Index - b.Index })
	out := make([][]float32, len(data))
	e.mu.Lock()
	defer e.mu.Unlock()
	for i, d := range data {
		if d.Index != i {
			return nil, fmt.Errorf("embeddings endpoint returned indexes out of range")
		}
		if len(d.Embedding) == 0 {
			return nil, fmt.Errorf("embeddings endpoint returned an empty vector")
		}
		if e.dim == 0 {
			e.dim = len(d.Embedding)
		}
		if len(d.Embedding) != e.dim {
			return nil, fmt.Errorf("embeddings endpoint returned a vector of dimension %d, not %d", len(d.Embedding), e.dim)
		}
		v := normalise(d.Embedding)
		if strings.TrimSpace(texts[i]) == "" {
			v = make([]float32, e.dim)
		}
		out[i] = v
	}
	return out, nil
}

// retryable reports whether an embeddings error is worth another try: rate
// limits, server errors, and failures to reach the server at all.
func retryable(err error) bool {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		return apiErr.HTTPStatusCode == http.StatusTooManyRequests || apiErr.HTTPStatusCode >= 500
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) {
		return reqErr.HTTPStatusCode == http.StatusTooManyRequests || reqErr.HTTPStatusCode >= 500 || reqErr.HTTPStatusCode == 0
	}
	// Nothing listening: no use waiting for it.
	if errors.Is(err, syscall.ECONNREFUSED) {
		return false
	}
	return !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// normalise returns v scaled to unit length (a copy; zeros stay zeros).
func normalise(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	out := make([]float32, len(v))
	if sum == 0 {
		return out
	}
	n := float32(1 / sqrt(sum))
	for i, x := range v {
		out[i] = x * n
	}
	return out
}

func sqrt(x float64) float64 { return math.Sqrt(x) }
