package rag

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/ibid-dev/ibid/citations"
)

// ErrStreamCut is the cause when the model's stream ended before the answer
// was finished (no finish_reason and no [DONE]).
var ErrStreamCut = errors.New("the model's stream ended before the answer was finished")

// responseFormat is how strictly a JSON answer is asked for; a server that
// refuses one (HTTP 400) is asked again with the next.
type responseFormat int

const (
	formatSchema responseFormat = iota // response_format json_schema
	formatObject                       // response_format json_object
	formatNone                         // instructions only
)

var (
	jsonBodySchema = json.RawMessage(`{"type":"object","properties":{` +
		`"body":{"type":"string"},` +
		`"citedSourceIds":{"type":"array","items":{"type":"string"}}},` +
		`"required":["body","citedSourceIds"],"additionalProperties":false}`)
	sectionsSchema = json.RawMessage(`{"type":"object","properties":{` +
		`"sections":{"type":"array","items":{"type":"object","properties":{` +
		`"text":{"type":"string"},"source_ids":{"type":"array","items":{"type":"string"}}},` +
		`"required":["text","source_ids"],"additionalProperties":false}}},` +
		`"required":["sections"],"additionalProperties":false}`)
)

// streamChat sends messages to the model and calls onDelta with each piece
// of the answer's content, in order, from the calling goroutine.
//
// Before the first piece, HTTP 429 and 5xx answers (and streams that break
// before any content) are retried with exponential backoff; for the JSON
// modes a 400 is taken as a refused response format and the request is sent
// again with a looser one. After the first piece nothing is retried: a
// stream that breaks returns an error wrapping ErrStreamCut or the cause,
// and the content so far has been delivered. Cancelling ctx ends the
// request at once and returns ctx's error.
func (m *Model) streamChat(ctx context.Context, msgs []openai.ChatCompletionMessage, mode citations.Mode, onDelta func(string)) error {
	format := formatSchema
	if m.noSchema.Load() {
		format = formatObject
	}
	for attempt := 0; ; attempt++ {
		req := openai.ChatCompletionRequest{Model: m.name, Messages: msgs, Stream: true}
		setResponseFormat(&req, mode, format)
		done := new(doneFlag)
		stream, err := m.client.CreateChatCompletionStream(withDoneFlag(ctx, done), req)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			status := httpStatus(err)
			if status == http.StatusBadRequest && req.ResponseFormat != nil && format < formatNone {
				if format == formatSchema {
					m.noSchema.Store(true)
				}
				format++
				attempt--
				continue
			}
			if retryable(status) && attempt < m.retries {
				if err := m.wait(ctx, attempt); err != nil {
					return err
				}
				continue
			}
			return requestError(status, err)
		}
		got, err := readStream(ctx, stream, done, onDelta)
		stream.Close()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !got && attempt < m.retries {
			if err := m.wait(ctx, attempt); err != nil {
				return err
			}
			continue
		}
		return err
	}
}

// setResponseFormat asks for the JSON shape of mode, as strictly as format
// says.
func setResponseFormat(req *openai.ChatCompletionRequest, mode citations.Mode, format responseFormat) {
	var schema json.RawMessage
	var name string
	switch mode {
	case citations.ModeJSON:
		schema, name = jsonBodySchema, "cited_answer"
	case citations.ModeSections:
		schema, name = sectionsSchema, "cited_sections"
	default:
		return
	}
	switch format {
	case formatSchema:
		req.ResponseFormat = &openai.ChatCompletionResponseFormat{
			Type:       openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: name, Schema: schema, Strict: true},
		}
	case formatObject:
		req.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
	}
}

// wait sleeps before retry attempt+1, or returns ctx's error.
func (m *Model) wait(ctx context.Context, attempt int) error {
	t := time.NewTimer(m.backoff << attempt)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// readStream delivers the stream's content; got says whether any arrived.
func readStream(ctx context.Context, stream *openai.ChatCompletionStream, done *doneFlag, onDelta func(string)) (got bool, err error) {
	finished := false
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			if finished || done.seen {
				return got, nil
			}
			return got, ErrStreamCut
		}
		if err != nil {
			if ctx.Err() != nil {
				return got, ctx.Err()
			}
			return got, fmt.Errorf("%w: %w", ErrStreamCut, err)
		}
		for _, c := range resp.Choices {
			if c.Delta.Content != "" {
				got = true
				onDelta(c.Delta.Content)
			}
			if c.FinishReason != "" {
				finished = true
			}
		}
	}
}

// doneFlag records whether the response body carried "data: [DONE]"
// (go-openai reports that and a cut connection alike as io.EOF).
type doneFlag struct {
	seen bool
	tail []byte
}

type doneKey struct{}

func withDoneFlag(ctx context.Context, d *doneFlag) context.Context {
	return context.WithValue(ctx, doneKey{}, d)
}

// doneTransport wraps response bodies of requests that carry a doneFlag so
// the flag sees the bytes.
type doneTransport struct{ base http.RoundTripper }

func (t doneTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	if d, ok := req.Context().Value(doneKey{}).(*doneFlag); ok && resp.Body != nil {
		resp.Body = &doneBody{ReadCloser: resp.Body, flag: d}
	}
	return resp, nil
}

type doneBody struct {
	io.ReadCloser
	flag *doneFlag
}

var doneMarker = []byte("[DONE]")

func (b *doneBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 && !b.flag.seen {
		// Look in the last few bytes of the previous read plus this one,
		// so a marker split across reads is still found.
		buf := append(b.flag.tail, p[:n]...)
		if bytes.Contains(buf, doneMarker) {
			b.flag.seen = true
		}
		if len(buf) > len(doneMarker) {
			buf = buf[len(buf)-len(doneMarker):]
		}
		b.flag.tail = append(b.flag.tail[:0], buf...)
	}
	return n, err
}

// requestError says why the model did not answer, and what to check.
func requestError(status int, err error) error {
	switch {
	case status == 0:
		return fmt.Errorf("couldn't reach the model (check OPENAI_BASE_URL or --base-url): %w", err)
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return fmt.Errorf("the model refused the request (check OPENAI_API_KEY): %w", err)
	case status == http.StatusNotFound:
		return fmt.Errorf("the model refused the request (check --model and --base-url): %w", err)
	}
	return fmt.Errorf("the model refused the request: %w", err)
}
