package rag

import (
	"context"
	"io"

	"github.com/ibid-dev/ibid/citations"
	"github.com/ibid-dev/ibid/rag/extractive"
	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/rag/llm"
	"github.com/ibid-dev/ibid/rag/retrieve"
	"github.com/ibid-dev/ibid/store"
)

// Answerer turns passages and a question into a cited stream: the text of
// an answer that cites the passages by their aliases ([source_k]), written
// in the cite format its Mode names. The pipeline does the rest
// (retrieval, aliases, the citation engine, events, the turn), so an
// answerer is one file: ModelAnswerer (a model over rag/llm and the
// prompt) and ExtractiveAnswerer (rag/extractive, no model) are the two
// there are.
type Answerer interface {
	// Info says how this answerer's answers are made; the done event
	// carries it, and the turn keeps its Model and Extractive.
	Info() AnswerInfo
	// Label names the answerer for a person: the chat's status line,
	// serve's banner ("Ollama · llama3.2").
	Label() string
	// Mode is the cite format the answerer writes in when asked for
	// asked (PipelineOptions.CiteFormat): a model writes as asked, an
	// answerer that writes its own text may always write inline.
	Mode(asked citations.Mode) citations.Mode
	// Answer writes the answer to req into w, from the calling goroutine,
	// and returns when it is written, or with ctx's error once ctx is
	// cancelled (what was written is kept), or with the error that cut
	// it off. req has at least one passage: the pipeline answers a
	// question that found none itself.
	Answer(ctx context.Context, req *Request, w io.Writer) error
}

// Request is one question put to an Answerer.
type Request struct {
	Question string
	// Resolution is the question read against the conversation: for a
	// follow-up ("And how is precision computed?"), the words carried over
	// from the questions before it, which the search used too.
	Resolution extractive.Resolution
	// Turns are the conversation's earlier turns, oldest first.
	Turns []Turn
	// Passages are the passages retrieval found, best first, each offered
	// as source_k with k its Aliases entry.
	Passages []retrieve.Passage
	Aliases  []int
	// Mode is the cite format the answer is read in (the answerer's Mode).
	Mode citations.Mode
	// Neighbours is retrieve.Options.Neighbours as the search used it.
	Neighbours int
	// Retriever is the library answered over (for its term statistics,
	// when it is a store.TermCounter).
	Retriever Retriever
	// Explain, if not nil, is told why the answer was made as it was (ibid
	// ask --explain).
	Explain func(line string)
	// Quoted is for an answerer that quotes: it tells, before writing a
	// citation of source_k, the span of the passage's segment text it
	// quoted there (an empty span: it cites source_k without quoting it).
	// The first span told for k is the citation's sentence focus (see
	// Source); a source it was not told of has the focus support finds
	// for the sentence that cites it.
	Quoted func(k int, sp ingest.Span)
	// Alias gives seg, a segment of a passage's window that is not its
	// hit (a neighbour), an alias of its own, so that an answer can cite
	// the very segment it quotes: the same k for the same segment across
	// the conversation, a new one on first sight. doc is its document.
	Alias func(seg store.Segment, doc store.Document) int

	// offered are Passages as the prompt shows them.
	offered []offered
}

// NewAnswerer is the answerer for m: the model answerer, or, when m is nil
// (no model configured or found), the extractive answerer.
func NewAnswerer(m *llm.Model) Answerer {
	if m == nil {
		return ExtractiveAnswerer()
	}
	return ModelAnswerer(m)
}
