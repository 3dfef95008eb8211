package headless

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/llmtest"
	"github.com/ibid-dev/ibid/rag/retrieve"
	"github.com/ibid-dev/ibid/store"
)

// fakeLibrary is a two-document library: every search returns its
// segments in order.
type fakeLibrary struct {
	docs map[string]store.Document
	segs []store.Segment
}

func newFakeLibrary() *fakeLibrary {
	l := &fakeLibrary{docs: map[string]store.Document{
		"d1": {ID: "d1", Title: "Bees and Flowers", Path: "/papers/bees.pdf"},
		"d2": {ID: "d2", Title: "Ocean Currents", URL: "https://example.org/ocean"},
	}}
	texts := []struct {
		doc, text string
		page      int
		sec       []string
	}{
		{"d1", "Honey bees pollinate almond orchards in California.", 3, []string{"2 Methods", "2.1 Sites"}},
		{"d1", "Mites spread viruses that collapse bee colonies.", 4, []string{"3 Results"}},
		{"d2", "The Gulf Stream carries warm water toward Europe.", 0, nil},
	}
	idx := map[string]int{}
	for _, t := range texts {
		i := idx[t.doc]
		idx[t.doc]++
		l.segs = append(l.segs, store.Segment{ID: t.doc + ":" + strconv.Itoa(i), DocumentID: t.doc, Index: i,
			Text: t.text, PageStart: t.page, PageEnd: t.page, Section: t.sec})
	}
	return l
}

func (l *fakeLibrary) Search(ctx context.Context, q string, opt retrieve.Options) ([]retrieve.Passage, error) {
	var out []retrieve.Passage
	for _, s := range l.segs {
		out = append(out, retrieve.Passage{Segment: s, Document: l.docs[s.DocumentID], Score: 1})
	}
	return out, nil
}

func (l *fakeLibrary) Segment(id string) (store.Segment, store.Document, bool) {
	for _, s := range l.segs {
		if s.ID == id {
			return s, l.docs[s.DocumentID], true
		}
	}
	return store.Segment{}, store.Document{}, false
}

func (l *fakeLibrary) Segments(doc string) []store.Segment {
	var out []store.Segment
	for _, s := range l.segs {
		if s.DocumentID == doc {
			out = append(out, s)
		}
	}
	return out
}

func connect(t testing.TB, srv *llmtest.Server) *rag.Model {
	t.Helper()
	m, err := rag.ConnectModel(context.Background(), rag.ModelConfig{BaseURL: srv.BaseURL(), Model: "fake-model"})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The same answer in the three forms a model may write it.
const (
	inlineAnswer   = "Honey bees pollinate almonds [source_1]. Mites collapse colonies [source_2, source_1]. Unknown [source_77]."
	jsonAnswer     = `{"body": "Honey bees pollinate almonds [source_1]. Mites collapse colonies [source_2, source_1]. Unknown [source_77].", "citedSourceIds": ["source_1", "source_2"]}`
	sectionsAnswer = `{"sections": [{"text": "Honey bees pollinate almonds.", "source_ids": ["source_1"]}, {"text": " Mites collapse colonies.", "source_ids": ["source_2", "source_1"]}, {"text": " Unknown.", "source_ids": ["source_77"]}]}`
)

var answers = map[string]string{"inline": inlineAnswer, "json": jsonAnswer, "sections": sectionsAnswer}

// expected plain renderings per cite format.
var plainWant = map[string]string{
	"inline":   "Honey bees pollinate almonds [1]. Mites collapse colonies [2][1]. Unknown [?].",
	"json":     "Honey bees pollinate almonds [1]. Mites collapse colonies [2][1]. Unknown [?].",
	"sections": "Honey bees pollinate almonds.[1] Mites collapse colonies.[2][1] Unknown.[?]",
}

// readEvents reads SSE events from lines until done; each is returned as
// (type, data).
type sseEvent struct{ typ, data string }

func parseSSE(t *testing.T, text string) []sseEvent {
	t.Helper()
	var out []sseEvent
	for _, block := range strings.Split(strings.TrimSpace(text), "\n\n") {
		lines := strings.Split(block, "\n")
		if len(lines) != 2 || !strings.HasPrefix(lines[0], "event: ") || !strings.HasPrefix(lines[1], "data: ") {
			t.Fatalf("malformed SSE block %q", block)
		}
		out = append(out, sseEvent{strings.TrimPrefix(lines[0], "event: "), strings.TrimPrefix(lines[1], "data: ")})
	}
	return out
}

func waitGone(t *testing.T, srv *llmtest.Server) {
	t.Helper()
	select {
	case <-srv.Gone:
	case <-time.After(5 * time.Second):
		t.Fatal("the model server never saw its request end")
	}
}
