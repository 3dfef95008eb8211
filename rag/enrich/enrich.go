// Package enrich asks a chat model to write what steers retrieval to a
// document's chunks, for the strategies that need one (ingest.Contextual,
// ingest.WindowSummary, ingest.Questions):
//
//   - Contextual: a short context that situates each chunk in the whole
//     document (Anthropic's contextual retrieval). The document comes
//     first in the prompt, byte-identical for all of its chunks, so a
//     server reuses its cached prefix; a document longer than
//     Options.LongDocument tokens is summarised first (one call per
//     section, one for the document from those) and the two summaries
//     are the prefix, identical for the chunks of one section.
//   - WindowSummary: a summary of each chunk written with the previous
//     chunk's summary as context (in order within a document).
//   - Questions: 3 to 5 questions each chunk answers, indexed as rows of
//     their own that lead to it (ingest.AddQuestions).
//
// Enrichment only steers retrieval: a segment's Text never changes;
// IndexText becomes the generated text, a blank line and the chunk's own
// text (or question rows are added). A chunk whose call fails (after the
// client's retry policy) or whose answer is unusable is indexed without
// enrichment and listed in the Report: enrichment never loses a chunk and
// never aborts an add. Answers are cached on disk as soon as they arrive,
// so a rerun, or a run after an interruption, pays only for what is left.
package enrich

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/rag/ingest/tokens"
	"github.com/ibid-dev/ibid/rag/llm"
)

// Defaults of Options.
const (
	DefaultConcurrency  = 4
	DefaultLongDocument = 6000
)

// Options says how to enrich.
type Options struct {
	Strategy ingest.Strategy // Contextual, WindowSummary or Questions
	Model    *llm.Model      // the chat model that writes; required
	// CacheDir holds the answers ("" caches nothing); the CLI passes
	// $XDG_CACHE_HOME/ibid/enrich.
	CacheDir string
	// Concurrency bounds the model calls in flight; 0 means
	// DefaultConcurrency.
	Concurrency int
	// LongDocument is the size in tokens past which Contextual works from
	// summaries instead of the whole document; 0 means
	// DefaultLongDocument.
	LongDocument int
	// Progress, when not nil, is called after each chunk is done
	// (enriched, found in the cache or failed) with the chunks done and
	// the total; calls are serialised, and must return quickly.
	Progress func(done, total int)
	// Breaker, when not nil, stops calling a model that fails every call
	// (see Breaker); share one between the Enrich calls of an add. Each
	// EnrichAll without one has its own.
	Breaker *Breaker
}

// Enrich enriches one document; see EnrichAll.
func Enrich(ctx context.Context, l *ingest.Loaded, opt Options) (Report, error) {
	return EnrichAll(ctx, []*ingest.Loaded{l}, opt)
}

// EnrichAll enriches the documents as opt.Strategy says, all model calls
// sharing one bound (Options.Concurrency), and sets each document's
// Meta[ingest.MetaStrategy].
//
// The documents must hold passages only (no index rows). An error is
// returned, and no document changed, only when the options are unusable
// (no model, a strategy that needs none), a document already has index
// rows, ctx ends (at once; what was finished stays in the cache), or the
// model failed every call of a run (an error wrapping ErrModelFailing,
// see Breaker: what it answered stays in the cache). Other failed chunks
// are not errors: they are indexed without enrichment and listed in the
// Report.
func EnrichAll(ctx context.Context, docs []*ingest.Loaded, opt Options) (Report, error) {
	if err := check(docs, opt); err != nil {
		return Report{}, err
	}
	start := time.Now()
	r := newRun(opt)
	for _, d := range docs {
		r.total += len(d.Segments)
	}
	results := make([]result, len(docs))
	var wg sync.WaitGroup
	for i, d := range docs {
		results[i] = newResult(len(d.Segments))
		wg.Go(func() { r.document(ctx, d, results[i]) })
	}
	wg.Wait()
	r.rep.Wall = time.Since(start)
	if err := ctx.Err(); err != nil {
		return r.rep, err
	}
	if err := r.breaker.Tripped(); err != nil {
		return r.rep, err
	}
	for i, d := range docs {
		results[i].apply(d, opt.Strategy)
	}
	return r.rep, nil
}

// check refuses what cannot be enriched.
func check(docs []*ingest.Loaded, opt Options) error {
	if !opt.Strategy.NeedsModel() {
		return fmt.Errorf("the %q strategy writes nothing with a model: there is nothing to enrich", opt.Strategy)
	}
	if opt.Model == nil {
		return fmt.Errorf("the %s strategy needs a chat model to write what it indexes: "+
			"set --base-url (or OPENAI_BASE_URL) and --model, or name one with --enrich-model", opt.Strategy)
	}
	for _, d := range docs {
		for _, s := range d.Segments {
			if s.Parent != "" {
				return fmt.Errorf("%s: already has index rows (segment %s); enrich its passages before indexing them", d.Document.Path, s.ID)
			}
		}
	}
	return nil
}

// result is what enrichment wrote for one document's chunks: index[i] the
// text to index chunk i by ("" when it failed or the strategy is
// Questions), questions[i] its questions.
type result struct {
	index     []string
	questions [][]string
}

func newResult(n int) result { return result{index: make([]string, n), questions: make([][]string, n)} }

// apply writes r into d.
func (r result) apply(d *ingest.Loaded, s ingest.Strategy) {
	if s == ingest.Questions {
		ingest.AddQuestions(d, r.questions)
		return
	}
	for i, gen := range r.index {
		if gen != "" {
			d.Segments[i].IndexText = gen + "\n\n" + d.Segments[i].Text
		}
	}
	if d.Document.Meta == nil {
		d.Document.Meta = map[string]string{}
	}
	d.Document.Meta[ingest.MetaStrategy] = string(s)
}

// run is one EnrichAll: the shared bound, the cache and the report.
type run struct {
	opt   Options
	model *llm.Model
	sem   chan struct{}
	cache llm.Cache

	mu          sync.Mutex // guards rep and done
	rep         Report
	done, total int

	// breaker counts failed calls in a row (across the runs that share
	// it); once it trips, later calls fail at once instead of each paying
	// the retry policy.
	breaker *Breaker
}

func newRun(opt Options) *run {
	if opt.Concurrency <= 0 {
		opt.Concurrency = DefaultConcurrency
	}
	if opt.LongDocument <= 0 {
		opt.LongDocument = DefaultLongDocument
	}
	b := opt.Breaker
	if b == nil {
		b = NewBreaker()
	}
	return &run{opt: opt, model: opt.Model, sem: make(chan struct{}, opt.Concurrency), cache: llm.Cache{Dir: opt.CacheDir}, breaker: b}
}

// document enriches one document's chunks into res.
func (r *run) document(ctx context.Context, d *ingest.Loaded, res result) {
	switch r.opt.Strategy {
	case ingest.Contextual:
		r.contextual(ctx, d, res)
	case ingest.WindowSummary:
		r.window(ctx, d, res)
	case ingest.Questions:
		r.questions(ctx, d, res)
	}
}

// call returns the model's answer to msgs (trimmed), from the cache or
// from the model, once valid(answer) accepts it; only valid answers are
// cached.
func (r *run) call(ctx context.Context, msgs []llm.Message, maxTokens int, valid func(string) error) (string, error) {
	k := key(string(r.opt.Strategy), r.model.Name(), maxTokens, msgs)
	// What is read back is bounded as the model's answer was (an entry
	// written by hand, or by an ibid that kept more, costs no more).
	if text, ok := r.cache.Get(k, maxEntry); ok {
		if text = llm.CutAnswer(text, llm.AnswerBound(maxTokens)); valid(text) == nil {
			r.mu.Lock()
			r.rep.CacheHits++
			r.mu.Unlock()
			return text, nil
		}
	}
	select {
	case r.sem <- struct{}{}:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	if err := r.breaker.Tripped(); err != nil {
		<-r.sem
		return "", fmt.Errorf("not asked: %w", err)
	}
	c, err := r.model.Complete(ctx, msgs, maxTokens)
	<-r.sem
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	r.account(msgs, c, err)
	r.breaker.record(err, err != nil && lasting(err))
	if err != nil {
		return "", err
	}
	text := strings.TrimSpace(c.Text)
	if err := valid(text); err != nil {
		return "", err
	}
	if err := r.cache.Put(k, text); err != nil {
		r.mu.Lock()
		if r.rep.CacheError == "" {
			r.rep.CacheError = err.Error()
		}
		r.mu.Unlock()
	}
	return text, nil
}

// account adds a call's cost to the report, estimating it when the server
// sent no usage.
func (r *run) account(msgs []llm.Message, c llm.Completion, err error) {
	estimated := false
	if err == nil && c.InputTokens == 0 && c.OutputTokens == 0 {
		estimated = true
		for _, m := range msgs {
			c.InputTokens += tokens.Count(m.Content) + 4 // a message's own framing
		}
		c.OutputTokens = tokens.Count(c.Text)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rep.Calls++
	r.rep.InputTokens += c.InputTokens
	r.rep.OutputTokens += c.OutputTokens
	r.rep.CachedInputTokens += c.CachedTokens
	if estimated {
		r.rep.EstimatedCalls++
	}
}

// lasting reports whether err will fail every later call too.
func lasting(err error) bool {
	var se *llm.StatusError
	if errors.As(err, &se) {
		return se.Code == "insufficient_quota" || se.Status == http.StatusUnauthorized ||
			se.Status == http.StatusForbidden || se.Status == http.StatusNotFound
	}
	return errors.Is(err, llm.ErrUnreachable)
}

// finish counts chunk i of d as done: enriched when err is nil, else
// failed for err (unless ctx ended: the run is being abandoned).
func (r *run) finish(ctx context.Context, d *ingest.Loaded, i int, err error) {
	if err != nil && ctx.Err() != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.rep.Failed++
		r.rep.Failures = append(r.rep.Failures, fmt.Sprintf("%s: chunk %d: %s", name(d), i, oneLine(err.Error())))
	}
	r.done++
	if r.opt.Progress != nil {
		r.opt.Progress(r.done, r.total)
	}
}

// name names a document in a failure line.
func name(d *ingest.Loaded) string {
	if d.Document.Path != "" {
		return d.Document.Path
	}
	if d.Document.Title != "" {
		return d.Document.Title
	}
	return d.Document.ID
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// nonEmpty accepts any answer with text.
func nonEmpty(s string) error {
	if s == "" {
		return errors.New("the model's answer was empty")
	}
	return nil
}

// each runs fn(0), …, fn(n-1) concurrently and waits for them (the calls
// they make share the run's bound).
func each(n int, fn func(i int)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { fn(i) })
	}
	wg.Wait()
}
