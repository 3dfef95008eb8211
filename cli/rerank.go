package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ibid-dev/ibid/rag/llm"
	"github.com/ibid-dev/ibid/rag/retrieve"
)

// newReranker is the reranker --rerank names: nil for none, the chat
// model ranking candidates itself for "llm", else a rerank model at the
// configured server (Cohere, Jina, TEI, Infinity, llama.cpp and vLLM
// formats, found by trying).
func newReranker(ctx context.Context, cfg *Config) (retrieve.Reranker, error) {
	name := strings.TrimSpace(cfg.Rerank)
	switch {
	case name == "":
		return nil, nil
	case strings.EqualFold(name, "llm"):
		m, err := llm.Connect(ctx, modelConfig(cfg))
		switch {
		case err != nil:
			return nil, fmt.Errorf("--rerank llm asks the chat model to rank passages, and none answered: %w", err)
		case m == nil:
			return nil, errors.New("--rerank llm asks the chat model to rank passages, and none is configured: set --base-url (or OPENAI_BASE_URL) and --model, or run Ollama locally")
		}
		return llm.NewListwiseReranker(m), nil
	case cfg.BaseURL == "":
		return nil, fmt.Errorf("--rerank %s: a rerank model is served by an OpenAI-compatible server; set its address with --base-url (or OPENAI_BASE_URL), or use --rerank llm to let the chat model rank", name)
	}
	return llm.NewReranker(llm.New(serverConfig(cfg)), name), nil
}
