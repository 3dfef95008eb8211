package llm

import (
	"context"
	"fmt"
	"slices"

	openai "github.com/sashabaranov/go-openai"
)

// Embed asks the server's /embeddings endpoint for the vectors of texts
// with model, in one request, and returns them in the order of texts, as
// the server sent them (not normalised). dimensions, when > 0, asks models
// that can shorten their vectors (OpenAI's text-embedding-3) for that
// length. The request goes through the client's Policy and timeouts.
func (c *Client) Embed(ctx context.Context, model string, texts []string, dimensions int) ([][]float32, error) {
	req := openai.EmbeddingRequestStrings{Input: texts, Model: openai.EmbeddingModel(model),
		EncodingFormat: openai.EmbeddingEncodingFormatFloat, Dimensions: dimensions}
	resp, err := c.oa.CreateEmbeddings(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	if len(resp.Data) != len(texts) {
		return nil, fmt.Errorf("the embeddings endpoint returned %d vectors for %d texts", len(resp.Data), len(texts))
	}
	data := slices.Clone(resp.Data)
	slices.SortStableFunc(data, func(a, b openai.Embedding) int { return a.Index - b.Index })
	out := make([][]float32, len(data))
	for i, d := range data {
		if d.Index != i {
			return nil, fmt.Errorf("the embeddings endpoint returned indexes out of range")
		}
		out[i] = d.Embedding
	}
	return out, nil
}
