package citations

import (
	"encoding/json"
	"testing"
)

func TestRegistryAcrossAnswers(t *testing.T) {
	t.Parallel()
	reg := NewRegistry()
	opt := Options{Registry: reg}
	first := stream(t, ModeInline, "a [source_4] b [source_2]", opt, bytewise(25))
	if got := plain(first); got != "a [1] b [2]" {
		t.Fatalf("first answer %q", got)
	}
	second := stream(t, ModeInline, "c [source_9] d [source_2] e [source_4]", opt, whole)
	if got := plain(second); got != "c [3] d [2] e [1]" {
		t.Fatalf("second answer %q", got)
	}
	rep := second[len(second)-1].Report
	if got := rep.String(); got != "mode=inline order=[9 2 4] refs=3 numbers=[3 2 1]" {
		t.Errorf("report %s", got)
	}
	// A citation event comes at each answer's first appearance, with the
	// kept number.
	if second[1].Kind != KindCitation || second[1].Number != 3 || second[4].Kind != KindCitation || second[4].Number != 2 {
		t.Errorf("events %s", show(second))
	}

	b, err := json.Marshal(reg)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"order":[4,2,9]}` {
		t.Errorf("marshal %s", b)
	}
	var back Registry
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if n, ok := back.Number(9); !ok || n != 3 {
		t.Errorf("after round trip source_9 = %d %v", n, ok)
	}
	if _, ok := back.Number(5); ok {
		t.Error("source_5 numbered without being cited")
	}
	// Resumed, numbering goes on.
	third := Render(ModeSections, `{"sections": [{"text": "f", "source_ids": ["source_5", "source_4"]}]}`, Options{Registry: &back})
	if got := plain(third); got != "f[4][1]" {
		t.Errorf("resumed answer %q", got)
	}
	if err := json.Unmarshal([]byte(`{"order":[1,1]}`), &back); err == nil {
		t.Error("a repeated alias was accepted")
	}
	if b, _ := json.Marshal(struct{ R Registry }{*reg}); string(b) != `{"R":{"order":[4,2,9]}}` {
		t.Errorf("registry by value marshals to %s", b)
	}
	var empty *Registry = NewRegistry()
	if b, _ := json.Marshal(empty); string(b) != `{"order":[]}` {
		t.Errorf("empty registry marshals to %s", b)
	}
}

// TestRegistryChunkInvariance: with a shared registry, stream and Render
// agree when each starts from the same ledger.
func TestRegistryChunkInvariance(t *testing.T) {
	t.Parallel()
	base := NewRegistry()
	base.Assign(7)
	base.Assign(3)
	for _, tc := range inlineCases {
		want := show(Render(ModeInline, tc.in, Options{Registry: base.Clone()}))
		got := show(stream(t, ModeInline, tc.in, Options{Registry: base.Clone()}, bytewise(len(tc.in))))
		if got != want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, want)
		}
	}
}

func TestModesAndNames(t *testing.T) {
	t.Parallel()
	for _, m := range []Mode{ModeInline, ModeJSON, ModeSections} {
		back, err := ParseMode(m.String())
		if err != nil || back != m {
			t.Errorf("ParseMode(%q) = %v, %v", m.String(), back, err)
		}
	}
	if _, err := ParseMode("xml"); err == nil {
		t.Error("ParseMode accepted xml")
	}
	names := ""
	for k := KindText; k <= KindDone+1; k++ {
		names += k.String() + " "
	}
	if names != "text citation ref unknown done kind(5) " {
		t.Errorf("kind names %q", names)
	}
	e := Event{Kind: KindUnknown, Text: []byte("source_9"), Source: 9}
	if e.String() != `unknown("source_9")` {
		t.Errorf("event %s", e)
	}
}

// TestAfterFlush: writes after Flush are ignored and Flush is idempotent.
func TestAfterFlush(t *testing.T) {
	t.Parallel()
	for _, m := range []Mode{ModeInline, ModeJSON, ModeSections} {
		var c collector
		s := NewStream(m, c.handle, Options{})
		s.Write([]byte("[source_1"))
		s.Flush()
		s.Write([]byte("]"))
		s.Flush()
		dones := 0
		for _, e := range c.evs {
			if e.Kind == KindDone {
				dones++
			}
		}
		if dones != 1 || c.evs[len(c.evs)-1].Kind != KindDone {
			t.Errorf("%s: %s", m, show(c.evs))
		}
	}
}
