package rag

import (
	"context"
	"io"

	"github.com/ibid-dev/ibid/citations"
	"github.com/ibid-dev/ibid/rag/llm"
)

// modelAnswerer asks a model: the passages under their aliases, up to
// historyTurns earlier turns, the question (buildMessages), streamed back
// as it arrives.
type modelAnswerer struct{ m *llm.Model }

// ModelAnswerer answers with m, which writes in the cite format asked.
func ModelAnswerer(m *llm.Model) Answerer { return modelAnswerer{m} }

func (a modelAnswerer) Info() AnswerInfo                         { return AnswerInfo{Model: a.m.Name()} }
func (a modelAnswerer) Label() string                            { return a.m.Label() }
func (a modelAnswerer) Mode(asked citations.Mode) citations.Mode { return asked }

// Answer streams the model's answer into w as it arrives.
func (a modelAnswerer) Answer(ctx context.Context, req *Request, w io.Writer) error {
	msgs := buildMessages(req.Turns, req.offered, req.Question, req.Mode)
	return a.m.Stream(ctx, msgs, responseFormat(req.Mode), func(d string) { io.WriteString(w, d) })
}
