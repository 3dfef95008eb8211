package eval

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ibid-dev/ibid/internal/modroot"
	"github.com/ibid-dev/ibid/rag/library"
	"github.com/ibid-dev/ibid/rag/retrieve"
)

// This file measures retrieval on a long-document set (a folder with
// questions.jsonl, rag/retrieve/testdata/longdoc): its documents added to
// a library in memory with the strategy, each question searched as ibid
// search does, and the passages, as the model would read them (with their
// neighbours), judged by the answer snippets they contain; then the
// answers without a model (answers.go).

// longDocFile is the questions file that marks a folder as a long-document
// set rather than a BEIR folder.
const longDocFile = "questions.jsonl"

// isLongDoc reports whether dir is a long-document set.
func isLongDoc(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, longDocFile))
	return err == nil
}

// longDocDepth is how many passages each question retrieves: the deepest
// cut the metrics read (Recall@20).
const longDocDepth = 20

// measureLongDoc runs cfg's modes on the long-document set in dir through a
// library indexed with se.strategy. Documents named with a folder are
// found under dir (the set's snapshot of them), the shared PDFs in shared
// (its pdf folder; by default ../shared/data beside the repository holding
// dir, the nearest folder above it with go.mod).
func measureLongDoc(ctx context.Context, dir, shared string, cfg config, se strategyEval) ([]string, error) {
	set, err := retrieve.ReadLongDoc(filepath.Join(dir, longDocFile))
	if err != nil {
		return nil, err
	}
	root, ok := modroot.Find(dir)
	if !ok {
		root = "."
	}
	if shared == "" {
		shared = filepath.Join(root, "..", "shared", "data")
	}
	paths, err := set.Docs(dir, shared)
	if errors.Is(err, retrieve.ErrNoSharedData) {
		return nil, fmt.Errorf("%w; give the folder that holds pdf/ with --shared", err)
	}
	if err != nil {
		return nil, err
	}
	lib, err := openLibrary(ctx, cfg.emb)
	if err != nil {
		return nil, err
	}
	defer lib.Close()
	rep, err := lib.AddWith(ctx, paths, library.AddOptions{Strategy: se.strategy, Enrich: se.enrich}, nil)
	if err != nil {
		return nil, err
	}
	if len(rep.Skipped) > 0 {
		return nil, fmt.Errorf("%s could not be read: %s", rep.Skipped[0].Path, rep.Skipped[0].Reason)
	}
	segs, _ := lib.Len(ctx)
	cfg.logf("%s: %d questions over %d documents, %d segments with strategy %s\n",
		dir, len(set.Questions), len(paths), segs, se.strategy)
	var lines []string
	for _, m := range cfg.modes {
		results := make(map[string][]string, len(set.Questions))
		for _, q := range set.Questions {
			ps, err := lib.Search(ctx, q.Question, retrieve.Options{K: longDocDepth, Mode: m, Rerank: se.rerank})
			if err != nil {
				return nil, err
			}
			texts := make([]string, len(ps))
			for i, p := range ps {
				texts[i] = retrieve.WindowText(p)
			}
			results[q.ID] = texts
		}
		name := m.String()
		if se.rerank != nil {
			name += "+rerank"
		}
		lines = append(lines, fmt.Sprintf("%-12s %s", name, set.Score(results)))
	}
	var missed []string
	answers, err := measureAnswers(ctx, lib, dir, set, se.rerank, func(o answerOutcome) {
		switch {
		case o.declined:
			missed = append(missed, o.id+" (declined)")
		case !o.quoted:
			missed = append(missed, o.id)
		}
	})
	if err != nil {
		return nil, err
	}
	if len(missed) > 0 {
		cfg.logf("answers not quoting their evidence: %s\n", strings.Join(missed, " "))
	}
	return append(lines, answers), nil
}
