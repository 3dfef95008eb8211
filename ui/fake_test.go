package ui

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/store"
	"github.com/ibid-dev/ibid/ui/backend"
)

// fakeBackend answers from a script: the answer text with [source_k]
// tokens is turned into events the way the pipeline numbers them (first
// appearance). gate, when set, holds each chunk until a value arrives.
type fakeBackend struct {
	mu      sync.Mutex
	docs    map[string]store.Document
	segs    map[string][]store.Segment
	answer  string   // with [source_k] tokens
	chunk   int      // bytes per text event
	gate    chan int // nil: no gating
	turns   []backend.Turn
	saved   int
	library string
	added   [][]string        // the paths of every Add
	focus   map[string][2]int // a cited segment's focus (rag.Source.FocusStart, FocusEnd), by segment id
	// verdicts, by segment id, are sent as support events after the
	// text that follows a footnote's first reference (the sentence that
	// cites it); a segment without one gets no support event.
	verdicts map[string]rag.Verdict
}

func newFakeBackend(answer string) *fakeBackend {
	b := &fakeBackend{docs: map[string]store.Document{}, segs: map[string][]store.Segment{}, answer: answer, chunk: 7, library: "default"}
	for d := 1; d <= 3; d++ {
		id := fmt.Sprintf("doc%d", d)
		b.docs[id] = store.Document{ID: id, Path: fmt.Sprintf("/papers/paper%d.md", d), Title: fmt.Sprintf("Paper %d", d), Format: "markdown"}
		for i := 0; i < 6; i++ {
			b.segs[id] = append(b.segs[id], store.Segment{
				ID: fmt.Sprintf("%s:%d", id, i), DocumentID: id, Index: i,
				Text:    fmt.Sprintf("Passage %d of paper %d: the measured effect holds in segment %d.", i, d, i),
				Section: []string{"Results"}, PageStart: i + 1,
			})
		}
	}
	return b
}

// aliasSeg maps source_k to a segment: k=1 → doc1:2, k=2 → doc2:3, k=3 → doc3:1.
func aliasSeg(k int) string {
	return map[int]string{1: "doc1:2", 2: "doc2:3", 3: "doc3:1"}[k]
}

func (b *fakeBackend) LibraryName() string { return b.library }
func (b *fakeBackend) LibrarySize() int    { return len(b.docs) }
func (b *fakeBackend) ModelName() string   { return "fake-model" }
func (b *fakeBackend) Extractive() bool    { return false }

func (b *fakeBackend) Ask(ctx context.Context, q string, emit func(rag.Event)) error {
	t := backend.Turn{Question: q}
	numbers := map[int]int{}
	send := func(e rag.Event) { emit(e); t.Events = append(t.Events, e) }
	var pending []rag.Support // checks to send after the next text
	s := b.answer
	var err error
	for s != "" && err == nil {
		if b.gate != nil {
			select {
			case <-b.gate:
			case <-ctx.Done():
				err = ctx.Err()
				continue
			}
		}
		if ctx.Err() != nil {
			err = ctx.Err()
			break
		}
		var k int
		if n, _ := fmt.Sscanf(s, "[source_%d]", &k); n == 1 && strings.HasPrefix(s, "[source_") {
			end := strings.IndexByte(s, ']') + 1
			s = s[end:]
			seg := aliasSeg(k)
			if seg == "" {
				send(rag.Event{Type: rag.EventUnknown, Text: fmt.Sprintf("source_%d", k)})
				continue
			}
			n, ok := numbers[k]
			if !ok {
				n = len(numbers) + 1
				numbers[k] = n
				sg, doc, _ := b.Segment(seg)
				src := rag.Source{Number: n, Alias: fmt.Sprintf("source_%d", k), SegmentID: seg, DocumentID: doc.ID,
					Title: doc.Title, Path: doc.Path, PageStart: sg.PageStart, Section: "Results", Snippet: sg.Text,
					FocusStart: b.focus[seg][0], FocusEnd: b.focus[seg][1], Boxes: sg.Boxes}
				t.Sources = append(t.Sources, src)
				send(rag.Event{Type: rag.EventCitation, Number: n, Source: &src})
				if v, ok := b.verdicts[seg]; ok {
					pending = append(pending, rag.Support{Number: n, Verdict: v, SegmentID: seg, FocusStart: 0, FocusEnd: len(sg.Text), Sentence: sg.Text})
				}
			}
			send(rag.Event{Type: rag.EventRef, Number: n})
			continue
		}
		n := min(b.chunk, len(s))
		if i := strings.Index(s[1:], "[source_"); i >= 0 && i+1 < n {
			n = i + 1
		}
		send(rag.Event{Type: rag.EventText, Text: s[:n]})
		s = s[n:]
		for i := range pending {
			send(rag.Event{Type: rag.EventSupport, Number: pending[i].Number, Support: &pending[i]})
		}
		pending = nil
	}
	if err != nil {
		t.Interrupted = true
		send(rag.Event{Type: rag.EventError, Text: "cancelled"})
	}
	emit(rag.Event{Type: rag.EventDone, Total: len(numbers)})
	b.mu.Lock()
	b.turns = append(b.turns, t)
	b.mu.Unlock()
	return err
}

func (b *fakeBackend) Segment(id string) (store.Segment, store.Document, bool) {
	doc, _, _ := strings.Cut(id, ":")
	for _, s := range b.segs[doc] {
		if s.ID == id {
			return s, b.docs[doc], true
		}
	}
	return store.Segment{}, store.Document{}, false
}
func (b *fakeBackend) Segments(docID string) []store.Segment { return b.segs[docID] }
func (b *fakeBackend) Add(ctx context.Context, paths []string, progress func(backend.AddProgress)) (string, error) {
	b.mu.Lock()
	b.added = append(b.added, paths)
	b.mu.Unlock()
	progress(backend.AddProgress{Stage: "loading", File: paths[0], FilesTotal: 1})
	return fmt.Sprintf("added %d", len(paths)), nil
}
func (b *fakeBackend) SwitchLibrary(ctx context.Context, name string) error {
	b.library = name
	b.NewConversation()
	return nil
}
func (b *fakeBackend) NewConversation()       { b.mu.Lock(); b.turns = nil; b.mu.Unlock() }
func (b *fakeBackend) ConversationID() string { return "fake" }
func (b *fakeBackend) Turns() []backend.Turn {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]backend.Turn(nil), b.turns...)
}
func (b *fakeBackend) Markdown() string { return "# conversation\n" }
func (b *fakeBackend) Save() error      { b.mu.Lock(); b.saved++; b.mu.Unlock(); return nil }

// Suggestions are the fake library's checked questions: the fake is a
// Suggester.
func (b *fakeBackend) Suggestions(n int) []string {
	out := []string{"What are effect sizes across sites?", "How does BM25 compare with dense retrieval?", "What are the threats to validity?"}
	return out[:min(n, len(out))]
}
