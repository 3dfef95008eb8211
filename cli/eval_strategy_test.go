package cli

import (
	"os"
	"strings"
	"testing"
)

// longDocFigures are the BM25 lines of ibid eval --strategy S on the
// long-document set, as docs/indexing.md reports them.
var longDocFigures = map[string]string{
	"recursive":    "bm25         questions 78 (missing 0)  Recall@5 0.846  Recall@20 0.968  nDCG@10 0.725  mean tokens@5 1503",
	"semantic":     "bm25         questions 78 (missing 0)  Recall@5 0.827  Recall@20 0.936  nDCG@10 0.699  mean tokens@5 1147",
	"hierarchical": "bm25         questions 78 (missing 0)  Recall@5 0.788  Recall@20 0.955  nDCG@10 0.671  mean tokens@5 645",
}

func TestEvalLongDocStrategies(t *testing.T) {
	if _, err := os.Stat("../../shared/data/pdf/alce-gao2023-citations.pdf"); err != nil {
		t.Skip("no ../shared data: the long-document set needs its papers")
	}
	cmdEnv(t)
	for _, s := range []string{"recursive", "semantic", "hierarchical"} {
		code, out, errs := runCmd(t, "eval", "--bm25-only", "--strategy", s, "../rag/retrieve/testdata/longdoc")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", s, code, errs)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 2 || lines[0] != "strategy "+s {
			t.Fatalf("%s: output\n%s", s, out)
		}
		if lines[1] != longDocFigures[s] {
			t.Errorf("%s:\n got %s\nwant %s (docs/indexing.md)", s, lines[1], longDocFigures[s])
		}
		if !strings.Contains(errs, "78 questions over 9 documents") {
			t.Errorf("%s: progress %q", s, errs)
		}
	}
}

// sciFactStrategyFigures are the BM25 lines of ibid eval --bm25-only
// --strategy S on SciFact's test split, as docs/indexing.md reports them
// (the strategies were compared on the training queries first).
var sciFactStrategyFigures = map[string]string{
	"semantic":     "bm25           nDCG@10 0.6694  Recall@100 0.9070",
	"hierarchical": "bm25           nDCG@10 0.6933  Recall@100 0.9176",
}

func TestEvalSciFactStrategies(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes SciFact's 5,183 abstracts once per strategy")
	}
	if _, err := os.Stat("../../shared/data/scifact/corpus.jsonl"); err != nil {
		t.Skip("no ../shared data")
	}
	cmdEnv(t)
	for s, want := range sciFactStrategyFigures {
		code, out, errs := runCmd(t, "eval", "--bm25-only", "--strategy", s, "../../shared/data/scifact")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", s, code, errs)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 2 || lines[1] != want {
			t.Errorf("%s: output\n%s\nwant %s (docs/indexing.md)", s, out, want)
		}
	}
}
