package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/rag/llmtest"
)

// sciFactFolder writes a small set in SciFact's format: two abstracts,
// a claim with evidence in the first, one with none in the second.
func sciFactFolder(t *testing.T) string {
	dir := t.TempDir()
	files := map[string]string{
		"corpus.jsonl": `{"doc_id": 1, "title": "Mites and bees", "abstract": ["Bees forage in spring.", "Varroa mites spread deformed wing virus among colonies."], "structured": false}
{"doc_id": 2, "title": "Whale song", "abstract": ["Humpback whales sing in winter.", "Songs change every year."], "structured": false}
`,
		"claims_train.jsonl": `{"id": 1, "claim": "Varroa mites spread deformed wing virus.", "evidence": {"1": [{"sentences": [1], "label": "SUPPORT"}]}, "cited_doc_ids": [1]}
{"id": 2, "claim": "Honey bees dance to show where flowers are.", "evidence": {}, "cited_doc_ids": [2]}
`,
		"claims_test.jsonl": `{"id": 3, "claim": "Whales sing.", "cited_doc_ids": [2]}
`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestEvalSupportCommand(t *testing.T) {
	cmdEnv(t)
	dir := sciFactFolder(t)
	code, out, errs := runCmd(t, "eval", "support", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"scifact claims_train: 2 cases", "focus hit@1            1.000", "verdict AUC            1.000", "gold\\verdict"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "claims_test") {
		t.Errorf("the unlabelled test claims were measured:\n%s", out)
	}
	if code, _, errs := runCmd(t, "eval", "support", filepath.Join(dir, "missing")); code == 0 || !strings.Contains(errs, "missing") {
		t.Errorf("a missing path: exit %d, %q", code, errs)
	}
}

// TestEvalSupportVerifyModel: with --verify-model the uncertain verdicts
// are asked of the model, which here says No to everything.
func TestEvalSupportVerifyModel(t *testing.T) {
	cmdEnv(t)
	srv := llmtest.New(llmtest.Reply{Chunks: []string{"No"}})
	defer srv.Close()
	dir := sciFactFolder(t)
	code, out, errs := runCmd(t, "eval", "support", "--base-url", srv.BaseURL(), "--verify-model", "fake-model", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, r := range srv.Requests() {
		if r.Model != "fake-model" {
			t.Errorf("asked model %q", r.Model)
		}
	}
	if !strings.Contains(errs, "2/2 claims checked with fake-model") {
		t.Errorf("no progress: %q", errs)
	}
	if !strings.Contains(out, "cases") {
		t.Errorf("output %q", out)
	}
}
