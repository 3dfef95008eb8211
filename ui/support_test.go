package ui

import (
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/rag"
)

// TestUnsupportedFootnote: a footnote whose passage does not support its
// sentence reads [n✗] in the answer (without colour too), its tooltip
// says so, and the sources pane counts it; a supported one is drawn as
// before.
func TestUnsupportedFootnote(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		b := newFakeBackend(sampleAnswer)
		b.verdicts = map[string]rag.Verdict{"doc2:3": rag.Unsupported, "doc1:2": rag.Supported}
		d := newDrive(t, b, size[0], size[1])
		d.typeText("q")
		d.send(press("enter"))
		scr := d.screen()
		if !strings.Contains(scr, "robust [1✗]") || !strings.Contains(scr, "sites [2]") || strings.Contains(scr, "[2✗]") {
			t.Errorf("%v: chips:\n%s", size, scr)
		}
		d.send(press("tab"))
		d.send(press("]"))
		scr = d.screen()
		if !strings.Contains(scr, "✗ unsupported: the passage does not say this") {
			t.Errorf("%v: the tooltip does not say so:\n%s", size, scr)
		}
		if size[0] < sideMinWidth {
			d.send(press("ctrl+s"))
			scr = d.screen()
		}
		if !strings.Contains(scr, "Sources (3, 1 unsupported)") || !strings.Contains(scr, "[1✗] Paper 2") {
			t.Errorf("%v: the sources pane:\n%s", size, scr)
		}
	}
}

// TestVerdictRefinedRedraws: a verdict that changes after the chip was
// drawn (a model refined it) redraws the chip, in a finished block too,
// and the answer's text stays whole.
func TestVerdictRefinedRedraws(t *testing.T) {
	t.Parallel()
	var d answerDoc
	for _, e := range []rag.Event{
		{Type: rag.EventText, Text: "First claim "},
		{Type: rag.EventRef, Number: 1},
		{Type: rag.EventText, Text: ".\n\nSecond claim "},
		{Type: rag.EventRef, Number: 2},
		{Type: rag.EventText, Text: " and again "},
		{Type: rag.EventRef, Number: 1},
		{Type: rag.EventText, Text: ".\n\nTail"},
	} {
		d.applyEvent(e)
	}
	sup := func(n int, v rag.Verdict) rag.Event {
		return rag.Event{Type: rag.EventSupport, Number: n, Support: &rag.Support{Number: n, Verdict: v}}
	}
	d.applyEvent(sup(1, rag.Unsupported))
	want := "First claim ⟦1✗⟧.\n\nSecond claim ⟦2⟧ and again ⟦1✗⟧.\n\nTail"
	if string(d.src) != want {
		t.Errorf("source %q, want %q", d.src, want)
	}
	for _, b := range d.blocks {
		if n := strings.Count(string(d.src[b.start:b.end]), "⟦"); n != b.nodes {
			t.Errorf("block %q holds %d nodes, counts %d", d.src[b.start:b.end], n, b.nodes)
		}
	}
	for _, nd := range d.nodes {
		if !strings.HasPrefix(string(d.src[nd.off:]), "⟦") {
			t.Errorf("node %d at %d: %q", nd.num, nd.off, d.src[nd.off:])
		}
	}
	d.applyEvent(sup(1, rag.Supported)) // refined: supported after all
	if string(d.src) != strings.ReplaceAll(want, "✗", "") {
		t.Errorf("after refining: %q", d.src)
	}
	d.applyEvent(rag.Event{Type: rag.EventRef, Number: 1})
	d.applyEvent(sup(2, rag.Unsupported))
	d.applyEvent(rag.Event{Type: rag.EventRef, Number: 2}) // a later reference is drawn marked at once
	if !strings.HasSuffix(string(d.src), "Tail⟦1⟧⟦2✗⟧") {
		t.Errorf("later references: %q", d.src)
	}
}
