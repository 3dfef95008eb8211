package cli

import (
	"strings"
	"testing"
)

func TestEvalCommand(t *testing.T) {
	t.Setenv("IBID_EMBED_MODEL", "")
	code, out, errs := runCmd(t, "eval", "../rag/retrieve/testdata/tinybeir")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("output:\n%s", out)
	}
	// BM25's figures are checked by hand in rag/retrieve's TestEvaluateTinyBEIR.
	if lines[0] != "bm25    nDCG@10 0.8243  Recall@100 0.8333" {
		t.Errorf("bm25 line %q", lines[0])
	}
	for i, name := range []string{"bm25", "dense", "hybrid"} {
		if !strings.HasPrefix(lines[i], name+" ") || !strings.Contains(lines[i], "Recall@100") {
			t.Errorf("line %d: %q", i, lines[i])
		}
	}
	if !strings.Contains(errs, "3 queries with judgments") {
		t.Errorf("progress: %q", errs)
	}
	if code, _, errs := runCmd(t, "eval", t.TempDir()); code == 0 || !strings.Contains(errs, "corpus.jsonl") && !strings.Contains(errs, "qrels") {
		t.Errorf("empty folder: exit %d, %q", code, errs)
	}
	for _, args := range [][]string{{"eval"}, {"eval", "a", "b"}, {"eval", "-k", "0", "x"}} {
		if code, _, errs := runCmd(t, args...); code != exitError || !strings.Contains(errs, "ibid: eval: ") || !strings.Contains(errs, "give") {
			t.Errorf("%q: exit %d, %q", args, code, errs)
		}
	}
}
