// Package rag is ibid's answering room: the pipeline that streams an
// Answerer's answer through the citations engine into events
// (Pipeline.Answer); the two answerers, a model's (the prompt: passages
// under their aliases [source_k], with everything a document controls
// neutralised) and the extractive one used without a model (its choice
// made by rag/extractive); references inferred when an answer cites
// nothing; and the conversation with its saving.
//
// It reads the library through the small Retriever interface and talks to
// models through rag/llm; it never imports rag/library, so faces and tests
// can answer over any retriever (rag/ragtest has an in-memory one).
package rag

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ibid-dev/ibid/citations"
	"github.com/ibid-dev/ibid/rag/bib"
	"github.com/ibid-dev/ibid/rag/extractive"
	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/rag/llm"
	"github.com/ibid-dev/ibid/rag/retrieve"
	checker "github.com/ibid-dev/ibid/rag/support"
	"github.com/ibid-dev/ibid/store"
)

// Retriever is what the pipeline needs of a library: passages for a
// question and any segment by id. *library.Library implements it (and
// ragtest.Library, in tests).
type Retriever interface {
	// Search returns passages as retrieve.Search does: best first, and,
	// so that the prompt offers no segment twice, no two windows of one
	// document overlapping or touching (retrieve.MergeWindows).
	Search(ctx context.Context, query string, opt retrieve.Options) ([]retrieve.Passage, error)
	// Segment returns a segment with its document, or an error wrapping
	// store.ErrNotFound for an unknown id.
	Segment(ctx context.Context, id string) (store.Segment, store.Document, error)
}

// Numbering is how an answer's footnotes are numbered.
type Numbering uint8

const (
	// NumberingAnswer: numbers restart with each answer (the default).
	NumberingAnswer Numbering = iota
	// NumberingConversation: numbers continue across the conversation,
	// and a source cited again keeps its number.
	NumberingConversation
)

// ParseNumbering reads a numbering's name: "answer" or "conversation".
func ParseNumbering(s string) (Numbering, error) {
	switch s {
	case "answer":
		return NumberingAnswer, nil
	case "conversation":
		return NumberingConversation, nil
	}
	return 0, fmt.Errorf("unknown numbering %q: use answer or conversation", s)
}

// String is the numbering's name as ParseNumbering reads it.
func (n Numbering) String() string {
	switch n {
	case NumberingAnswer:
		return "answer"
	case NumberingConversation:
		return "conversation"
	}
	return fmt.Sprintf("numbering(%d)", uint8(n))
}

// PipelineOptions tune a Pipeline. Zero values take the defaults.
type PipelineOptions struct {
	CiteFormat citations.Mode // how the model is asked to cite; inline by default
	Numbering  Numbering      // NumberingAnswer (default) or NumberingConversation
	K          int            // passages offered per question; default 8
	Neighbours int            // neighbouring segments on each side added to each passage; 0: retrieval's default (1), negative: none
	// Rerank, if not nil, reranks retrieval's candidates (retrieve.Options).
	Rerank retrieve.Reranker
	// Verify, if not nil, judges with a model the footnotes whose lexical
	// support check is not clear-cut (rag/support's model pass).
	Verify *checker.Judge
	// References offers passages from the documents' references too,
	// which retrieval leaves out by default (retrieve.Options.References).
	References bool
	// Explain, if not nil, is told why the answerer answered as it did
	// (ibid ask --explain; the extractive answerer says why it chose each
	// sentence, or why it declined).
	Explain func(line string)
}

// Pipeline answers questions: retrieval, the answerer, citations, events.
// It holds no per-answer state and is safe for concurrent Answer calls on
// different conversations (calls on one conversation take turns).
type Pipeline struct {
	r   Retriever
	a   Answerer
	opt PipelineOptions
}

// NewPipeline returns a pipeline over r answering with a (NewAnswerer
// picks the model answerer or the extractive one; nil is the extractive
// one).
func NewPipeline(r Retriever, a Answerer, opt PipelineOptions) *Pipeline {
	if opt.K <= 0 {
		opt.K = 8
	}
	if a == nil {
		a = ExtractiveAnswerer()
	}
	return &Pipeline{r: r, a: a, opt: opt}
}

// ModelName says which answerer answers, for a person (Answerer.Label).
func (p *Pipeline) ModelName() string { return p.a.Label() }

// Extractive reports whether answers quote the documents rather than
// being written by a model.
func (p *Pipeline) Extractive() bool { return p.a.Info().Extractive }

// Answer runs one turn: retrieval, the answerer (with earlier turns of
// conv), citations, events. emit is called synchronously, in order, from
// the calling goroutine; the last event is always done, and an error
// event comes before it when the answer failed or was cut off. Answer
// appends the finished (or interrupted) turn to conv. Cancelling ctx
// stops the answer (a model's request) at once; the partial answer is kept
// in the turn and marked interrupted, and Answer returns ctx's error.
//
// Retry waits of the model request are reported through ctx (see
// llm.WithNotify). Answers on one conversation take turns; reading the
// conversation (Snapshot, Markdown) does not wait for a running answer and
// sees it once it has finished.
func (p *Pipeline) Answer(ctx context.Context, conv *Conversation, question string, emit func(Event)) error {
	conv.answering.Lock()
	defer conv.answering.Unlock()

	info := p.a.Info()
	run := &answerRun{p: p, ctx: ctx, emit: emit, offered: map[int]*offered{}, quoted: map[int]ingest.Span{}, info: info}
	run.turn.Question = question
	run.turn.Model = info.Model
	run.turn.Extractive = info.Extractive
	var registry *citations.Registry
	defer func() { conv.finish(run.turn, registry) }()

	// A follow-up ("And how is precision computed?") is searched with
	// what it carries over from the question before it.
	res := extractive.Resolve(question, conv.questions())
	if len(res.Carried) > 0 && p.opt.Explain != nil {
		p.opt.Explain(fmt.Sprintf("follow-up: carried over %q from %q", strings.Join(res.Carried, " "), res.From))
	}
	hits, err := p.r.Search(ctx, res.Query, retrieve.Options{K: p.opt.K, Neighbours: p.opt.Neighbours, Rerank: p.opt.Rerank, References: p.opt.References})
	if err != nil {
		err = fmt.Errorf("couldn't search the library: %w", err)
		run.fail(err)
		run.done()
		return err
	}
	// One alias per passage, its best hit's: retrieve.Search has merged
	// the windows of one document that met, so no segment is offered twice.
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.Segment.ID
	}
	begin := conv.begin(ids, p.opt.Numbering == NumberingConversation)
	run.segments, run.past, registry = begin.segments, begin.turns, begin.registry
	passages := make([]offered, len(hits))
	for i, h := range hits {
		passages[i] = newOffered(begin.aliases[i], h)
		run.offered[passages[i].k] = &passages[i]
	}
	run.startChecks(passages)

	mode := p.a.Mode(p.opt.CiteFormat)
	opt := citations.Options{Offered: func(k int) bool { _, ok := run.segment(k); return ok }, Registry: registry}
	run.opt = opt
	stream := citations.NewStream(mode, run.handle, opt)

	if len(passages) == 0 {
		writeString(stream, "No passage in the library matches the question.")
	} else {
		req := &Request{
			Question: question, Resolution: res, Turns: begin.turns, Passages: hits, Aliases: begin.aliases,
			Mode: mode, Neighbours: p.opt.Neighbours, Retriever: p.r, Explain: p.opt.Explain,
			Quoted: func(k int, sp ingest.Span) {
				if _, ok := run.quoted[k]; !ok {
					run.quoted[k] = sp
				}
			},
			Alias:   func(seg store.Segment, doc store.Document) int { return run.alias(conv, seg, doc) },
			offered: passages,
		}
		err = p.a.Answer(ctx, req, stream)
	}
	stream.Flush()
	failure := err // what the error event says
	if err != nil {
		run.turn.Interrupted = true
		switch {
		case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
			failure = errors.New("cancelled")
		case run.text.Len() > 0:
			err = fmt.Errorf("the answer was cut off: %w", err)
			failure = err
		case !errors.Is(err, llm.ErrUnreachable): // that one says so itself
			err = fmt.Errorf("the model did not answer: %w", err)
			failure = err
		}
	}
	if len(run.turn.Sources) == 0 && run.text.Len() > 0 {
		run.infer(passages)
	}
	// The footnotes of what was written are checked even when the answer
	// was cut, so that an error is the last event before done.
	run.finishChecks()
	if failure != nil {
		run.fail(failure)
	}
	run.done()
	return err
}

func writeString(s citations.Stream, text string) {
	s.Write([]byte(text))
}

// answerRun is the state of one Answer call. It works on copies of the
// conversation's state taken when the turn began (segments, past turns,
// registry), so that readers of the conversation never wait for it.
type answerRun struct {
	p        *Pipeline
	ctx      context.Context
	emit     func(Event)
	offered  map[int]*offered // this turn's passages by alias k
	segments []string         // the conversation's Segments, this turn's aliases included
	past     []Turn           // the conversation's earlier turns
	opt      citations.Options
	turn     Turn
	text     strings.Builder // the answer's text so far (references excluded)
	// quoted is, for an answerer that quotes, the first span it told of
	// for each source_k (Request.Quoted): in that passage's segment text.
	quoted map[int]ingest.Span
	info   AnswerInfo         // the answerer's
	idf    map[string]float64 // rarity weights of terms asked so far (weights)
	checks checks             // the footnotes' support checks (answer_support.go)
}

// alias gives seg, a neighbour of one of this turn's hits, an alias in
// conv (the one it has, or the next), and offers it in this turn, so that
// it can be cited and described like a hit.
func (r *answerRun) alias(conv *Conversation, seg store.Segment, doc store.Document) int {
	k := conv.aliasOf(seg.ID)
	for len(r.segments) < k {
		r.segments = append(r.segments, "")
	}
	r.segments[k-1] = seg.ID
	if _, ok := r.offered[k]; !ok {
		o := newOffered(k, retrieve.Passage{Segment: seg, Document: doc})
		r.offered[k] = &o
	}
	return k
}

// segment returns the segment id of source_k.
func (r *answerRun) segment(k int) (string, bool) {
	if k < 1 || k > len(r.segments) {
		return "", false
	}
	return r.segments[k-1], true
}

// handle receives the citation engine's events and turns them into the
// pipeline's.
func (r *answerRun) handle(e citations.Event) {
	switch e.Kind {
	case citations.KindText:
		if len(e.Text) == 0 {
			return
		}
		s := string(e.Text) // the engine reuses its buffer: copy
		r.text.WriteString(s)
		r.send(Event{Type: EventText, Text: s})
		r.textArrived(s)
	case citations.KindCitation:
		src := r.source(e.Source, e.Number)
		r.sentenceFocus(&src, e.Source)
		r.turn.Sources = append(r.turn.Sources, src)
		if _, ok := r.offered[e.Source]; ok {
			r.checks.byNumber[e.Number] = e.Source
		}
		r.send(Event{Type: EventCitation, Number: e.Number, Source: &src})
	case citations.KindRef:
		r.send(Event{Type: EventRef, Number: e.Number})
		r.citedAt(e.Number)
	case citations.KindUnknown:
		r.send(Event{Type: EventUnknown, Text: string(e.Text)})
	case citations.KindDone:
		if e.Report != nil {
			rep := *e.Report
			r.turn.Report = &rep
		}
	}
}

// send emits e and keeps it in the turn, coalescing text.
func (r *answerRun) send(e Event) {
	r.emit(e)
	ev := r.turn.Events
	if e.Type == EventText && len(ev) > 0 && ev[len(ev)-1].Type == EventText {
		ev[len(ev)-1].Text += e.Text
		return
	}
	r.turn.Events = append(ev, e)
}

func (r *answerRun) fail(err error) {
	r.turn.Error = err.Error()
	r.send(Event{Type: EventError, Text: err.Error()})
}

func (r *answerRun) done() {
	t := &r.turn
	order := make([]string, len(t.Sources))
	for i, s := range t.Sources {
		order[i] = s.SegmentID
	}
	info := r.info
	info.Inferred, info.Interrupted = t.Inferred, t.Interrupted
	if j := r.p.opt.Verify; j != nil {
		info.Verifier = j.Model()
	}
	info.VerifyNote = r.checks.failure
	rep := t.Report
	if rep == nil {
		rep = &citations.Report{}
	}
	r.emit(Event{Type: EventDone, Total: len(t.Sources), Order: order, Report: rep, Inferred: t.Inferred, Info: &info})
}

// source describes source_k, shown as number n: from this turn's passage,
// else as an earlier turn showed it (the library may have lost it since),
// else from the library.
func (r *answerRun) source(k, n int) Source {
	id, _ := r.segment(k)
	alias := "source_" + strconv.Itoa(k)
	src := Source{Number: n, Alias: alias, SegmentID: id}
	if o, ok := r.offered[k]; ok {
		fillSource(&src, o.seg, o.doc)
		src.FocusStart, src.FocusEnd = o.focusStart, o.focusEnd
		return src
	}
	for i := len(r.past) - 1; i >= 0; i-- {
		for _, s := range r.past[i].Sources {
			if s.Cited() == id {
				s.Number, s.Alias, s.Inferred = n, alias, false
				return s
			}
		}
	}
	if seg, doc, err := r.p.r.Segment(r.ctx, id); err == nil {
		fillSource(&src, seg, doc)
	}
	return src
}

func fillSource(src *Source, seg store.Segment, doc store.Document) {
	src.DocumentID = doc.ID
	src.Title = DocTitle(doc)
	src.Path = doc.Path
	src.URL = doc.URL
	src.PageStart = seg.PageStart
	if seg.PageEnd != seg.PageStart {
		src.PageEnd = seg.PageEnd
	}
	src.Section = SectionText(doc, seg.Section)
	src.Snippet = snippet(seg.Text, snippetBytes)
	src.Boxes = slices.Clone(seg.Boxes)
	src.Citekey = doc.Meta[bib.MetaCitekey]
	src.Authors = bib.MetaAuthorList(doc.Meta[bib.MetaAuthors])
	src.Year = doc.Meta[bib.MetaYear]
	src.DOI = doc.Meta[bib.MetaDOI]
	src.SegmentHash = SegmentHash(seg.Text)
}

// snippetBytes bounds a source's snippet.
const snippetBytes = 240

// snippet is the start of text on one line, at most max bytes, cut at a
// word and never inside a rune.
func snippet(text string, max int) string {
	s := oneLine(text)
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if i := strings.LastIndexByte(s[:cut], ' '); i > max/2 {
		cut = i
	}
	return s[:cut] + "…"
}
