package rag

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSupportEventWire(t *testing.T) {
	s := &Support{Number: 2, Verdict: Unsupported, SegmentID: "d:3", FocusStart: 4, FocusEnd: 19, Score: 0.05,
		Sentence: "Mites spread virus.", Claim: "Mites cause winter losses.", Refined: true}
	b, err := json.Marshal(Event{Type: EventSupport, Support: s})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"support","display_number":2,"verdict":"unsupported","segment_id":"d:3","focus_start":4,"focus_end":19,"score":0.05,"sentence":"Mites spread virus.","claim":"Mites cause winter losses.","refined":true}`
	if string(b) != want {
		t.Errorf("wire form\n%s\nwant\n%s", b, want)
	}
	var e Event
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	if e.Type != EventSupport || e.Number != 2 || e.Support == nil || *e.Support != *s {
		t.Errorf("read back %+v %+v", e, e.Support)
	}
	if _, err := json.Marshal(Event{Type: EventSupport}); err == nil {
		t.Error("a support event without its verdict was written")
	}
	if err := json.Unmarshal([]byte(`{"type":"support","display_number":1,"verdict":"maybe"}`), &e); err == nil || !strings.Contains(err.Error(), "maybe") {
		t.Errorf("an unknown verdict was read: %v", err)
	}
	// A citation carries its segment's hash, and the offered segment
	// when the support lies in a neighbour.
	b, _ = json.Marshal(Event{Type: EventCitation, Number: 1, Source: &Source{Number: 1, SegmentID: "d:4", SegmentHash: "ab12", PassageID: "d:3"}})
	if !strings.Contains(string(b), `"segment_hash":"ab12"`) || !strings.Contains(string(b), `"passage_id":"d:3"`) {
		t.Errorf("citation %s", b)
	}
}
