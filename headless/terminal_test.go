package headless

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/llm"
	"github.com/ibid-dev/ibid/rag/llmtest"
	"github.com/ibid-dev/ibid/rag/ragtest"
	"github.com/ibid-dev/ibid/store"
)

func TestTerminalSafe(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"plain text, tabs\tand\nnewlines", "plain text, tabs\tand\nnewlines"},
		{"é 蜜蜂 😀", "é 蜜蜂 😀"},
		{"\x1b]0;pwned\x07", "␛]0;pwned␇"},
		{"\x1b[2J\x1b[H", "␛[2J␛[H"},
		{"nul\x00 cr\r del\x7f", "nul␀ cr␍ del␡"},
		{"c1 csi \u009b2J", "c1 csi \uFFFD2J"},
		{"raw 8-bit csi \x9b2J", "raw 8-bit csi \uFFFD2J"},
		{"cut rune \xe8\x9c", "cut rune \uFFFD\uFFFD"},
	} {
		if got := TerminalSafe(tc.in); got != tc.want {
			t.Errorf("TerminalSafe(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// hostile is model output and document text that would retitle the
// terminal window (OSC 0 ... BEL) and clear the screen (CSI 2 J).
const hostile = "Bees\x1b]0;pwned\x07 [source_1] and\x1b[2J mites [source_2]."

// runAnswer answers through the pipeline into format; model nil is the
// extractive answerer.
func runAnswer(t *testing.T, format string, lib *ragtest.Library, model *llm.Model) string {
	t.Helper()
	p := rag.NewPipeline(lib, rag.NewAnswerer(model), rag.PipelineOptions{})
	var out bytes.Buffer
	w, err := NewWriter(format, &out)
	if err != nil {
		t.Fatal(err)
	}
	err = p.Answer(context.Background(), rag.NewConversation("t"), "bees mites?", func(e rag.Event) {
		if err := w.Write(e); err != nil {
			t.Errorf("write: %v", err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestNoTerminalControlReachesTheTerminal feeds escape sequences through
// the model's answer and through a document's text (shown in a footnote's
// snippet, and quoted by the extractive answerer): the text and Markdown
// faces show them as visible pictures; NDJSON carries them unchanged.
func TestNoTerminalControlReachesTheTerminal(t *testing.T) {
	t.Parallel()
	lib := ragtest.New()
	lib.All = true
	lib.Add(store.Document{ID: "d1", Title: "Bees and Flowers", Path: "/papers/bees.pdf"},
		ragtest.Seg("Honey bees\x1b]0;pwned\x07 pollinate almond orchards\x1b[2J in California.", 3, "2 Methods", "2.1 Sites"),
		ragtest.Seg("Mites spread viruses that collapse bee colonies.", 4, "3 Results"))
	srv := llmtest.New(llmtest.Reply{Chunks: llmtest.Split(hostile, 3)})
	defer srv.Close()
	model := connect(t, srv)
	for _, format := range []string{"text", "markdown"} {
		for name, m := range map[string]*llm.Model{"model": model, "extractive": nil} {
			got := runAnswer(t, format, lib, m)
			if i := strings.IndexFunc(got, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\t' }); i >= 0 {
				t.Errorf("%s/%s: control character %q reached the output:\n%q", format, name, got[i], got)
			}
			shown := strings.ReplaceAll(got, `\`, "") // the faces escape brackets
			if !strings.Contains(shown, "␛]0;pwned␇") || !strings.Contains(shown, "␛[2J") {
				t.Errorf("%s/%s: the sequences are not shown as pictures:\n%s", format, name, got)
			}
		}
	}
	got := runAnswer(t, "ndjson", lib, model)
	var text strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(got), "\n") {
		var ev rag.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if ev.Type == rag.EventText {
			text.WriteString(ev.Text)
		}
		if ev.Type == rag.EventCitation && ev.Source.SegmentID == "d1:0" && !strings.Contains(ev.Source.Snippet, "\x1b]0;pwned\x07") {
			t.Errorf("ndjson snippet changed: %q", ev.Source.Snippet)
		}
	}
	if want := "Bees\x1b]0;pwned\x07  and\x1b[2J mites ."; text.String() != want {
		t.Errorf("ndjson text %q, want %q (unchanged)", text.String(), want)
	}
	if strings.ContainsRune(got, 0x1b) {
		t.Errorf("ndjson wrote a raw ESC: %q", got)
	}
}
