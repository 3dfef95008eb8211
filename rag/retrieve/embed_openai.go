package retrieve

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/ibid-dev/ibid/rag/llm"
)

// OpenAIEmbedderConfig configures an OpenAI-compatible embeddings endpoint.
type OpenAIEmbedderConfig struct {
	// Server is where the endpoint is and how patiently to talk to it
	// (retries, timeouts); an empty BaseURL means OpenAI's.
	Server llm.Config
	// Client, when set, is used instead of Server (to share one client
	// with the chat model).
	Client    *llm.Client
	Model     string // required
	BatchSize int    // texts per request; default 64
	// Dimension is the vectors' length when the caller knows it (a
	// library records it); 0: learned from the first answer, or known
	// for OpenAI's own models.
	Dimension int
}

// DefaultEmbedBatch is the default number of texts per embeddings request.
const DefaultEmbedBatch = 64

// knownDimensions are the vector lengths of OpenAI's embedding models, so
// that Dimension need not ask the server.
var knownDimensions = map[string]int{
	"text-embedding-3-small": 1536,
	"text-embedding-3-large": 3072,
	"text-embedding-ada-002": 1536,
}

// NewOpenAIEmbedder returns an embedder that calls an OpenAI-compatible
// /embeddings endpoint through the llm client: texts in batches of
// BatchSize, each request under the client's one retry policy and timeouts
// (see llm.Policy). Its Name is "openai:" + Model. Returned vectors are
// normalised.
func NewOpenAIEmbedder(cfg OpenAIEmbedderConfig) (Embedder, error) {
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, errors.New("an embedding model name is required (--embed-model or IBID_EMBED_MODEL)")
	}
	c := cfg.Client
	if c == nil {
		c = llm.New(cfg.Server)
	}
	batch := cfg.BatchSize
	if batch <= 0 {
		batch = DefaultEmbedBatch
	}
	dim := cfg.Dimension
	if dim <= 0 {
		dim = knownDimensions[cfg.Model]
	}
	return &openAIEmbedder{client: c, model: cfg.Model, batch: batch, dim: dim}, nil
}

// openAIEmbedder is an Embedder over an OpenAI-compatible endpoint.
//
// Invariant: once dim is set (> 0), every vector returned has that length;
// an answer of another length is an error.
type openAIEmbedder struct {
	client *llm.Client
	model  string
	batch  int

	mu  sync.Mutex
	dim int
}

func (e *openAIEmbedder) Name() string { return "openai:" + e.model }

// Dimension is the vectors' length: given, known for the model, or learned
// from the first answer; 0 while unknown. It never asks the server (a
// caller that must know embeds a text, with its own context).
func (e *openAIEmbedder) Dimension() int {
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
	vs, err := e.client.Embed(ctx, e.model, in, 0)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("couldn't embed with %s: %w", e.model, ctx.Err())
		}
		return nil, fmt.Errorf("couldn't embed with %s: %w", e.model, err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([][]float32, len(vs))
	for i, v := range vs {
		if len(v) == 0 {
			return nil, fmt.Errorf("the embeddings endpoint returned an empty vector for %s", e.model)
		}
		if e.dim == 0 {
			e.dim = len(v)
		}
		if len(v) != e.dim {
			return nil, fmt.Errorf("the embeddings endpoint returned a vector of dimension %d, not %d, for %s", len(v), e.dim, e.model)
		}
		if strings.TrimSpace(texts[i]) == "" {
			out[i] = make([]float32, e.dim)
			continue
		}
		out[i] = normalise(v)
	}
	return out, nil
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
	n := float32(1 / math.Sqrt(sum))
	for i, x := range v {
		out[i] = x * n
	}
	return out
}
