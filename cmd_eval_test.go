package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestEvalCommand(t *testing.T) {
	var out, errb bytes.Buffer
	s := &stdio{in: strings.NewReader(""), out: &out, err: &errb}
	if code := run(context.Background(), []string{"eval", "rag/retrieve/testdata/tinybeir"}, s); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("output:\n%s", out.String())
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
	if !strings.Contains(errb.String(), "3 queries with judgments") {
		t.Errorf("progress: %q", errb.String())
	}
	errb.Reset()
	if code := run(context.Background(), []string{"eval", t.TempDir()}, s); code == 0 || !strings.Contains(errb.String(), "corpus.jsonl") && !strings.Contains(errb.String(), "qrels") {
		t.Errorf("empty folder: exit %d, %q", code, errb.String())
	}
}
