package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	openai "github.com/sashabaranov/go-openai"
)

// Roles of chat messages.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Message is one chat message.
type Message struct {
	Role    string
	Content string
}

// Format asks for an answer that is one JSON object of the shape Schema
// (a JSON Schema) describes. Name names the schema for the server.
type Format struct {
	Name   string
	Schema json.RawMessage
}

// strictness is how strictly a JSON answer is asked for; a server that
// refuses one (HTTP 400) is asked again with the next.
type strictness int

const (
	strictSchema strictness = iota // response_format json_schema
	strictObject                   // response_format json_object
	strictNone                     // the instructions alone
)

// Stream sends msgs to the model and calls onDelta with each piece of the
// answer's content, in order, from the calling goroutine. With a format it
// asks for JSON: first with the schema, and, when the server refuses that
// (HTTP 400), with json_object, then with no response format at all (the
// refusal of schemas is remembered for later calls).
//
// Before the first piece the client's Policy applies (see Policy); a
// stream that breaks before any content is sent again under the same
// policy. After the first piece nothing is retried: a stream that breaks
// returns an error wrapping ErrStreamCut (or ErrIdleTimeout), and the
// content so far has been delivered. Cancelling ctx ends the request at
// once and returns ctx's error.
func (m *Model) Stream(ctx context.Context, msgs []Message, format *Format, onDelta func(string)) error {
	strict := strictSchema
	if m.noSchema.Load() {
		strict = strictObject
	}
	req := openai.ChatCompletionRequest{Model: m.name, Stream: true, Messages: make([]openai.ChatCompletionMessage, len(msgs))}
	for i, msg := range msgs {
		req.Messages[i] = openai.ChatCompletionMessage{Role: msg.Role, Content: msg.Content}
	}
	p := m.c.d.policy
	for broken := 0; ; {
		setFormat(&req, format, strict)
		done := new(doneFlag)
		stream, err := m.c.oa.CreateChatCompletionStream(withDoneFlag(ctx, done), req)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if Status(err) == http.StatusBadRequest && req.ResponseFormat != nil {
				if strict == strictSchema {
					m.noSchema.Store(true)
				}
				strict++
				continue
			}
			return err
		}
		got, err := readStream(ctx, stream, done, onDelta)
		stream.Close()
		if err == nil || ctx.Err() != nil || got || errors.Is(err, ErrIdleTimeout) || broken >= p.Retries {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		w := Wait{Attempt: broken + 1, Delay: p.Backoff(broken, m.c.d.rnd), Err: err}
		broken++
		notify(ctx, w)
		if err := sleep(ctx, w.Delay); err != nil {
			return err
		}
	}
}

// setFormat asks for format as strictly as strict says.
func setFormat(req *openai.ChatCompletionRequest, format *Format, strict strictness) {
	req.ResponseFormat = nil
	if format == nil {
		return
	}
	switch strict {
	case strictSchema:
		req.ResponseFormat = &openai.ChatCompletionResponseFormat{
			Type:       openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: format.Name, Schema: format.Schema, Strict: true},
		}
	case strictObject:
		req.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
	}
}

// readStream delivers the stream's content; got says whether any arrived.
func readStream(ctx context.Context, stream *openai.ChatCompletionStream, done *doneFlag, onDelta func(string)) (got bool, err error) {
	err = recvStream(ctx, stream, done, func(resp openai.ChatCompletionStreamResponse) bool {
		for _, c := range resp.Choices {
			if c.Index == 0 && c.Delta.Content != "" {
				got = true
				onDelta(c.Delta.Content)
			}
		}
		return true
	})
	return got, err
}

// recvStream hands each response of the stream to each, in order, until
// the stream ends (nil), each returns false (nil), or the stream fails:
// ctx's error once ctx ends; a *TimeoutError as it is; errAnswerTooLong
// (the body's bound, withBodyLimit) as it is; an end before the answer's
// (no finish_reason for the first choice and no [DONE]) is ErrStreamCut,
// and any other failure wraps ErrStreamCut.
func recvStream(ctx context.Context, stream *openai.ChatCompletionStream, done *doneFlag, each func(openai.ChatCompletionStreamResponse) bool) error {
	finished := false
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			if finished || done.Seen() {
				return nil
			}
			return ErrStreamCut
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			var te *TimeoutError
			if errors.As(err, &te) || errors.Is(err, errAnswerTooLong) {
				return err
			}
			return fmt.Errorf("%w: %w", ErrStreamCut, err)
		}
		for _, c := range resp.Choices {
			if c.Index == 0 && c.FinishReason != "" {
				finished = true
			}
		}
		if !each(resp) {
			return nil
		}
	}
}
