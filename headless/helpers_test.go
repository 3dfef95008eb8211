package headless

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/rag/llm"
	"github.com/ibid-dev/ibid/rag/llmtest"
	"github.com/ibid-dev/ibid/rag/ragtest"
	"github.com/ibid-dev/ibid/store"
)

// newFakeLibrary is a two-document library: every search returns its
// segments in order.
func newFakeLibrary() *ragtest.Library {
	l := ragtest.New()
	l.All = true
	l.Add(store.Document{ID: "d1", Title: "Bees and Flowers", Path: "/papers/bees.pdf"},
		ragtest.Seg("Honey bees pollinate almond orchards in California.", 3, "2 Methods", "2.1 Sites"),
		ragtest.Seg("Mites spread viruses that collapse bee colonies.", 4, "3 Results"))
	l.Add(store.Document{ID: "d2", Title: "Ocean Currents", URL: "https://example.org/ocean"},
		ragtest.Seg("The Gulf Stream carries warm water toward Europe.", 0))
	return l
}

func connect(t testing.TB, srv *llmtest.Server) *llm.Model {
	t.Helper()
	m, err := llm.Connect(context.Background(), llm.ModelConfig{Config: llm.Config{BaseURL: srv.BaseURL()}, Model: "fake-model"})
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
