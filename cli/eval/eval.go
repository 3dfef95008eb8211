// Package eval is ibid eval: how well retrieval, indexing strategies,
// the extractive answers and the support checker do on labelled sets
// (BEIR folders, the long-document set, SciFact and WiCE). It loads
// what it measures into stores and libraries of its own, in memory (or a
// temporary library in --store), and never touches the user's.
//
// It imports nothing of cli's: the command line hands it, in an Env, the
// flags it shares with the other commands and what they make (the
// embedder, the enricher, the reranker, the judge), so that ibid eval
// reads its settings exactly as the other commands do.
package eval

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/rag/library"
	"github.com/ibid-dev/ibid/rag/retrieve"
	"github.com/ibid-dev/ibid/rag/support"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Env is what ibid eval needs of the command line it runs under. The
// pointers are the command line's settings: eval's own flags write them,
// and they are read once the flags are parsed.
type Env struct {
	// Flags declares, on ibid eval's flags, the flags it shares with
	// the other commands, worded as theirs: the embedder's (--embed-model,
	// --base-url) and --rerank, which sets *Rerank.
	Flags func(*pflag.FlagSet)
	// SupportFlags declares those of ibid eval support: --verify-model
	// and --base-url.
	SupportFlags func(*pflag.FlagSet)
	// Store (--store), Model (--model), EnrichModel (--enrich-model) and
	// Rerank (--rerank) are the settings of those names; their defaults
	// (the environment's) are what they hold before parsing.
	Store, Model, EnrichModel, Rerank *string
	// Strategies names the indexing strategies, the default first.
	Strategies []string
	// Help turns help text as written here (wrapped at 76 columns) into
	// what the command line prints.
	Help func(string) string
	// Embedder is the configured embedder, nil for the local one.
	Embedder func() (retrieve.Embedder, error)
	// Enricher connects the model strategy s needs (it needs one).
	Enricher func(ctx context.Context, s ingest.Strategy) (Enricher, error)
	// Reranker is the reranker --rerank names, nil for none.
	Reranker func(ctx context.Context) (retrieve.Reranker, error)
	// Judge is the model --verify-model names, nil for none.
	Judge func(ctx context.Context) (*support.Judge, error)
}

// Enricher enriches what a strategy that needs a model indexes, and
// reports at the end what that cost (ibid add's enricher).
type Enricher interface {
	library.Enricher
	PrintReport(w io.Writer)
}

// Command is ibid eval: retrieval quality on a BEIR-format folder. It
// loads the corpus into an index in memory (one segment per document,
// title and text as one field) and prints nDCG@10 and Recall@k for BM25,
// dense and hybrid retrieval, one line each, with trec_eval's semantics;
// its subcommand support measures the support checker.
func Command(env Env) *cobra.Command {
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
		Long: env.Help(`Reads a BEIR-format folder (corpus.jsonl, queries.jsonl, qrels.tsv) into a
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
			return run(cmd, env, args[0], config{depth: depth, k1: k1, b: b, lexicalOnly: lexicalOnly, strategy: strategy, shared: shared})
		},
	}
	c.AddCommand(supportCommand(env))
	fs := c.Flags()
	env.Flags(fs)
	fs.IntVarP(&depth, "k", "k", 100, "retrieval depth for Recall@k")
	fs.Float64Var(&k1, "k1", retrieve.DefaultK1, "BM25 k1")
	fs.Float64VarP(&b, "b", "b", retrieve.DefaultB, "BM25 b")
	fs.BoolVar(&lexicalOnly, "bm25-only", false, "measure BM25 only (no embedding)")
	fs.StringVar(&strategy, "strategy", "",
		"index the corpus as ibid add would with this strategy ("+strings.Join(env.Strategies, ", ")+") and search it as ibid search does; empty: one segment per document, the fast path")
	fs.StringVar(env.EnrichModel, "enrich-model", *env.EnrichModel, "chat model for the strategies that need one (env IBID_ENRICH_MODEL); empty uses --model")
	fs.StringVar(env.Model, "model", *env.Model, "chat model name (env IBID_MODEL), for the strategies that need one and --rerank llm")
	fs.StringVar(&shared, "shared", "", "for a long-document set: the folder whose pdf/ holds its papers (default ../shared/data beside the repository)")
	_ = c.RegisterFlagCompletionFunc("strategy", cobra.FixedCompletions(env.Strategies, cobra.ShellCompDirectiveNoFileComp))
	fs.StringVar(env.Store, "store", *env.Store,
		"load the corpus into a temporary library of this store (e.g. postgres://…) instead of memory, and drop it after (env IBID_STORE)")
	return c
}

func run(cmd *cobra.Command, env Env, dir string, ec config) error {
	emb, err := env.Embedder()
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	if emb == nil {
		emb = retrieve.NewLocalEmbedder()
	}
	ec.emb, ec.progress, ec.store = emb, cmd.ErrOrStderr(), *env.Store
	ec.modes = []retrieve.Mode{retrieve.Lexical, retrieve.Dense, retrieve.Hybrid}
	if ec.lexicalOnly {
		ec.modes = ec.modes[:1]
	}
	if isLongDoc(dir) || ec.strategy != "" || *env.Rerank != "" {
		return runStrategy(cmd, env, dir, ec)
	}
	res, err := measureBEIR(cmd.Context(), dir, ec)
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	for _, r := range res {
		fmt.Fprintf(cmd.OutOrStdout(), "%-7s nDCG@10 %.4f  Recall@%d %.4f\n", r.name, r.ndcg, ec.depth, r.recall)
	}
	return nil
}

// config is what one run of ibid eval measures, and how.
type config struct {
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
func (cfg config) logf(format string, a ...any) {
	if cfg.progress != nil {
		fmt.Fprintf(cfg.progress, format, a...)
	}
}
