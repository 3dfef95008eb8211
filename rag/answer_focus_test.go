package rag

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/rag/llmtest"
	"github.com/ibid-dev/ibid/rag/retrieve"
	"github.com/ibid-dev/ibid/store"
)

// hierDoc is a document laid out as the hierarchical strategy lays it out:
// two parents (passages 0 and 1), then child index rows of each (their
// own text and offsets inside their parent) and a generated question.
func hierDoc() (store.Document, []store.Segment) {
	doc := store.Document{ID: "h", Title: "Hive Thermoregulation", Path: "/papers/hive.pdf", Format: "pdf",
		Meta: map[string]string{"passages": "2"}}
	p0 := "Worker bees warm the brood nest by shivering their flight muscles. " +
		"The nest core stays between 34 and 36 degrees Celsius even on cold nights. " +
		"In summer, foragers bring water that evaporates on the comb and cools it."
	p1 := "Drones take no part in heating. Their role is reproductive, and colonies evict them in autumn."
	text := p0 + "\n\n" + p1
	off1 := len(p0) + 2
	child := func(i int, parent string, start int, s string) store.Segment {
		return store.Segment{ID: fmt.Sprintf("h:%d", i), DocumentID: "h", Index: i, Text: s, Parent: parent,
			PageStart: 7, PageEnd: 7, Start: start, End: start + len(s)}
	}
	core := "The nest core stays between 34 and 36 degrees Celsius even on cold nights."
	segs := []store.Segment{
		{ID: "h:0", DocumentID: "h", Index: 0, Text: p0, PageStart: 7, PageEnd: 7, Start: 0, End: len(p0)},
		{ID: "h:1", DocumentID: "h", Index: 1, Text: p1, PageStart: 8, PageEnd: 8, Start: off1, End: off1 + len(p1)},
		child(2, "h:0", 0, p0[:strings.Index(p0, " The nest")]),
		child(3, "h:0", strings.Index(text, core), core),
		{ID: "h:4", DocumentID: "h", Index: 4, IndexText: "How warm is the brood nest kept?", Parent: "h:0"},
		child(5, "h:1", off1, p1),
	}
	doc.Segments = len(segs)
	return doc, segs
}

// focusRetriever returns fixed passages whatever the question.
type focusRetriever struct {
	doc      store.Document
	segs     []store.Segment
	passages []retrieve.Passage
}

func (f *focusRetriever) Search(ctx context.Context, q string, opt retrieve.Options) ([]retrieve.Passage, error) {
	return f.passages, nil
}

func (f *focusRetriever) Segment(ctx context.Context, id string) (store.Segment, store.Document, error) {
	for _, s := range f.segs {
		if s.ID == id {
			return s, f.doc, nil
		}
	}
	return store.Segment{}, store.Document{}, fmt.Errorf("segment %s: %w", id, store.ErrNotFound)
}

// TestFocus: a passage's focus is its best child hit inside it, checked
// against the parent's text; questions, plain neighbours, rows mirroring
// the whole parent and children of other parents give none.
func TestFocus(t *testing.T) {
	_, segs := hierDoc()
	p0, first, core, question, p1, mirror := segs[0], segs[2], segs[3], segs[4], segs[1], segs[5]
	hit := func(ss ...store.Segment) []retrieve.Hit {
		var hs []retrieve.Hit
		for i, s := range ss {
			hs = append(hs, retrieve.Hit{Segment: s, Rank: i + 1})
		}
		return hs
	}
	shifted := core
	shifted.Start, shifted.End = core.Start+1, core.End+1
	outside := core
	outside.Start, outside.End = p0.End-3, p0.End+len(core.Text)-3
	plain := p1
	plain.Parent = ""
	coreAt := strings.Index(p0.Text, core.Text)
	for _, c := range []struct {
		name       string
		parent     store.Segment
		hits       []retrieve.Hit
		start, end int
	}{
		{"child", p0, hit(core), coreAt, coreAt + len(core.Text)},
		{"best child first", p0, hit(core, first), coreAt, coreAt + len(core.Text)},
		{"first child at the parent's start", p0, hit(first, core), 0, len(first.Text)},
		{"question before the child", p0, hit(question, core), coreAt, coreAt + len(core.Text)},
		{"question only", p0, hit(question), 0, 0},
		{"no hits", p0, nil, 0, 0},
		{"plain neighbour", p0, hit(plain), 0, 0},
		{"child of another parent", p0, hit(mirror), 0, 0},
		{"row mirroring the whole parent", p1, hit(mirror), 0, 0},
		{"offsets off by one", p0, hit(shifted, first), 0, 0},
		{"offsets past the parent", p0, hit(outside), 0, 0},
	} {
		a, b := focus(c.parent, c.hits)
		if a != c.start || b != c.end {
			t.Errorf("%s: focus [%d, %d), want [%d, %d)", c.name, a, b, c.start, c.end)
		}
		if b > 0 && c.parent.Text[a:b] != c.hits[0].Segment.Text && c.parent.Text[a:b] != c.hits[1].Segment.Text {
			t.Errorf("%s: focus %q is no hit's text", c.name, c.parent.Text[a:b])
		}
	}
}

// TestSourceCarriesFocus: through a real model request, the citation of a
// parent passage whose child matched carries the child's place in the
// parent, on the wire and in the saved turn; the citation of a passage
// without child hits, whose citing sentence shares no term with it,
// carries none.
func TestSourceCarriesFocus(t *testing.T) {
	doc, segs := hierDoc()
	r := &focusRetriever{doc: doc, segs: segs, passages: []retrieve.Passage{
		{Segment: segs[0], Document: doc, Context: segs[:1], Rank: 0,
			Hits: []retrieve.Hit{{Segment: segs[4], Rank: 1}, {Segment: segs[3], Rank: 2}, {Segment: segs[2], Rank: 4}}},
		{Segment: segs[1], Document: doc, Context: segs[1:2], Rank: 3},
	}}
	srv := llmtest.New(llmtest.Reply{Chunks: llmtest.Split("The core stays warm [source_1]. Males stay idle [source_2].", 5)})
	defer srv.Close()
	conv := NewConversation("t")
	evs, err := collect(t, NewPipeline(r, ModelAnswerer(connect(t, srv)), PipelineOptions{}), conv, "How warm is the nest?")
	if err != nil {
		t.Fatal(err)
	}
	checkOrder(t, evs)
	var cites []*Source
	for _, e := range evs {
		if e.Type == EventCitation {
			cites = append(cites, e.Source)
		}
	}
	if len(cites) != 2 || cites[0].SegmentID != "h:0" || cites[1].SegmentID != "h:1" {
		t.Fatalf("citations %+v", cites)
	}
	s := cites[0]
	if s.FocusEnd == 0 || segs[0].Text[s.FocusStart:s.FocusEnd] != segs[3].Text {
		t.Errorf("source 1 focus [%d, %d), want the span of %q in its parent", s.FocusStart, s.FocusEnd, segs[3].Text)
	}
	if c := cites[1]; c.FocusStart != 0 || c.FocusEnd != 0 {
		t.Errorf("source 2 has no child hit and no term of its citing sentence, yet focus [%d, %d)", c.FocusStart, c.FocusEnd)
	}

	b, err := json.Marshal(Event{Type: EventCitation, Number: 1, Source: s})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`"focus_start":%d,"focus_end":%d`, s.FocusStart, s.FocusEnd)
	if !strings.Contains(string(b), want) {
		t.Errorf("wire form %s lacks %s", b, want)
	}
	var back Event
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Source.FocusStart != s.FocusStart || back.Source.FocusEnd != s.FocusEnd {
		t.Errorf("read back focus [%d, %d)", back.Source.FocusStart, back.Source.FocusEnd)
	}
	if b, _ := json.Marshal(Event{Type: EventCitation, Number: 2, Source: cites[1]}); strings.Contains(string(b), "focus") {
		t.Errorf("a source without focus writes it: %s", b)
	}
	if got := conv.Turns[0].Sources[0]; got.FocusStart != s.FocusStart || got.FocusEnd != s.FocusEnd {
		t.Errorf("the turn keeps focus [%d, %d)", got.FocusStart, got.FocusEnd)
	}
}
