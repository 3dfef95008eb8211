package backend

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/bib"
	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/rag/library"
	"github.com/ibid-dev/ibid/store"
)

// RAG is the real Backend: a library.Library, a rag.Pipeline over it and
// the rag.Conversation in progress.
//
// Invariant: pipe answers over lib; conv belongs to lib. mu guards the
// three, which SwitchLibrary and NewConversation replace; the pipeline
// itself serialises answers on one conversation.
type RAG struct {
	mu   sync.Mutex
	lib  *library.Library
	pipe *rag.Pipeline
	conv *rag.Conversation
	ans  rag.Answerer
	opt  rag.PipelineOptions
	open func(ctx context.Context, name string) (*library.Library, error)
	// enrich, if set, gives /add what a library whose strategy needs a
	// model uses to write what it indexes (nil: such an add is refused
	// with the library's ErrNeedsModel).
	enrich func(ingest.Strategy) library.Enricher
	sync   syncState // the background sync of the library's folders (sync.go)
}

// SetEnricher sets what /add uses for the strategies that need a model.
// Call it before the chat starts.
func (b *RAG) SetEnricher(f func(ingest.Strategy) library.Enricher) { b.enrich = f }

// NewRAG returns a backend answering over lib with a
// (rag.NewAnswerer). conv is a conversation to go on with (nil: a new
// one); open opens another library for /library.
func NewRAG(lib *library.Library, a rag.Answerer, opt rag.PipelineOptions, conv *rag.Conversation,
	open func(ctx context.Context, name string) (*library.Library, error)) *RAG {
	if conv == nil {
		conv = rag.NewConversation(lib.Name())
	}
	return &RAG{lib: lib, pipe: rag.NewPipeline(lib, a, opt), conv: conv, ans: a, opt: opt, open: open}
}

func (b *RAG) current() (*library.Library, *rag.Pipeline, *rag.Conversation) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.lib, b.pipe, b.conv
}

// Close stops the background sync and closes the library.
func (b *RAG) Close() error {
	b.stopWatch()
	lib, _, _ := b.current()
	return lib.Close()
}

func (b *RAG) LibraryName() string { lib, _, _ := b.current(); return lib.Name() }

// LibrarySize is the number of documents in the library (0 when it cannot
// be read; the error shows at the next search).
func (b *RAG) LibrarySize() int {
	_, n, _ := b.LibraryCount()
	return n
}

// LibraryCount is the library's name and number of documents, of one
// library even while /library switches, and the error that kept it from
// being read. The store counts them (store.CountDocuments): the chat asks
// every few seconds, and listing the documents would read them all.
func (b *RAG) LibraryCount() (string, int, error) {
	lib, _, _ := b.current()
	n, err := store.CountDocuments(context.Background(), lib.Store())
	return lib.Name(), n, err
}

// ModelName says which model answers, for the status line: what Connect
// found by itself and the model ("Ollama · llama3.2"), the model's name
// alone for a server the user named (rag.Answerer's Label).
func (b *RAG) ModelName() string { _, p, _ := b.current(); return p.ModelName() }
func (b *RAG) Extractive() bool  { _, p, _ := b.current(); return p.Extractive() }

func (b *RAG) Ask(ctx context.Context, q string, emit func(rag.Event)) error {
	_, p, conv := b.current()
	return p.Answer(ctx, conv, q, emit)
}

func (b *RAG) Segment(id string) (store.Segment, store.Document, bool) {
	lib, _, _ := b.current()
	seg, doc, err := lib.Segment(context.Background(), id)
	return seg, doc, err == nil
}

func (b *RAG) Segments(docID string) []store.Segment {
	lib, _, _ := b.current()
	segs, _ := lib.Segments(context.Background(), docID)
	return segs
}

// Suggestions are up to n questions the library answers from the section
// each was drawn from (rag.Suggest); none when none passes or the library
// cannot be read.
func (b *RAG) Suggestions(n int) []string {
	lib, _, _ := b.current()
	ss, _ := rag.Suggest(context.Background(), lib, n)
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.Question
	}
	return out
}

func (b *RAG) Add(ctx context.Context, paths []string, progress func(AddProgress)) (string, error) {
	lib, _, _ := b.current()
	var opt library.AddOptions
	if st, _, err := lib.Strategy(ctx); err == nil && st.NeedsModel() && b.enrich != nil {
		opt.Enrich = b.enrich(st)
	}
	opt.Follow = true // the chat's additions are followed, as ibid add's
	rep, err := lib.AddWith(ctx, paths, opt, func(p library.AddProgress) {
		progress(AddProgress{Stage: p.Stage.String(), File: p.File, FilesDone: p.FilesDone, FilesTotal: p.FilesTotal,
			Segments: p.Segments, Embedded: p.Embedded, ToEmbed: p.ToEmbed, OCRDone: p.OCRDone, OCRTotal: p.OCRTotal})
	})
	if err != nil {
		return "", err
	}
	s := fmt.Sprintf("added %d, replaced %d, unchanged %d", len(rep.Added), len(rep.Replaced), len(rep.Unchanged))
	if len(rep.Moved) > 0 {
		s += fmt.Sprintf(", moved %d", len(rep.Moved))
	}
	if len(rep.Skipped) > 0 {
		s += fmt.Sprintf(", skipped %d (%s)", len(rep.Skipped), rep.Skipped[0].Error())
	}
	return s, nil
}

func (b *RAG) SwitchLibrary(ctx context.Context, name string) error {
	if b.open == nil {
		return errors.New("switching libraries is not available here")
	}
	lib, err := b.open(ctx, name)
	if err != nil {
		return err
	}
	b.mu.Lock()
	old := b.lib
	b.lib, b.pipe, b.conv = lib, rag.NewPipeline(lib, b.ans, b.opt), rag.NewConversation(lib.Name())
	b.mu.Unlock()
	b.sync.mu.Lock()
	b.startWatch(lib) // stops the old library's watcher
	b.sync.mu.Unlock()
	return old.Close()
}

func (b *RAG) NewConversation() {
	b.mu.Lock()
	b.conv = rag.NewConversation(b.lib.Name())
	b.mu.Unlock()
}

func (b *RAG) ConversationID() string { _, _, c := b.current(); return c.ID }

func (b *RAG) Turns() []Turn {
	_, _, c := b.current()
	snap := c.Snapshot()
	out := make([]Turn, len(snap.Turns))
	for i, t := range snap.Turns {
		out[i] = Turn{Question: t.Question, Events: t.Events, Sources: t.Sources, Interrupted: t.Interrupted, Error: t.Error}
	}
	return out
}

func (b *RAG) Markdown() string { _, _, c := b.current(); return c.Snapshot().Markdown() }

// PandocMarkdown is the conversation with Pandoc citations, and the
// works it cites (PandocExporter).
func (b *RAG) PandocMarkdown(bibliography string) (string, []bib.Entry) {
	lib, _, c := b.current()
	snap := c.Snapshot()
	var sources []rag.Source
	for _, t := range snap.Turns {
		sources = append(sources, t.Sources...)
	}
	works := rag.CitedWorks(sources, func(id string) (store.Document, bool) {
		d, err := lib.Document(context.Background(), id)
		return d, err == nil
	})
	return snap.PandocMarkdown(bibliography), works
}

// Save writes the conversation where --resume finds it (see
// rag.ConversationsDir), atomically; an empty conversation is not saved.
func (b *RAG) Save() error {
	_, _, c := b.current()
	if len(c.Snapshot().Turns) == 0 {
		return nil
	}
	dir, err := rag.ConversationsDir()
	if err != nil {
		return err
	}
	return c.Save(dir)
}

// DocumentPages asks the library, which loads the document's file again
// (library.DocumentPages): nil when the file is gone or changed.
func (b *RAG) DocumentPages(docID string) []int {
	lib, _, _ := b.current()
	starts, exact, err := lib.DocumentPages(context.Background(), docID)
	if err != nil || !exact {
		return nil
	}
	return starts
}
