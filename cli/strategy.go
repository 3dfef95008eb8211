package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ibid-dev/ibid/rag/enrich"
	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/rag/library"
	"github.com/ibid-dev/ibid/store"
)

// This file settles how add indexes: the strategy, and for the strategies
// that need a model, the model that writes what they index.

// strategyList is the strategies' names, the default first.
func strategyList() []string {
	names := make([]string, len(ingest.Strategies))
	for i, s := range ingest.Strategies {
		names[i] = string(s)
	}
	return names
}

// strategyNames is strategyList for a flag's help.
func strategyNames() string {
	return strings.Join(strategyList(), ", ")
}

// addStrategy is what an add needs to index with a strategy: its options
// and, when the strategy needs a model, the enricher (whose cost the add
// reports at the end).
type addStrategy struct {
	opt    library.AddOptions
	enrich *enricher // nil: the strategy needs no model
}

// settleAdd decides an add's strategy for lib (the one --strategy names,
// else the library's) and connects the model it needs, so that an add
// that cannot run is refused before anything is written. want is
// cfg.Strategy parsed; e is its enricher when it needs a model (connected
// before the library was opened), nil otherwise.
func settleAdd(ctx context.Context, cfg *Config, lib *library.Library, want ingest.Strategy, e *enricher) (*addStrategy, error) {
	as := &addStrategy{opt: library.AddOptions{MaxFileSize: cfg.MaxFileSize, Strategy: want, Reindex: cfg.Reindex, Follow: !cfg.NoFollow}}
	s := want
	if s == "" {
		have, _, err := lib.Strategy(ctx)
		if err != nil {
			return nil, err
		}
		s = have
	}
	if s.NeedsModel() {
		if e == nil { // the library's strategy
			var err error
			if e, err = newEnricher(ctx, cfg, s); err != nil {
				return nil, err
			}
		}
		as.enrich, as.opt.Enrich = e, e
	}
	return as, nil
}

// parseStrategy reads --strategy ("" keeps the library's) and, when it
// needs a model, checks that one can be reached before any library is
// opened (a new library would be created empty otherwise).
func parseStrategy(cfg *Config) (ingest.Strategy, error) {
	if strings.TrimSpace(cfg.Strategy) == "" {
		if cfg.Reindex {
			return "", errors.New("add: --reindex indexes a library again with the strategy --strategy names; give one, e.g. --strategy hierarchical")
		}
		return "", nil
	}
	s, err := ingest.ParseStrategy(cfg.Strategy)
	if err != nil {
		return "", fmt.Errorf("add: --strategy: %w", err)
	}
	return s, nil
}

// refused reports whether err is the library refusing an add before
// doing anything.
func refused(err error) bool {
	var se *library.StrategyError
	return errors.As(err, &se) || errors.Is(err, library.ErrNeedsModel)
}

// addError words the library's refusals of an add with what to run.
func addError(err error, cfg *Config, lib string) error {
	var se *library.StrategyError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("add: %w; to index it with %s, run: ibid add --library %s --strategy %s --reindex (re-reads every document; the library keeps answering meanwhile), or keep %s by leaving out --strategy",
			err, se.Want, lib, se.Want, se.Have)
	case errors.Is(err, library.ErrNeedsModel):
		return fmt.Errorf("add: %w; %s", err, needsModelAdvice)
	case errors.Is(err, enrich.ErrModelFailing):
		return fmt.Errorf("add: %w.\nThe documents enriched before were added; the rest were not. When the model answers again, "+
			"run the same ibid add (its answers so far are cached, so nothing is paid twice)", err)
	}
	return err
}

// needsModelAdvice says how to give the strategies that need a model one.
const needsModelAdvice = "set an OpenAI-compatible server with --base-url (or OPENAI_BASE_URL) and a chat model with --model or --enrich-model, or run Ollama locally; or choose a strategy that needs none: recursive, semantic, hierarchical"

// strategyLabel says how a library's documents are indexed, for ls:
// "strategy hierarchical", or for a library whose re-index was cut short,
// each strategy with its count and how to finish.
func strategyLabel(docs []store.Document) string {
	count := library.StrategyCounts(docs)
	if len(count) == 1 {
		for s := range count {
			return "strategy " + string(s)
		}
	}
	var parts []string
	for _, s := range ingest.Strategies {
		if n := count[s]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s))
		}
	}
	return "strategies " + strings.Join(parts, ", ") + " (a re-index was cut short: run ibid add --strategy S --reindex again)"
}
