package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/ibid-dev/ibid/rag/retrieve"
	"github.com/ibid-dev/ibid/store"
	"github.com/spf13/cobra"
)

// evalCommand is ibid eval: retrieval quality on a BEIR-format folder. It
// loads the corpus into an index in memory (one segment per document,
// title and text as one field) and prints nDCG@10 and Recall@k for BM25,
// dense and hybrid retrieval, one line each, with trec_eval's semantics.
func evalCommand(cfg *Config) *cobra.Command {
	var (
		depth       int
		k1, b       float64
		lexicalOnly bool
		strategy    string
		shared      string
	)
	c := &cobra.Command{
		Use:   "eval DIR",
		Short: "Measure retrieval quality on a BEIR-format folder",
		Long: prose(`Reads a BEIR-format folder (corpus.jsonl, queries.jsonl, qrels.tsv) into a
temporary index in memory and prints nDCG@10 and Recall@k for BM25, dense
and hybrid retrieval (docs/retrieval.md).

With --strategy (or --rerank), the corpus is indexed as ibid add would
index it with that strategy, in a library in memory, and searched as ibid
search does. A folder with questions.jsonl is a long-document set
(rag/retrieve/testdata/longdoc): its papers and notes are indexed with the
strategy (recursive by default) and each question's passages, as the model
reads them, are judged by the answer snippets they contain: Recall@5,
Recall@20, nDCG@10 and the mean length of the top 5 (docs/indexing.md).`),
		Example: `ibid eval ../shared/data/scifact
ibid eval --bm25-only --k1 0.9 --b 0.4 ../shared/data/scifact
ibid eval --strategy hierarchical rag/retrieve/testdata/longdoc
ibid eval --strategy contextual --model llama3.2 --rerank bge-reranker-v2-m3 rag/retrieve/testdata/longdoc`,
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return nil, cobra.ShellCompDirectiveFilterDirs
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("eval: give one BEIR folder or long-document set, e.g. ibid eval ../shared/data/scifact")
			}
			if depth <= 0 {
				return fmt.Errorf("eval: -k %d: give a retrieval depth of at least 1", depth)
			}
			return runEval(cmd, cfg, args[0], evalConfig{depth: depth, k1: k1, b: b, lexicalOnly: lexicalOnly, strategy: strategy, shared: shared})
		},
	}
	c.AddCommand(evalSupportCommand(cfg))
	fs := c.Flags()
	cfg.embedderFlags(fs)
	fs.IntVarP(&depth, "k", "k", 100, "retrieval depth for Recall@k")
	fs.Float64Var(&k1, "k1", retrieve.DefaultK1, "BM25 k1")
	fs.Float64VarP(&b, "b", "b", retrieve.DefaultB, "BM25 b")
	fs.BoolVar(&lexicalOnly, "bm25-only", false, "measure BM25 only (no embedding)")
	fs.StringVar(&strategy, "strategy", "",
		"index the corpus as ibid add would with this strategy ("+strategyNames()+") and search it as ibid search does; empty: one segment per document, the fast path")
	fs.StringVar(&cfg.EnrichModel, "enrich-model", cfg.EnrichModel, "chat model for the strategies that need one (env IBID_ENRICH_MODEL); empty uses --model")
	fs.StringVar(&cfg.Model, "model", cfg.Model, "chat model name (env IBID_MODEL), for the strategies that need one and --rerank llm")
	cfg.rerankFlag(fs)
	fs.StringVar(&shared, "shared", "", "for a long-document set: the folder whose pdf/ holds its papers (default ../shared/data beside the repository)")
	_ = c.RegisterFlagCompletionFunc("strategy", cobra.FixedCompletions(strategyList(), cobra.ShellCompDirectiveNoFileComp))
	fs.StringVar(&cfg.Store, "store", cfg.Store,
		"load the corpus into a temporary library of this store (e.g. postgres://…) instead of memory, and drop it after (env IBID_STORE)")
	return c
}

func runEval(cmd *cobra.Command, cfg *Config, dir string, ec evalConfig) error {
	emb, err := newEmbedder(cfg)
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	if emb == nil {
		emb = retrieve.NewLocalEmbedder()
	}
	ec.emb, ec.progress, ec.store = emb, cmd.ErrOrStderr(), cfg.Store
	ec.modes = []retrieve.Mode{retrieve.Lexical, retrieve.Dense, retrieve.Hybrid}
	if ec.lexicalOnly {
		ec.modes = ec.modes[:1]
	}
	if isLongDoc(dir) || ec.strategy != "" || cfg.Rerank != "" {
		return runEvalStrategy(cmd, cfg, dir, ec)
	}
	res, err := evalBEIR(cmd.Context(), dir, ec)
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	for _, r := range res {
		fmt.Fprintf(cmd.OutOrStdout(), "%-7s nDCG@10 %.4f  Recall@%d %.4f\n", r.name, r.ndcg, ec.depth, r.recall)
	}
	return nil
}

type evalConfig struct {
	emb         retrieve.Embedder
	depth       int
	k1, b       float64
	lexicalOnly bool
	store       string // where to load the corpus: "" in memory, else a temporary library there
	strategy    string // "": one segment per document; else through a library with this strategy
	shared      string // a long-document set's shared data folder ("": beside the repository)
	modes       []retrieve.Mode
	progress    io.Writer // nil: silent
}

// logf writes progress, if cfg has somewhere to write it.
func (cfg evalConfig) logf(format string, a ...any) {
	if cfg.progress != nil {
		fmt.Fprintf(cfg.progress, format, a...)
	}
}

// readBEIR reads the BEIR folder dir, which must judge some query.
func readBEIR(dir string) (*retrieve.BEIR, error) {
	data, err := retrieve.ReadBEIR(dir)
	if err != nil {
		return nil, err
	}
	if len(data.Queries) == 0 {
		return nil, fmt.Errorf("%s has no query with a judgment", dir)
	}
	return data, nil
}

type evalResult struct {
	name         string
	ndcg, recall float64 // means over the queries with judgments
}

// evalBEIR runs the evaluation of cfg on the BEIR folder dir.
func evalBEIR(ctx context.Context, dir string, cfg evalConfig) ([]evalResult, error) {
	logf := cfg.logf
	data, err := readBEIR(dir)
	if err != nil {
		return nil, err
	}
	logf("%s: %d documents, %d queries with judgments\n", dir, len(data.Corpus), len(data.Queries))

	tty := false
	if f, ok := cfg.progress.(*os.File); ok {
		tty = term.IsTerminal(f.Fd())
	}
	needDense := false
	for _, m := range cfg.modes {
		needDense = needDense || m != retrieve.Lexical
	}
	emb := &cachedEmbedder{Embedder: cfg.emb, cache: map[string][]float32{}}
	dim := 1
	if needDense {
		vs, err := cfg.emb.Embed(ctx, []string{"dimension probe"})
		if err != nil {
			return nil, fmt.Errorf("%w (check --embed-model, --base-url or OPENAI_BASE_URL, and OPENAI_API_KEY; or use --bm25-only)", err)
		}
		if len(vs) != 1 || len(vs[0]) == 0 {
			return nil, fmt.Errorf("embedder %s returned no vector", emb.Name())
		}
		dim = len(vs[0])
	}
	texts := make([]string, len(data.Corpus))
	for i, d := range data.Corpus {
		texts[i] = d.Title + "\n" + d.Text
	}
	var vecs [][]float32
	if needDense {
		start := time.Now()
		if vecs, err = embedAll(ctx, cfg.emb, texts, func(done int) {
			if done%1024 >= 64 && done != len(texts) {
				return
			}
			if tty {
				logf("\rembedding with %s: %d/%d documents", emb.Name(), done, len(texts))
			} else {
				logf("embedding with %s: %d/%d documents\n", emb.Name(), done, len(texts))
			}
		}); err != nil {
			return nil, err
		}
		if tty {
			logf("\n")
		}
		logf("embedded in %.1f s\n", time.Since(start).Seconds())
	}
	puts := make([]store.Put, len(data.Corpus))
	for i, d := range data.Corpus {
		seg := store.Segment{ID: d.ID + ":0", DocumentID: d.ID, Text: texts[i], End: len(texts[i])}
		if needDense {
			seg.Vector = vecs[i]
		} else {
			seg.Vector = []float32{1}
		}
		puts[i] = store.Put{Document: store.Document{ID: d.ID, Path: d.ID, Title: d.Title, Format: store.FormatText, Segments: 1}, Segments: []store.Segment{seg}}
	}
	start := time.Now()
	st, drop, err := evalStore(ctx, cfg.store, store.Info{Embedder: emb.Name(), Dimension: dim}, puts)
	if err != nil {
		return nil, err
	}
	defer drop()
	if t, ok := st.(interface{ SetBM25(k1, b float64) }); ok {
		t.SetBM25(cfg.k1, cfg.b)
	} else if cfg.k1 != retrieve.DefaultK1 || cfg.b != retrieve.DefaultB {
		logf("this store ranks keywords its own way: --k1 and --b are ignored\n")
	}
	logf("BM25 index: %.2f s\n", time.Since(start).Seconds())
	if needDense {
		qs := make([]string, len(data.Queries))
		for i, q := range data.Queries {
			qs[i] = q.Text
		}
		if err := emb.warm(ctx, qs); err != nil {
			return nil, err
		}
	}

	var out []evalResult
	for _, m := range cfg.modes {
		sc, err := retrieve.Evaluate(ctx, st, emb, data, m, cfg.depth)
		if err != nil {
			return nil, err
		}
		out = append(out, evalResult{m.String(), sc.NDCG10, sc.Recall})
	}
	return out, nil
}
