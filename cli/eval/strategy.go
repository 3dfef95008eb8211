package eval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/rag/library"
	"github.com/ibid-dev/ibid/rag/retrieve"
	"github.com/spf13/cobra"
)

// This file measures an indexing strategy on a BEIR folder the way a
// user's library would be built: each corpus document written to a file,
// added to a library in memory with the strategy (chunking, enrichment,
// embedding as ibid add does), and searched as ibid search does, with the
// reranker if one is given. A document's rank is that of its best
// passage. Every corpus document is ranked: documents whose texts are
// equal share one file (a library keeps one document per content), and a
// document the library skips is named, with the reason, on stderr.

// strategyEval is what an evaluation through a library needs.
type strategyEval struct {
	strategy ingest.Strategy
	enrich   library.Enricher  // for the strategies that need a model
	rerank   retrieve.Reranker // nil: fusion's order
}

// openLibrary opens a library in memory, built by emb, for a measure
// through a library.
func openLibrary(ctx context.Context, emb retrieve.Embedder) (*library.Library, error) {
	return library.Open(ctx, library.Options{Name: "eval", InMemory: true, Embedder: emb})
}

// measureBEIRStrategy runs cfg's modes on the BEIR folder dir through a
// library indexed with se.strategy.
func measureBEIRStrategy(ctx context.Context, dir string, cfg config, se strategyEval) ([]result, error) {
	logf := cfg.logf
	data, err := readBEIR(dir)
	if err != nil {
		return nil, err
	}
	files, err := os.MkdirTemp("", "ibid-eval-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(files)
	// A library keeps one document per content, so corpus documents whose
	// texts are equal (NFCorpus has 40) are written once: the file stands
	// for all of them, and a hit on it ranks each of their ids, in corpus
	// order, as a run that scored the copies alike would (trec_eval's).
	idsOf := make(map[string][]string, len(data.Corpus)) // file path → BEIR ids
	fileOf := make(map[string]string, len(data.Corpus))  // corpus text → file path
	copies := 0
	for i, d := range data.Corpus {
		text := retrieve.CorpusText(d)
		if p, ok := fileOf[text]; ok {
			idsOf[p] = append(idsOf[p], d.ID)
			copies++
			continue
		}
		// File names are numbered: BEIR ids may hold any character.
		p := filepath.Join(files, fmt.Sprintf("%07d.txt", i))
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			return nil, err
		}
		fileOf[text] = p
		idsOf[p] = []string{d.ID}
	}
	lib, err := openLibrary(ctx, cfg.emb)
	if err != nil {
		return nil, err
	}
	defer lib.Close()
	logf("%s: %d documents, %d queries with judgments; indexing with strategy %s\n",
		dir, len(data.Corpus), len(data.Queries), se.strategy)
	rep, err := lib.AddWith(ctx, []string{files}, library.AddOptions{Strategy: se.strategy, Enrich: se.enrich}, nil)
	if err != nil {
		return nil, err
	}
	segs, _ := lib.Len(ctx)
	logf("indexed %d documents into %d segments\n", len(data.Corpus)-skippedIDs(rep, idsOf), segs)
	if copies > 0 {
		logf("%d documents have the text of an earlier one: each is ranked where that text is\n", copies)
	}
	for _, sk := range rep.Skipped {
		// Never found: scored as a run that does not return them.
		logf("not indexed: %s (%s): %s\n", strings.Join(idsOf[sk.Path], ", "), filepath.Base(sk.Path), sk.Reason)
	}

	var out []result
	for _, m := range cfg.modes {
		var ndcg, recall float64
		for _, q := range data.Queries {
			ps, err := lib.Search(ctx, q.Text, retrieve.Options{K: cfg.depth, Neighbours: -1, Mode: m, Rerank: se.rerank})
			if err != nil {
				return nil, err
			}
			ranked := make([]string, 0, len(ps))
			seen := map[string]bool{}
			for _, p := range ps {
				for _, id := range idsOf[p.Document.Path] {
					if id != q.ID && !seen[id] {
						seen[id] = true
						ranked = append(ranked, id)
					}
				}
			}
			ndcg += retrieve.NDCG(ranked, data.Qrels[q.ID], 10)
			recall += retrieve.Recall(ranked, data.Qrels[q.ID], cfg.depth)
		}
		n := float64(len(data.Queries))
		name := m.String()
		if se.rerank != nil {
			name += "+rerank"
		}
		out = append(out, result{name: name, ndcg: ndcg / n, recall: recall / n})
	}
	return out, nil
}

// skippedIDs is how many corpus documents the files rep skipped stand for.
func skippedIDs(rep *library.AddReport, idsOf map[string][]string) int {
	n := 0
	for _, sk := range rep.Skipped {
		n += len(idsOf[sk.Path])
	}
	return n
}

// strategyLabel names an evaluation's strategy and reranker in its
// report.
func strategyLabel(s ingest.Strategy, rerank string) string {
	label := "strategy " + string(s)
	if rerank != "" {
		label += ", rerank " + strings.TrimSpace(rerank)
	}
	return label
}

// runStrategy is ibid eval through a library: a long-document set, or
// a BEIR folder with --strategy or --rerank.
func runStrategy(cmd *cobra.Command, env Env, dir string, ec config) error {
	ctx := cmd.Context()
	s := ingest.Recursive
	if ec.strategy != "" {
		var err error
		if s, err = ingest.ParseStrategy(ec.strategy); err != nil {
			return fmt.Errorf("eval: --strategy: %w", err)
		}
	}
	se := strategyEval{strategy: s}
	if s.NeedsModel() {
		e, err := env.Enricher(ctx, s)
		if err != nil {
			return fmt.Errorf("eval: %w", err)
		}
		se.enrich = e
		defer e.PrintReport(cmd.ErrOrStderr())
	}
	rr, err := env.Reranker(ctx)
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	se.rerank = rr
	out := cmd.OutOrStdout()
	fmt.Fprintln(out, strategyLabel(s, *env.Rerank))
	if isLongDoc(dir) {
		lines, err := measureLongDoc(ctx, dir, ec.shared, ec, se)
		if err != nil {
			return fmt.Errorf("eval: %w", err)
		}
		for _, l := range lines {
			fmt.Fprintln(out, l)
		}
		return nil
	}
	res, err := measureBEIRStrategy(ctx, dir, ec, se)
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	for _, r := range res {
		fmt.Fprintf(out, "%-14s nDCG@10 %.4f  Recall@%d %.4f\n", r.name, r.ndcg, ec.depth, r.recall)
	}
	return nil
}
