package eval

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/spf13/cobra"

	"github.com/ibid-dev/ibid/rag/support"
)

// supportCommand is ibid eval support: the support checker's figures
// on labelled sets (docs/support.md).
func supportCommand(env Env) *cobra.Command {
	c := &cobra.Command{
		Use:   "support PATH...",
		Short: "Measure how well citations are checked against their passages",
		Long: env.Help(`Checks the claims of labelled sets against the passages they cite, as
ibid checks every footnote, and prints for each set: focus hit@1 (the
supporting sentence found is one the annotators marked), the verdict's
AUC (passages with evidence against passages without), the precision of
the "unsupported" verdict, and the confusion of gold labels and
verdicts.

PATH is SciFact's release (a folder with corpus.jsonl and
claims_*.jsonl: each labelled claims file is a set, claims_train.jsonl
first), one SciFact claims file, or WiCE's claim-level files (a .jsonl
file or a folder of them). With --verify-model, the verdicts the lexical
check finds uncertain are judged by that model, as in an answer.`),
		Example: `ibid eval support ../shared/data/scifact-rationale ../shared/data/wice-claim
ibid eval support --verify-model bespoke-minicheck ../shared/data/wice-claim/dev.jsonl`,
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return nil, cobra.ShellCompDirectiveDefault
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return fmt.Errorf("eval support: give SciFact's or WiCE's files, e.g. ibid eval support ../shared/data/scifact-rationale ../shared/data/wice-claim")
			}
			ctx := cmd.Context()
			judge, err := env.Judge(ctx)
			if err != nil {
				return fmt.Errorf("eval support: %w", err)
			}
			for _, path := range args {
				sets, err := support.ReadSets(path)
				if err != nil {
					return fmt.Errorf("eval support: %w", err)
				}
				for _, s := range sets {
					check := s.Checker()
					if judge != nil {
						check = judgedChecker(ctx, cmd, s, judge)
					}
					f := support.Measure(s, check)
					if err := ctx.Err(); err != nil {
						return err
					}
					f.Print(cmd.OutOrStdout())
				}
			}
			return nil
		},
	}
	fs := c.Flags()
	env.SupportFlags(fs)
	return c
}

// judgedChecker checks a case lexically and asks judge about the
// uncertain ones, with progress on standard error; the first failure is
// reported and the rest keep their lexical verdicts.
func judgedChecker(ctx context.Context, cmd *cobra.Command, s *support.Set, judge *support.Judge) support.CheckFunc {
	pass := judge.Pass()
	var done atomic.Int64
	total := len(s.Cases)
	return func(c *support.Case) support.Result {
		e := support.Analyse(c.Passage)
		r := e.Check(c.Claim, s.Rarity)
		r2, err := pass.Refine(ctx, c.Claim, e, r)
		if err != nil && !errors.Is(err, context.Canceled) {
			fmt.Fprintf(cmd.ErrOrStderr(), "eval support: %v; the other claims keep their lexical verdicts\n", err)
		}
		if n := done.Add(1); n%50 == 0 || int(n) == total {
			fmt.Fprintf(cmd.ErrOrStderr(), "%s: %d/%d claims checked with %s\n", s.Name, n, total, judge.Model())
		}
		return r2
	}
}
