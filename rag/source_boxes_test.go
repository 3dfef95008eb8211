package rag

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/rag/ragtest"
	"github.com/ibid-dev/ibid/store"
)

// A citation carries the boxes of its segment, so a client that draws the
// page can point at the passage; JSON names them "boxes".
func TestSourceCarriesBoxes(t *testing.T) {
	boxes := []store.Box{{Page: 3, X0: 72, Y0: 100.5, X1: 300, Y1: 180}, {Page: 4, X0: 72, Y0: 72, X1: 300, Y1: 90.25}}
	seg := ragtest.Seg("Honey bees pollinate almond orchards in California.", 3)
	seg.PageEnd, seg.Boxes = 4, slices.Clone(boxes)
	lib := ragtest.New().
		Add(store.Document{ID: "bees", Title: "Bees", Path: "bees.pdf", Pages: 4}, seg).
		Add(store.Document{ID: "notes", Title: "Notes", Path: "notes.md"}, ragtest.Seg("Almond orchards bloom in February.", 0))
	p := NewPipeline(lib, ExtractiveAnswerer(), PipelineOptions{})
	evs, err := collect(t, p, NewConversation("t"), "Which bees pollinate almond orchards?")
	if err != nil {
		t.Fatal(err)
	}
	seen, bees := 0, false
	for _, e := range evs {
		if e.Type != EventCitation {
			continue
		}
		seen++
		js, err := json.Marshal(e.Source)
		if err != nil {
			t.Fatal(err)
		}
		switch e.Source.DocumentID {
		case "bees":
			bees = true
			if !slices.Equal(e.Source.Boxes, boxes) {
				t.Errorf("boxes %v, want %v", e.Source.Boxes, boxes)
			}
			if !strings.Contains(string(js), `"boxes":[{"page":3,"x0":72,"y0":100.5,"x1":300,"y1":180}`) {
				t.Errorf("JSON %s", js)
			}
		default:
			if e.Source.Boxes != nil || strings.Contains(string(js), "boxes") {
				t.Errorf("a Markdown source has boxes: %s", js)
			}
		}
	}
	if seen == 0 || !bees {
		t.Fatalf("no citation in %+v", evs)
	}
	// The source does not share the segment's slice.
	seg.Boxes[0].Page = 99
	for _, e := range evs {
		if e.Type == EventCitation && e.Source.DocumentID == "bees" && e.Source.Boxes[0].Page != 3 {
			t.Error("the source shares the segment's boxes")
		}
	}
}
