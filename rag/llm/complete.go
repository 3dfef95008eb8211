package llm

import (
	"context"
	"errors"
	"net/http"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// Completion is a whole answer and what it cost.
//
// The token counts are the server's `usage`; a server that sends none
// leaves them 0 (the caller estimates). CachedTokens is the part of
// InputTokens the server read from its prompt cache
// (`prompt_tokens_details.cached_tokens`), 0 when it does not say.
// Truncated says the answer ran past its bound (AnswerBound) and Text was
// cut at a sentence's end (CutAnswer); its usage is then unknown.
type Completion struct {
	Text                                    string
	InputTokens, OutputTokens, CachedTokens int
	Truncated                               bool
}

// Complete sends msgs to the model and returns its whole answer. maxTokens,
// when > 0, bounds the answer's length (sent as max_tokens, or as
// max_completion_tokens to the reasoning models that refuse max_tokens).
//
// The answer is streamed, and never longer than AnswerBound(maxTokens)
// bytes: past that, Complete stops reading, closes the stream (the server
// stops writing) and returns the text cut at a sentence's end, with
// Truncated set. The usage is asked for in the stream (stream_options;
// a server that refuses that is asked again without it, and later calls
// do without).
//
// The request goes through the client's Policy and timeouts (see Policy);
// an answer whose stream breaks off before its end is sent again under the
// same retry budget. Cancelling ctx ends the request at once and returns
// ctx's error. An answer without choices is an error; an empty answer is
// not (the caller judges the text).
func (m *Model) Complete(ctx context.Context, msgs []Message, maxTokens int) (Completion, error) {
	req := openai.ChatCompletionRequest{Model: m.name, Stream: true, Messages: make([]openai.ChatCompletionMessage, len(msgs))}
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
	if !m.noUsage.Load() {
		req.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	}
	bound := AnswerBound(maxTokens)
	p := m.c.d.policy
	for broken := 0; ; {
		c, err := m.completeOnce(ctx, req, bound)
		if ctx.Err() != nil {
			return Completion{}, ctx.Err()
		}
		if err == nil {
			return c, nil
		}
		if Status(err) == http.StatusBadRequest && req.StreamOptions != nil {
			m.noUsage.Store(true)
			req.StreamOptions = nil
			continue
		}
		if !errors.Is(err, ErrStreamCut) || broken >= p.Retries {
			return Completion{}, err
		}
		w := Wait{Attempt: broken + 1, Delay: p.Backoff(broken, m.c.d.rnd), Err: err}
		broken++
		notify(ctx, w)
		if err := sleep(ctx, w.Delay); err != nil {
			return Completion{}, err
		}
	}
}

// completeOnce reads one streamed answer, at most bound bytes of it.
func (m *Model) completeOnce(ctx context.Context, req openai.ChatCompletionRequest, bound int) (Completion, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // closes the stream past the bound: the server stops
	done := new(doneFlag)
	stream, err := m.c.oa.CreateChatCompletionStream(withBodyLimit(withDoneFlag(ctx, done), rawBound(bound)), req)
	if err != nil {
		return Completion{}, err
	}
	defer stream.Close()
	var (
		c       Completion
		text    strings.Builder
		choices bool
	)
	err = recvStream(ctx, stream, done, func(resp openai.ChatCompletionStreamResponse) bool {
		if u := resp.Usage; u != nil {
			c.InputTokens, c.OutputTokens = u.PromptTokens, u.CompletionTokens
			if d := u.PromptTokensDetails; d != nil {
				c.CachedTokens = d.CachedTokens
			}
		}
		for _, ch := range resp.Choices {
			if ch.Index == 0 {
				choices = true
				text.WriteString(ch.Delta.Content)
			}
		}
		return text.Len() <= bound
	})
	switch {
	case errors.Is(err, errAnswerTooLong):
		c.Truncated = true
	case err != nil:
		return Completion{}, err
	}
	if !choices {
		return Completion{}, errors.New("the model's answer holds no choices")
	}
	c.Text = text.String()
	if len(c.Text) > 0 && (c.Truncated || len(c.Text) > bound) {
		// Broken off somewhere: what is kept ends where a sentence does.
		c.Text, c.Truncated = CutAnswer(c.Text, min(bound, len(c.Text)-1)), true
		c.InputTokens, c.OutputTokens, c.CachedTokens = 0, 0, 0 // the usage of the whole never came
	}
	// A server's odd accounting is kept within sense, never an error.
	c.InputTokens, c.OutputTokens = max(0, c.InputTokens), max(0, c.OutputTokens)
	c.CachedTokens = min(max(0, c.CachedTokens), c.InputTokens)
	return c, nil
}
