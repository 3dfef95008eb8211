package rag

import (
	"testing"

	"github.com/ibid-dev/ibid/rag/ragtest"
	"github.com/ibid-dev/ibid/store"
)

// References are not offered to the model unless the pipeline asks for
// them.
func TestReferencesNotOffered(t *testing.T) {
	lib := ragtest.New().Add(store.Document{ID: "p", Title: "Paper", Path: "p.pdf"},
		ragtest.Seg("Okapis browse on leaves in the forest.", 1, "1 Introduction"),
		ragtest.Seg("Okapi forest ecology, Smith 2020, Journal of Okapi Studies.", 9, "References"))
	for _, refs := range []bool{false, true} {
		p := NewPipeline(lib, ExtractiveAnswerer(), PipelineOptions{References: refs})
		conv := NewConversation("t")
		if _, err := collect(t, p, conv, "okapi forest smith journal"); err != nil {
			t.Fatal(err)
		}
		cited := false
		for _, s := range conv.Turns[0].Sources {
			cited = cited || s.SegmentID == "p:1"
		}
		if cited != refs {
			t.Errorf("References %v: the reference was cited %v (%+v)", refs, cited, conv.Turns[0].Sources)
		}
	}
}
