package rag

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/rag/library"
	"github.com/ibid-dev/ibid/rag/llmtest"
	"github.com/ibid-dev/ibid/rag/retrieve"
)

// docsLibrary is a library in memory of this repository's docs/ (real
// Markdown, long enough that a question's hits sit side by side), built
// for the test; sharedDocsLibrary is the one built once per test binary.
func docsLibrary(t *testing.T) *library.Library {
	t.Helper()
	return freshLibrary(t, filepath.Join("..", "docs"))
}

// windowsQuestion has hits in neighbouring segments of docs/answers.md.
const windowsQuestion = "How is each passage offered to the model under its alias source_k with its neighbouring segments in the prompt?"

// TestPromptOffersEachSegmentOnce sends a real request through rag/llmtest
// and counts, in the request body, every segment of the passages offered:
// each appears once, under one alias per passage, even where hits were
// neighbours (their windows merged).
func TestPromptOffersEachSegmentOnce(t *testing.T) {
	lib := sharedDocsLibrary(t)
	ps, err := lib.Search(context.Background(), windowsQuestion, retrieve.Options{K: 8})
	if err != nil {
		t.Fatal(err)
	}

	srv := llmtest.New(llmtest.Reply{Chunks: []string{"Passages carry aliases [source_1]."}})
	defer srv.Close()
	evs, err := collect(t, NewPipeline(lib, ModelAnswerer(connect(t, srv)), PipelineOptions{K: 8}), NewConversation("t"), windowsQuestion)
	if err != nil {
		t.Fatal(err)
	}
	checkOrder(t, evs)
	_, user := lastUserMessage(t, srv, 0)
	headers := headerLine.FindAllString(user, -1)
	if len(headers) != len(ps) {
		t.Errorf("%d header lines for %d passages", len(headers), len(ps))
	}
	aliases := map[string]bool{}
	for _, h := range headers {
		a := h[:strings.IndexByte(h, ']')+1]
		if aliases[a] {
			t.Errorf("alias %s offered twice", a)
		}
		aliases[a] = true
	}
	for _, p := range ps {
		for _, s := range p.Context {
			text := neutralizeText(strings.TrimSpace(s.Text))
			if len(text) < 40 {
				continue // a short heading may recur as part of other text
			}
			if n := strings.Count(user, text); n != 1 {
				t.Errorf("segment %s appears %d times in the request: %.60q", s.ID, n, text)
			}
		}
	}
	absorbed := 0
	for _, p := range ps {
		absorbed += len(p.Hits)
	}
	if absorbed == 0 {
		t.Errorf("no passage absorbed a neighbouring hit; the question tests nothing")
	}
}

// TestExtractiveCitesItsHit: without a model, every quoted sentence is in
// the segment its citation points at, also where a passage absorbed
// neighbouring hits.
func TestExtractiveCitesItsHit(t *testing.T) {
	lib := sharedDocsLibrary(t)
	evs, err := collect(t, NewPipeline(lib, ExtractiveAnswerer(), PipelineOptions{K: 8}), NewConversation("t"), windowsQuestion)
	if err != nil {
		t.Fatal(err)
	}
	checkOrder(t, evs)
	segOf := map[int]string{}
	var quoted strings.Builder
	refs := 0
	for _, e := range evs {
		switch e.Type {
		case EventCitation:
			segOf[e.Number] = e.Source.SegmentID
		case EventText:
			quoted.WriteString(e.Text)
		case EventRef:
			refs++
			seg, _, err := lib.Segment(context.Background(), segOf[e.Number])
			if err != nil {
				t.Fatal(err)
			}
			sentence := strings.Join(strings.Fields(quoted.String()), " ")
			if have := strings.Join(strings.Fields(neutralizeText(seg.Text)), " "); !strings.Contains(have, sentence) {
				t.Errorf("[%d] cites %s, which does not hold %q", e.Number, seg.ID, sentence)
			}
			quoted.Reset()
		}
	}
	if refs == 0 {
		t.Fatalf("the extractive answer cites nothing: %q", plain(evs))
	}
}
