package headless

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/citations"
	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/llmtest"
)

// answer runs one answer of the fake model (chunks of 3 bytes, so tokens
// are split) through the pipeline into a writer of format.
func answer(t *testing.T, format, cite, reply string) string {
	t.Helper()
	srv := llmtest.New(llmtest.Reply{Chunks: llmtest.Split(reply, 3), Pings: 1})
	defer srv.Close()
	mode, err := citations.ParseMode(cite)
	if err != nil {
		t.Fatal(err)
	}
	p := rag.NewPipeline(newFakeLibrary(), rag.ModelAnswerer(connect(t, srv)), rag.PipelineOptions{CiteFormat: mode})
	var out bytes.Buffer
	w, err := NewWriter(format, &out)
	if err != nil {
		t.Fatal(err)
	}
	err = p.Answer(context.Background(), rag.NewConversation("t"), "bees?", func(e rag.Event) {
		if err := w.Write(e); err != nil {
			t.Errorf("write: %v", err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func TestFormatsTimesCiteFormats(t *testing.T) {
	t.Parallel()
	for _, cite := range []string{"inline", "json", "sections"} {
		t.Run("text/"+cite, func(t *testing.T) {
			got := answer(t, "text", cite, answers[cite])
			want := plainWant[cite] + "\n\nSources:\n" +
				"[1] Bees and Flowers, p. 3, § 2 Methods › 2.1 Sites, /papers/bees.pdf\n" +
				"[2] Bees and Flowers, p. 4, § 3 Results, /papers/bees.pdf\n"
			if got != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
		})
		t.Run("markdown/"+cite, func(t *testing.T) {
			got := answer(t, "markdown", cite, answers[cite])
			body := strings.NewReplacer(" [1]", "[^1]", " [2]", "[^2]", "[1]", "[^1]", "[2]", "[^2]", "[?]", `\[?\]`).Replace(plainWant[cite])
			want := body + "\n\n" +
				`[^1]: Bees and Flowers, p. 3, § 2 Methods › 2.1 Sites, /papers/bees.pdf: "Honey bees pollinate almond orchards in California."` + "\n" +
				`[^2]: Bees and Flowers, p. 4, § 3 Results, /papers/bees.pdf: "Mites spread viruses that collapse bee colonies."` + "\n"
			if got != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
		})
		t.Run("ndjson/"+cite, func(t *testing.T) {
			got := answer(t, "ndjson", cite, answers[cite])
			var text strings.Builder
			var types []string
			for _, line := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
				var m map[string]any
				if err := json.Unmarshal([]byte(line), &m); err != nil {
					t.Fatalf("line %q: %v", line, err)
				}
				typ := m["type"].(string)
				types = append(types, typ)
				switch typ {
				case "text":
					text.WriteString(m["content"].(string))
				case "ref":
					text.WriteString(rag.RefText(int(m["display_number"].(float64))))
				case "unknown":
					text.WriteString(rag.UnknownText)
					if m["raw"] != "source_77" {
						t.Errorf("unknown raw = %v", m["raw"])
					}
				case "citation":
					for _, f := range []string{"display_number", "source_id", "segment_id", "title", "path", "page_start", "section", "snippet"} {
						if _, ok := m[f]; !ok {
							t.Errorf("citation lacks %s: %s", f, line)
						}
					}
				case "done":
					if m["total_citations"].(float64) != 2 {
						t.Errorf("done: %s", line)
					}
					order := m["order"].([]any)
					if len(order) != 2 || order[0] != "d1:0" || order[1] != "d1:1" {
						t.Errorf("order %v", order)
					}
					rep := m["report"].(map[string]any)
					if rep["model"] != "fake-model" {
						t.Errorf("report %v", rep)
					}
				}
			}
			if text.String() != plainWant[cite] {
				t.Errorf("ndjson text %q want %q", text.String(), plainWant[cite])
			}
			if types[len(types)-1] != "done" {
				t.Errorf("last event %s", types[len(types)-1])
			}
		})
	}
}

func TestTextWriterInferredAndExtractive(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	w := &TextWriter{prose: prose{w: &out}}
	src := rag.Source{Number: 1, Alias: "source_1", SegmentID: "d:0", Title: "T", Path: "/p.md", PageStart: 2, PageEnd: 3, Inferred: true}
	for _, e := range []rag.Event{
		{Type: rag.EventText, Text: "Some claim."},
		{Type: rag.EventCitation, Number: 1, Source: &src, Inferred: true},
		{Type: rag.EventRef, Number: 1, Inferred: true, Offset: 11},
		{Type: rag.EventDone, Total: 1, Inferred: true, Info: &rag.AnswerInfo{Model: "extractive", Extractive: true, Inferred: true, Note: rag.ExtractiveNote}},
	} {
		w.Write(e)
	}
	got := out.String()
	for _, want := range []string{"Some claim.\n", "inferred by text overlap: [1]", "[1] T, pp. 2–3, /p.md (inferred)", "Note: This answer is extractive"} {
		if !strings.Contains(got, want) {
			t.Errorf("text output lacks %q:\n%s", want, got)
		}
	}
}

// A source whose path (or title, or section) holds line breaks is listed
// on one line, the breaks shown as ␤: a file may be named so, and the list
// must stay one line per source.
func TestTextWriterSourceOnOneLine(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	w := &TextWriter{prose: prose{w: &out}}
	src := rag.Source{Number: 1, Alias: "source_1", SegmentID: "d:0", Title: "Two\nlines", Section: "a\tb", Path: "/tmp/evil\nname\r\n[2] forged.md"}
	for _, e := range []rag.Event{
		{Type: rag.EventText, Text: "A claim"},
		{Type: rag.EventCitation, Number: 1, Source: &src},
		{Type: rag.EventRef, Number: 1, Offset: 7},
		{Type: rag.EventDone, Total: 1},
	} {
		w.Write(e)
	}
	_, list, ok := strings.Cut(out.String(), "Sources:\n")
	if !ok {
		t.Fatalf("no source list:\n%s", out.String())
	}
	if want := "[1] Two␤lines, § a␉b, /tmp/evil␤name␍␤\\[2] forged.md\n"; list != want {
		t.Errorf("source list %q, want %q", list, want)
	}
}
