package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/store"
)

// RAGBackend is the real Backend: a rag.Library, a rag.Pipeline over it and
// the rag.Conversation in progress.
//
// Invariant: pipe answers over lib; conv belongs to lib. mu guards the
// three, which SwitchLibrary and NewConversation replace; the pipeline
// itself serialises answers on one conversation.
type RAGBackend struct {
	mu    sync.Mutex
	lib   *rag.Library
	pipe  *rag.Pipeline
	conv  *rag.Conversation
	model *rag.Model
	opt   rag.PipelineOptions
	open  func(ctx context.Context, name string) (*rag.Library, error)
}

// NewRAGBackend returns a backend answering over lib with model (nil: the
// extractive answerer). conv is a conversation to go on with (nil: a new
// one); open opens another library for /library.
func NewRAGBackend(lib *rag.Library, model *rag.Model, opt rag.PipelineOptions, conv *rag.Conversation,
	open func(ctx context.Context, name string) (*rag.Library, error)) *RAGBackend {
	if conv == nil {
		conv = rag.NewConversation(lib.Name())
	}
	return &RAGBackend{lib: lib, pipe: rag.NewPipeline(lib, model, opt), conv: conv, model: model, opt: opt, open: open}
}

func (b *RAGBackend) current() (*rag.Library, *rag.Pipeline, *rag.Conversation) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.lib, b.pipe, b.conv
}

// Close closes the library.
func (b *RAGBackend) Close() error {
	lib, _, _ := b.current()
	return lib.Close()
}

func (b *RAGBackend) LibraryName() string { lib, _, _ := b.current(); return lib.Name() }
func (b *RAGBackend) LibrarySize() int    { lib, _, _ := b.current(); return len(lib.Documents()) }
func (b *RAGBackend) ModelName() string   { _, p, _ := b.current(); return p.ModelName() }
func (b *RAGBackend) Extractive() bool    { _, p, _ := b.current(); return p.Extractive() }

func (b *RAGBackend) Ask(ctx context.Context, q string, emit func(rag.Event)) error {
	_, p, conv := b.current()
	return p.Answer(ctx, conv, q, emit)
}

func (b *RAGBackend) Segment(id string) (store.Segment, store.Document, bool) {
	lib, _, _ := b.current()
	return lib.Segment(id)
}

func (b *RAGBackend) Segments(docID string) []store.Segment {
	lib, _, _ := b.current()
	return lib.Segments(docID)
}

func (b *RAGBackend) Add(ctx context.Context, paths []string, progress func(AddProgress)) (string, error) {
	lib, _, _ := b.current()
	rep, err := lib.Add(ctx, paths, func(p rag.AddProgress) {
		progress(AddProgress{Stage: p.Stage, File: p.File, FilesDone: p.FilesDone, FilesTotal: p.FilesTotal,
			Segments: p.Segments, Embedded: p.Embedded, ToEmbed: p.ToEmbed})
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

func (b *RAGBackend) SwitchLibrary(ctx context.Context, name string) error {
	if b.open == nil {
		return errors.New("switching libraries is not available here")
	}
	lib, err := b.open(ctx, name)
	if err != nil {
		return err
	}
	b.mu.Lock()
	old := b.lib
	b.lib, b.pipe, b.conv = lib, rag.NewPipeline(lib, b.model, b.opt), rag.NewConversation(lib.Name())
	b.mu.Unlock()
	return old.Close()
}

func (b *RAGBackend) NewConversation() {
	b.mu.Lock()
	b.conv = rag.NewConversation(b.lib.Name())
	b.mu.Unlock()
}

func (b *RAGBackend) ConversationID() string { _, _, c := b.current(); return c.ID }

func (b *RAGBackend) Turns() []Turn {
	_, _, c := b.current()
	snap := c.Snapshot()
	out := make([]Turn, len(snap.Turns))
	for i, t := range snap.Turns {
		out[i] = Turn{Question: t.Question, Events: t.Events, Sources: t.Sources, Interrupted: t.Interrupted, Error: t.Error}
	}
	return out
}

func (b *RAGBackend) Markdown() string { _, _, c := b.current(); return c.Snapshot().Markdown() }

// Save writes the conversation to ConversationsDir()/ID.json atomically;
// an empty conversation is not saved.
func (b *RAGBackend) Save() error {
	_, _, c := b.current()
	snap := c.Snapshot()
	if len(snap.Turns) == 0 {
		return nil
	}
	data, err := json.MarshalIndent(snap, "", " ")
	if err != nil {
		return fmt.Errorf("couldn't encode the conversation: %w", err)
	}
	return WriteFileAtomic(filepath.Join(ConversationsDir(), snap.ID+".json"), data)
}

// ConversationsDir is where conversations are saved.
func ConversationsDir() string { return filepath.Join(rag.DataDir(), "conversations") }

// LoadConversation reads saved conversation id, or the most recently saved
// one when id is empty.
func LoadConversation(id string) (*rag.Conversation, error) {
	dir := ConversationsDir()
	if id == "" {
		ents, err := os.ReadDir(dir)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("couldn't list saved conversations: %w", err)
		}
		type saved struct {
			id  string
			mod int64
		}
		var all []saved
		for _, e := range ents {
			if !strings.HasSuffix(e.Name(), ".json") {
				continue
			}
			if info, err := e.Info(); err == nil {
				all = append(all, saved{strings.TrimSuffix(e.Name(), ".json"), info.ModTime().UnixNano()})
			}
		}
		if len(all) == 0 {
			return nil, fmt.Errorf("no saved conversation in %s: ask something first", dir)
		}
		sort.Slice(all, func(i, j int) bool { return all[i].mod > all[j].mod })
		id = all[0].id
	}
	data, err := os.ReadFile(filepath.Join(dir, filepath.Base(id)+".json"))
	if err != nil {
		return nil, fmt.Errorf("couldn't read conversation %s: %w (ids are the file names in %s)", id, err, dir)
	}
	var c rag.Conversation
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("conversation %s is damaged: %w", id, err)
	}
	return &c, nil
}
