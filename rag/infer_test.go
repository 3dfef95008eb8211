package rag

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/citations"
)

func TestPlaceRefs(t *testing.T) {
	events := []Event{{Type: EventText, Text: "ab"}, {Type: EventText, Text: "cd\n\nef"}}
	refs := []Event{
		{Type: EventCitation, Number: 1, Offset: 4},
		{Type: EventRef, Number: 1, Offset: 4},
		{Type: EventRef, Number: 1, Offset: 8},
	}
	turn := Turn{Events: placeRefs(events, refs)}
	if got := turn.Text(); got != "abcd[1]\n\nef[1]" {
		t.Errorf("got %q", got)
	}
}

func TestAttributeThreshold(t *testing.T) {
	ps := []offered{
		{k: 4, text: "Honey bees pollinate almond orchards in California."},
		{k: 7, text: "The Gulf Stream carries warm water toward Europe."},
	}
	text := "Bees pollinate almond orchards, in California.  \n\nSomething unrelated entirely here.\n\nwarm water"
	got := attribute(text, ps)
	if len(got) != 1 || got[0].k != 4 || text[:got[0].off] != "Bees pollinate almond orchards, in California." {
		t.Errorf("attributions %+v", got)
	}
}

// TestEventWire pins the wire form of each event (docs/answers.md).
func TestEventWire(t *testing.T) {
	src := &Source{Number: 2, Alias: "source_5", SegmentID: "d:3", DocumentID: "d", Title: "T", Path: "/p", PageStart: 3, PageEnd: 4, Section: "S", Snippet: "x"}
	cases := []struct {
		e    Event
		want string
	}{
		{Event{Type: EventText, Text: "hi"}, `{"type":"text","content":"hi"}`},
		{Event{Type: EventCitation, Number: 2, Source: src}, `{"type":"citation","display_number":2,"source_id":"source_5","segment_id":"d:3","document_id":"d","title":"T","path":"/p","page_start":3,"page_end":4,"section":"S","snippet":"x"}`},
		{Event{Type: EventRef, Number: 2}, `{"type":"ref","display_number":2}`},
		{Event{Type: EventRef, Number: 1, Inferred: true, Offset: 9}, `{"type":"ref","display_number":1,"inferred":true,"offset":9}`},
		{Event{Type: EventUnknown, Text: "source_99"}, `{"type":"unknown","raw":"source_99"}`},
		{Event{Type: EventError, Text: "boom"}, `{"type":"error","message":"boom"}`},
		{Event{Type: EventDone, Total: 1, Order: []string{"d:3"}, Report: &citations.Report{Order: []int{5}, Refs: 1}, Info: &AnswerInfo{Model: "m", Interrupted: true}},
			`{"type":"done","total_citations":1,"order":["d:3"],"report":{"interrupted":true,"model":"m","order":[5],"refs":1}}`},
		{Event{Type: EventDone}, `{"type":"done","total_citations":0,"order":[],"report":{"model":"","order":null,"refs":0}}`},
	}
	for _, c := range cases {
		b, err := json.Marshal(c.e)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.e.Type, b, c.want)
		}
		if strings.Contains(string(b), "\n") {
			t.Errorf("newline in wire form")
		}
		var back Event
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		b2, _ := json.Marshal(back)
		if string(b2) != string(b) {
			t.Errorf("round trip changed %s into %s", b, b2)
		}
	}
}
