package headless

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/llmtest"
)

// replyOf renders evs with a Reply.
func replyOf(t *testing.T, opt ReplyOptions, evs []rag.Event) (string, []Footnote) {
	t.Helper()
	r := NewReply(nil, opt)
	var b strings.Builder
	for _, e := range evs {
		s, _ := r.Add(context.Background(), e)
		b.WriteString(s)
	}
	return b.String(), r.Footnotes()
}

// TestReplyTakesSupport: a footnote's support event gives it its verdict,
// claim and sentence (the quote), a refined verdict replacing the first;
// the sources list says which passages do not support their footnotes,
// and a last line names them. The text already written is not changed.
func TestReplyTakesSupport(t *testing.T) {
	t.Parallel()
	got, fns := replyOf(t, ReplyOptions{Sources: true}, supportedAnswer())
	want := "Bees pollinate almonds [1]. Mites cause winter losses [2].\n\nSources:\n" +
		"[1] Bees: “Honey bees pollinate almonds.”\n" +
		"[2] Unsupported: the passage does not say this. Mites: “Mites were counted.”\n" +
		"\nNot supported by the passages they cite: [2].\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if len(fns) != 2 || fns[0].Verdict != rag.Supported || fns[0].Quote != "Honey bees pollinate almonds." || fns[0].FocusEnd != 30 ||
		fns[1].Verdict != rag.Unsupported || !fns[1].Refined || fns[1].Quote != "Mites were counted." {
		t.Errorf("footnotes %+v", fns)
	}
	md, _ := replyOf(t, ReplyOptions{Sources: true, Markdown: true}, supportedAnswer())
	for _, want := range []string{
		"- [2] *Unsupported: the passage does not say this.* Mites: “Mites were counted.”\n",
		"\n\n**Not supported by the passages they cite: [2].**\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	// Without a support event a footnote has no verdict, and nothing is
	// said of it.
	var unchecked []rag.Event
	for _, e := range supportedAnswer() {
		if e.Type != rag.EventSupport {
			unchecked = append(unchecked, e)
		}
	}
	got, fns = replyOf(t, ReplyOptions{Sources: true}, unchecked)
	if strings.Contains(got, "support") || fns[1].Verdict != "" || fns[1].Quote != "" {
		t.Errorf("unchecked: %s %+v", got, fns)
	}
}

// TestReplySupportInANeighbour: support found in a neighbour of the
// segment cited moves the footnote there (segment_id, focus), keeping the
// segment offered as passage_id.
func TestReplySupportInANeighbour(t *testing.T) {
	t.Parallel()
	evs := []rag.Event{
		{Type: rag.EventCitation, Number: 1, Source: &rag.Source{Number: 1, SegmentID: "d:0", Title: "Bees", FocusStart: 2, FocusEnd: 9}},
		{Type: rag.EventText, Text: "Bees pollinate almonds "},
		{Type: rag.EventRef, Number: 1},
		{Type: rag.EventText, Text: "."},
		{Type: rag.EventSupport, Number: 1, Support: &rag.Support{Number: 1, Verdict: rag.Supported, SegmentID: "d:1", FocusStart: 5, FocusEnd: 34, Sentence: "Honey bees pollinate almonds."}},
		{Type: rag.EventDone, Total: 1},
	}
	_, fns := replyOf(t, ReplyOptions{}, evs)
	if f := fns[0]; f.SegmentID != "d:1" || f.PassageID != "d:0" || f.FocusStart != 5 || f.FocusEnd != 34 || f.Verdict != rag.Supported {
		t.Errorf("footnote %+v", f)
	}
}

// unsupportedAnswer cites the bees passage for a claim it does not make,
// and the mites passage for one it makes.
const unsupportedAnswer = "Volcanic ash fertilises the wheat fields of Iceland [source_1]. Mites spread viruses that collapse colonies [source_2]."

// TestChatCompletionVerdicts: over the OpenAI-compatible endpoint, a
// footnote whose passage does not say what the answer says is named at
// the end of the reply and in its sources list, and the citations (the
// whole completion's, and the last chunk's when streaming) carry each
// footnote's verdict, claim and supporting sentence.
func TestChatCompletionVerdicts(t *testing.T) {
	t.Parallel()
	model := llmtest.New(llmtest.Reply{Chunks: llmtest.Split(unsupportedAnswer, 5)})
	defer model.Close()
	srv, _ := newChatServe(t, model, ServerConfig{})
	type cite struct {
		Number  int    `json:"display_number"`
		Verdict string `json:"verdict"`
		Claim   string `json:"claim"`
		Quote   string `json:"quote"`
	}
	check := func(how string, content string, cites []cite) {
		t.Helper()
		for _, want := range []string{
			"- [1] *Unsupported: the passage does not say this.* Bees and Flowers, p. 3",
			"- [2] Bees and Flowers, p. 4, § 3 Results, /papers/bees.pdf: “Mites spread viruses that collapse bee colonies.”",
			"\n\n**Not supported by the passages they cite: [1].**\n",
		} {
			if !strings.Contains(content, want) {
				t.Errorf("%s: content lacks %q:\n%s", how, want, content)
			}
		}
		if len(cites) != 2 || cites[0].Verdict != "unsupported" || cites[0].Claim != "Volcanic ash fertilises the wheat fields of Iceland" || cites[0].Quote != "" ||
			cites[1].Verdict != "supported" || cites[1].Quote != "Mites spread viruses that collapse bee colonies." {
			t.Errorf("%s: citations %+v", how, cites)
		}
	}

	body := `{"model": "ibid/test", "messages": [{"role": "user", "content": "bees?"}]}`
	r, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var whole struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
		Citations []cite `json:"citations"`
	}
	err = json.NewDecoder(r.Body).Decode(&whole)
	r.Body.Close()
	if err != nil || len(whole.Choices) != 1 {
		t.Fatalf("%v %+v", err, whole)
	}
	check("whole", whole.Choices[0].Message.Content, whole.Citations)

	body = `{"model": "ibid/test", "stream": true, "messages": [{"role": "user", "content": "bees?"}]}`
	r, err = http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	raw, err := io.ReadAll(r.Body)
	if err != nil && !errors.Is(err, io.EOF) {
		t.Fatal(err)
	}
	var content strings.Builder
	var last []cite
	for _, line := range strings.Split(string(raw), "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var c struct {
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
			Citations []cite `json:"citations"`
		}
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("chunk %s: %v", data, err)
		}
		content.WriteString(c.Choices[0].Delta.Content)
		if c.Citations != nil {
			last = c.Citations
		}
	}
	check("streamed", content.String(), last)
}

// TestWithoutSourcesCutsVerdicts: an earlier reply sent back by a client
// reaches the model without ibid's own lines, the unsupported footnotes'
// line included, with or without a sources list before it.
func TestWithoutSourcesCutsVerdicts(t *testing.T) {
	t.Parallel()
	for _, opt := range []ReplyOptions{{Markdown: true}, {Markdown: true, Sources: true}} {
		reply, _ := replyOf(t, opt, supportedAnswer())
		if !strings.Contains(reply, unsupportedLine) {
			t.Fatalf("%+v: no unsupported line in %q", opt, reply)
		}
		if got := withoutSources(reply); got != "Bees pollinate almonds [1]. Mites cause winter losses [2]." {
			t.Errorf("%+v: %q", opt, got)
		}
	}
}
