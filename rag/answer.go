package rag

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ibid-dev/ibid/citations"
	"github.com/ibid-dev/ibid/rag/retrieve"
	"github.com/ibid-dev/ibid/store"
)

// Retriever is what the pipeline needs of a library: passages for a
// question and any segment by id. *Library implements it.
type Retriever interface {
	Search(ctx context.Context, query string, opt retrieve.Options) ([]retrieve.Passage, error)
	Segment(id string) (store.Segment, store.Document, bool)
}

// PipelineOptions tune a Pipeline. Zero values take the defaults.
type PipelineOptions struct {
	CiteFormat citations.Mode // how the model is asked to cite; inline by default
	Numbering  string         // "answer" (default): numbers restart per answer; "conversation": they continue
	K          int            // passages offered per question; default 8
	Neighbours int            // neighbouring segments on each side added to each passage; 0: retrieval's default (1), negative: none
	// Explain, if not nil, is told why the extractive answerer chose each
	// sentence, or why it declined (ibid ask --explain).
	Explain func(line string)
}

// Pipeline answers questions: retrieval, prompt, model stream, citations,
// events. It holds no per-answer state and is safe for concurrent Answer
// calls on different conversations (calls on one conversation take turns).
type Pipeline struct {
	r   Retriever
	m   *Model // nil: the extractive answerer
	opt PipelineOptions
}

// NewPipeline returns a pipeline over r answering with m, or, when m is nil,
// with the extractive answerer.
func NewPipeline(r Retriever, m *Model, opt PipelineOptions) *Pipeline {
	if opt.K <= 0 {
		opt.K = 8
	}
	if opt.Numbering == "" {
		opt.Numbering = "answer"
	}
	return &Pipeline{r: r, m: m, opt: opt}
}

// ExtractiveName is ModelName's answer without a model.
const ExtractiveName = "extractive (no model configured)"

// ModelName is the model's name, or ExtractiveName.
func (p *Pipeline) ModelName() string {
	if p.m == nil {
		return ExtractiveName
	}
	return p.m.Name()
}

// Extractive reports whether answers are extractive (no model).
func (p *Pipeline) Extractive() bool { return p.m == nil }

// Answer runs one turn: retrieval, the prompt (with earlier turns of conv),
// the model's stream, citations, events. emit is called synchronously, in
// order, from the calling goroutine; the last event is always done, and an
// error event comes before it when the answer failed or was cut off.
// Answer appends the finished (or interrupted) turn to conv. Cancelling ctx
// stops the model request at once; the partial answer is kept in the turn
// and marked interrupted, and Answer returns ctx's error.
func (p *Pipeline) Answer(ctx context.Context, conv *Conversation, question string, emit func(Event)) error {
	conv.mu.Lock()
	defer conv.mu.Unlock()

	run := &answerRun{p: p, conv: conv, emit: emit, offered: map[int]*offered{}}
	run.turn.Question = question
	run.turn.Model = p.ModelName()
	run.turn.Extractive = p.m == nil
	defer func() { conv.Turns = append(conv.Turns, run.turn) }()

	hits, err := p.r.Search(ctx, question, retrieve.Options{K: p.opt.K, Neighbours: p.opt.Neighbours})
	if err != nil {
		err = fmt.Errorf("couldn't search the library: %w", err)
		run.fail(err)
		run.done()
		return err
	}
	passages := make([]offered, len(hits))
	for i, h := range hits {
		passages[i] = newOffered(conv.alias(h.Segment.ID), h)
		run.offered[passages[i].k] = &passages[i]
	}

	mode := p.opt.CiteFormat
	if p.m == nil {
		mode = citations.ModeInline
	}
	opt := citations.Options{Offered: func(k int) bool { _, ok := conv.segment(k); return ok }}
	if p.opt.Numbering == "conversation" {
		if conv.Registry == nil {
			conv.Registry = citations.NewRegistry()
		}
		opt.Registry = conv.Registry
	}
	run.opt = opt
	stream := citations.NewStream(mode, run.handle, opt)

	switch {
	case p.m == nil:
		err = extractiveAnswer(ctx, p.r, question, passages, stream, p.opt.Explain)
	case len(passages) == 0:
		writeString(stream, "No passage in the library matches the question.")
	default:
		msgs := buildMessages(conv, passages, question, mode)
		err = p.m.streamChat(ctx, msgs, mode, func(d string) { writeString(stream, d) })
	}
	stream.Flush()
	if err != nil {
		run.turn.Interrupted = true
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			run.fail(errors.New("cancelled"))
		} else {
			err = fmt.Errorf("the answer was cut off: %w", err)
			run.fail(err)
		}
	}
	if len(run.turn.Sources) == 0 && run.text.Len() > 0 {
		run.infer(passages)
	}
	run.done()
	return err
}

func writeString(s citations.Stream, text string) {
	s.Write([]byte(text))
}

// answerRun is the state of one Answer call.
type answerRun struct {
	p       *Pipeline
	conv    *Conversation
	emit    func(Event)
	offered map[int]*offered // this turn's passages by alias k
	opt     citations.Options
	turn    Turn
	text    strings.Builder // the answer's text so far (references excluded)
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
	case citations.KindCitation:
		src := r.source(e.Source, e.Number)
		r.turn.Sources = append(r.turn.Sources, src)
		r.send(Event{Type: EventCitation, Number: e.Number, Source: &src})
	case citations.KindRef:
		r.send(Event{Type: EventRef, Number: e.Number})
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
	info := &AnswerInfo{Model: t.Model, Extractive: t.Extractive, Inferred: t.Inferred, Interrupted: t.Interrupted}
	if t.Extractive {
		info.Model = "extractive"
		info.Note = ExtractiveNote
	}
	rep := t.Report
	if rep == nil {
		rep = &citations.Report{}
	}
	r.emit(Event{Type: EventDone, Total: len(t.Sources), Order: order, Report: rep, Inferred: t.Inferred, Info: info})
}

// source describes source_k, shown as number n.
func (r *answerRun) source(k, n int) Source {
	id, _ := r.conv.segment(k)
	src := Source{Number: n, Alias: "source_" + strconv.Itoa(k), SegmentID: id}
	if o, ok := r.offered[k]; ok {
		fillSource(&src, o.seg, o.doc)
		return src
	}
	if seg, doc, ok := r.p.r.Segment(id); ok {
		fillSource(&src, seg, doc)
	}
	return src
}

func fillSource(src *Source, seg store.Segment, doc store.Document) {
	src.DocumentID = doc.ID
	src.Title = docTitle(doc)
	src.Path = doc.Path
	src.URL = doc.URL
	src.PageStart = seg.PageStart
	if seg.PageEnd != seg.PageStart {
		src.PageEnd = seg.PageEnd
	}
	src.Section = sectionText(doc, seg.Section)
	src.Snippet = snippet(seg.Text, snippetBytes)
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
