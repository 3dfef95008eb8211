package cli

import (
	"context"

	"github.com/ibid-dev/ibid/cli/eval"
	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/rag/retrieve"
	"github.com/ibid-dev/ibid/rag/support"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// evalCommand is ibid eval (cli/eval) on cfg: the flags it shares with
// the other commands are theirs, bound to cfg, and the embedder, the
// enricher, the reranker and the judge are made from cfg as the other
// commands make theirs.
func evalCommand(cfg *Config) *cobra.Command {
	return eval.Command(eval.Env{
		Flags: func(fs *pflag.FlagSet) {
			cfg.embedderFlags(fs)
			cfg.rerankFlag(fs)
		},
		SupportFlags: func(fs *pflag.FlagSet) {
			cfg.verifyModelFlag(fs)
			cfg.baseURLFlag(fs)
		},
		Store:       &cfg.Store,
		Model:       &cfg.Model,
		EnrichModel: &cfg.EnrichModel,
		Rerank:      &cfg.Rerank,
		Strategies:  strategyList(),
		Help:        prose,
		Embedder:    func() (retrieve.Embedder, error) { return newEmbedder(cfg) },
		Enricher: func(ctx context.Context, s ingest.Strategy) (eval.Enricher, error) {
			e, err := newEnricher(ctx, cfg, s)
			if err != nil {
				return nil, err // not a nil *enricher in the interface
			}
			return e, nil
		},
		Reranker: func(ctx context.Context) (retrieve.Reranker, error) { return newReranker(ctx, cfg) },
		Judge:    func(ctx context.Context) (*support.Judge, error) { return verifyJudge(ctx, cfg) },
	})
}
