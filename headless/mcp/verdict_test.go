package mcp

import (
	"slices"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/llmtest"
)

// TestAskVerdicts: ask returns per footnote whether its passage says what
// the answer's sentence says (verdict, claim, the supporting sentence as
// quote), names the unsupported ones, and its answer text says so too.
func TestAskVerdicts(t *testing.T) {
	model := llmtest.New(llmtest.Reply{Chunks: llmtest.Split("Volcanic ash fertilises the wheat fields of Iceland [source_1]. Mites spread viruses [source_2].", 5)})
	defer model.Close()
	cs := session(t, Config{Answerer: connectModel(t, model)}, nil)
	var got askResult
	if res := call(t, cs, "ask", map[string]any{"question": "What do bees pollinate, and what harms them?"}, &got); res.IsError {
		t.Fatal(text(res))
	}
	if len(got.Footnotes) != 2 {
		t.Fatalf("footnotes %+v", got.Footnotes)
	}
	if f := got.Footnotes[0]; f.Verdict != rag.Unsupported || f.Claim != "Volcanic ash fertilises the wheat fields of Iceland" || f.PageStart == 0 {
		t.Errorf("footnote 1 %+v", f)
	}
	if f := got.Footnotes[1]; f.Verdict != rag.Supported || !strings.Contains(strings.ToLower(f.Quote), "mites spread viruses") {
		t.Errorf("footnote 2 %+v", f)
	}
	if !slices.Equal(got.Unsupported, []int{1}) {
		t.Errorf("unsupported %v", got.Unsupported)
	}
	for _, want := range []string{"\n[1] Unsupported: the passage does not say this. ", "\nNot supported by the passages they cite: [1].\n"} {
		if !strings.Contains(got.Answer, want) {
			t.Errorf("answer lacks %q:\n%s", want, got.Answer)
		}
	}
}

// TestAskExtractiveVerdicts: the extractive answerer's footnotes quote
// their passages, so they are supported by construction (quoted), and
// none is unsupported.
func TestAskExtractiveVerdicts(t *testing.T) {
	cs := session(t, Config{}, nil)
	var got askResult
	call(t, cs, "ask", map[string]any{"question": "Which bees pollinate almond orchards?"}, &got)
	if len(got.Footnotes) == 0 || got.Unsupported != nil {
		t.Fatalf("%+v", got)
	}
	for _, f := range got.Footnotes {
		if f.Verdict != rag.Supported || !f.Quoted {
			t.Errorf("footnote %+v", f)
		}
	}
}
