package llm

import (
	"context"
	"errors"

	openai "github.com/sashabaranov/go-openai"
)

// Completion is a whole (non-streamed) answer and what it cost.
//
// The token counts are the server's `usage`; a server that sends none
// leaves them 0 (the caller estimates). CachedTokens is the part of
// InputTokens the server read from its prompt cache
// (`prompt_tokens_details.cached_tokens`), 0 when it does not say.
type Completion struct {
	Text                                    string
	InputTokens, OutputTokens, CachedTokens int
}

// Complete sends msgs to the model and returns its whole answer, without
// streaming. maxTokens, when > 0, bounds the answer's length (sent as
// max_tokens, or as max_completion_tokens to the reasoning models that
// refuse max_tokens).
//
// The request goes through the client's Policy and timeouts (see Policy);
// an answer whose body breaks off after the headers is sent again under
// the same retry budget. Cancelling ctx ends the request at once and
// returns ctx's error. An answer without choices is an error; an empty
// answer is not (the caller judges the text).
func (m *Model) Complete(ctx context.Context, msgs []Message, maxTokens int) (Completion, error) {
	req := openai.ChatCompletionRequest{Model: m.name, Messages: make([]openai.ChatCompletionMessage, len(msgs))}
	for i, msg := range msgs {
		req.Messages[i] = openai.ChatCompletionMessage{Role: msg.Role, Content: msg.Content}
	}
	if maxTokens > 0 {
		// max_tokens is what local servers (Ollama, llama.cpp, vLLM) and
		// older OpenAI-compatible APIs read; OpenAI's reasoning models
		// refuse it and take max_completion_tokens.
		req.MaxTokens = maxTokens //lint:ignore SA1019 the servers ibid talks to read max_tokens
		if openai.NewReasoningValidator().Validate(req) != nil {
			req.MaxTokens, req.MaxCompletionTokens = 0, maxTokens //lint:ignore SA1019 see above
		}
	}
	p := m.c.d.policy
	for broken := 0; ; broken++ {
		resp, err := m.c.oa.CreateChatCompletion(ctx, req)
		if ctx.Err() != nil {
			return Completion{}, ctx.Err()
		}
		if err == nil {
			return completion(resp)
		}
		if !brokenBody(err) || broken >= p.Retries {
			return Completion{}, err
		}
		w := Wait{Attempt: broken + 1, Delay: p.Backoff(broken, m.c.d.rnd), Err: err}
		notify(ctx, w)
		if err := sleep(ctx, w.Delay); err != nil {
			return Completion{}, err
		}
	}
}

// completion reads an answer.
func completion(resp openai.ChatCompletionResponse) (Completion, error) {
	if len(resp.Choices) == 0 {
		return Completion{}, errors.New("the model's answer holds no choices")
	}
	c := Completion{Text: resp.Choices[0].Message.Content,
		InputTokens: resp.Usage.PromptTokens, OutputTokens: resp.Usage.CompletionTokens}
	if d := resp.Usage.PromptTokensDetails; d != nil {
		c.CachedTokens = d.CachedTokens
	}
	// A server's odd accounting is kept within sense, never an error.
	c.InputTokens, c.OutputTokens = max(0, c.InputTokens), max(0, c.OutputTokens)
	c.CachedTokens = min(max(0, c.CachedTokens), c.InputTokens)
	return c, nil
}

// brokenBody reports whether err is an answer that broke off after its
// headers (the transport retries only what fails before them): not a
// status, a timeout or a connection the transport already gave up on.
func brokenBody(err error) bool {
	var se *StatusError
	var te *TimeoutError
	var ce *ConnectError
	if errors.As(err, &se) || errors.As(err, &te) || errors.As(err, &ce) {
		return false
	}
	return classify(err) == connBroken
}
