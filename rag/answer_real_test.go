package rag

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/internal/shareddata"
	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/rag/llmtest"
	"github.com/ibid-dev/ibid/rag/ragtest"
)

// TestRealPaperPrompt loads the ALCE paper (../shared/data/pdf; a paper
// about citations, whose examples are full of "[1][2]") with the real
// loader, answers a question over it, and checks what the model was sent:
// one header line per passage, and not one of the paper's own numerals.
func TestRealPaperPrompt(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a real PDF")
	}
	pdf := shareddata.Path(t, "pdf", "alce-gao2023-citations.pdf")
	loader := ingest.NewLoader(filepath.Join(os.TempDir(), "ibid-ingest-test-wazero"))
	defer loader.Close()
	l, err := loader.Load(context.Background(), pdf)
	if err != nil {
		t.Fatal(err)
	}
	lib := ragtest.New().Add(l.Document, l.Segments...)
	srv := llmtest.New(llmtest.Reply{Chunks: []string{"It declared independence [source_1]."}})
	defer srv.Close()
	p := NewPipeline(lib, ModelAnswerer(connect(t, srv)), PipelineOptions{K: 8})
	question := "When did the US declare independence, and when was the Treaty of Paris signed?"
	evs, err := collect(t, p, NewConversation("papers"), question)
	if err != nil {
		t.Fatal(err)
	}
	if got := plain(evs); got != "It declared independence [1]." {
		t.Errorf("answer %q", got)
	}
	_, user := lastUserMessage(t, srv, 0)
	if n := len(headerLine.FindAllString(user, -1)); n != 8 {
		t.Errorf("%d header lines for 8 passages:\n%s", n, user)
	}
	if !strings.Contains(user, "Treaty of Paris") {
		t.Fatalf("the passages do not hold the paper's example:\n%s", user)
	}
	if loc := numeral.FindStringIndex(user); loc != nil {
		t.Errorf("the paper's numeral %s reached the model: …%s…", user[loc[0]:loc[1]], user[max(0, loc[0]-60):min(len(user), loc[1]+40)])
	}
	if !strings.Contains(user, "(1)(2)") {
		t.Errorf("the paper's [1][2] was not rewritten as (1)(2)")
	}

	// Without a model the answer quotes the paper: its numerals are not
	// drawn where ibid's footnotes are.
	evs, err = collect(t, NewPipeline(lib, ExtractiveAnswerer(), PipelineOptions{K: 8}), NewConversation("papers"), question)
	if err != nil {
		t.Fatal(err)
	}
	refs := 0
	for _, e := range evs {
		switch e.Type {
		case EventText:
			if m := numeral.FindString(e.Text); m != "" {
				t.Errorf("extractive text shows the paper's %s: %q", m, e.Text)
			}
		case EventRef:
			refs++
		}
	}
	if refs == 0 {
		t.Errorf("extractive answer cites nothing: %q", plain(evs))
	}
}

var numeral = regexp.MustCompile(`\[\d+\]`)
