package headless

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/rag"
)

// supportedAnswer is an answer's events with two footnotes: the first
// supported, the second refined to unsupported by a model.
func supportedAnswer() []rag.Event {
	src := func(n int, title string) *rag.Source {
		return &rag.Source{Number: n, SegmentID: "d:" + title, Title: title, Snippet: "Start of " + title + "."}
	}
	return []rag.Event{
		{Type: rag.EventCitation, Number: 1, Source: src(1, "Bees")},
		{Type: rag.EventText, Text: "Bees pollinate almonds "},
		{Type: rag.EventRef, Number: 1},
		{Type: rag.EventText, Text: ". Mites cause winter losses "},
		{Type: rag.EventSupport, Number: 1, Support: &rag.Support{Number: 1, Verdict: rag.Supported, SegmentID: "d:Bees", FocusStart: 0, FocusEnd: 30, Score: 0.9, Sentence: "Honey bees pollinate almonds."}},
		{Type: rag.EventCitation, Number: 2, Source: src(2, "Mites")},
		{Type: rag.EventRef, Number: 2},
		{Type: rag.EventText, Text: "."},
		{Type: rag.EventSupport, Number: 2, Support: &rag.Support{Number: 2, Verdict: rag.Partial, SegmentID: "d:Mites", FocusEnd: 20, Score: 0.4, Sentence: "Mites were counted."}},
		{Type: rag.EventSupport, Number: 2, Support: &rag.Support{Number: 2, Verdict: rag.Unsupported, SegmentID: "d:Mites", FocusEnd: 20, Score: 0.4, Sentence: "Mites were counted.", Refined: true}},
		{Type: rag.EventDone, Total: 2},
	}
}

func write(t *testing.T, format string, evs []rag.Event) string {
	t.Helper()
	var b bytes.Buffer
	w, err := NewWriter(format, &b)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

func TestTextMarksUnsupported(t *testing.T) {
	t.Parallel()
	got := write(t, "text", supportedAnswer())
	want := "Bees pollinate almonds [1]. Mites cause winter losses [2].\n\nSources:\n" +
		"[1] Bees\n" +
		"[2] Unsupported: the passage does not say this. Mites\n" +
		"\nNot supported by the passages they cite: [2].\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestMarkdownQuotesTheSupportingSentence(t *testing.T) {
	t.Parallel()
	got := write(t, "markdown", supportedAnswer())
	want := "Bees pollinate almonds[^1]. Mites cause winter losses[^2].\n\n" +
		`[^1]: Bees: "Honey bees pollinate almonds."` + "\n" +
		`[^2]: Mites: "Mites were counted." *(unsupported: the passage does not say this)*` + "\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// Spaces are held back only before a reference, and never inside code.
	evs := []rag.Event{
		{Type: rag.EventText, Text: "Run `a  "},
		{Type: rag.EventText, Text: "b` now  "},
		{Type: rag.EventText, Text: "and then "},
		{Type: rag.EventUnknown, Text: "source_9"},
		{Type: rag.EventDone},
	}
	if got := write(t, "markdown", evs); !strings.HasPrefix(got, "Run `a  b` now  and then \\[?\\]") {
		t.Errorf("spaces: %q", got)
	}
}

func TestNDJSONCarriesSupport(t *testing.T) {
	t.Parallel()
	got := write(t, "ndjson", supportedAnswer())
	for _, want := range []string{
		`{"type":"support","display_number":2,"verdict":"unsupported","segment_id":"d:Mites","focus_start":0,"focus_end":20,"score":0.4,"sentence":"Mites were counted.","refined":true}`,
		`{"type":"support","display_number":1,"verdict":"supported"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("ndjson lacks %s:\n%s", want, got)
		}
	}
}

func TestSSECarriesSupport(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	w := &SSEWriter{w: &b}
	for _, e := range supportedAnswer() {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(b.String(), "event: support\ndata: {\"type\":\"support\",\"display_number\":1,\"verdict\":\"supported\"") {
		t.Errorf("SSE:\n%s", b.String())
	}
}
