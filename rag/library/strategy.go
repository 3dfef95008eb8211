package library

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/store"
)

// Enricher writes what a strategy that needs a model indexes (contextual
// context, window summaries, questions) into a loaded document: it may set
// IndexText and append index rows, never change a segment's Text. A chunk
// it cannot enrich is left as it is and reported by the Enricher itself;
// an error stops the add (only for what would fail every file, or ctx's).
// progress may be called from any goroutine, one call at a time or not.
type Enricher interface {
	Enrich(ctx context.Context, ld *ingest.Loaded, progress func(done, total int)) error
}

// ErrNeedsModel is returned, before anything is written, by an add whose
// strategy needs a model when no Enricher was given.
var ErrNeedsModel = errors.New("this strategy needs a chat model to write what it indexes")

// StrategyError refuses an add that would index a library with another
// strategy than the one it was indexed with, unless AddOptions.Reindex.
type StrategyError struct {
	Library    string
	Have, Want ingest.Strategy
}

func (e *StrategyError) Error() string {
	return fmt.Sprintf("library %q is indexed with strategy %s, not %s", e.Library, e.Have, e.Want)
}

// DocumentStrategy is the strategy a document was indexed with: the one
// recorded in its metadata, or Recursive for documents from before
// strategies were recorded.
func DocumentStrategy(d store.Document) ingest.Strategy {
	if s := d.Meta[ingest.MetaStrategy]; s != "" {
		return ingest.Strategy(s)
	}
	return ingest.Recursive
}

// Strategy is the strategy the library's documents were indexed with:
// Recursive for an empty library; when documents differ (an interrupted
// re-index), the most common one, and mixed is true.
func (l *Library) Strategy(ctx context.Context) (s ingest.Strategy, mixed bool, err error) {
	docs, err := l.st.Documents(ctx)
	if err != nil {
		return "", false, err
	}
	s, mixed = strategyOf(docs)
	return s, mixed, nil
}

// StrategyCounts says how many of docs were indexed with each strategy.
func StrategyCounts(docs []store.Document) map[ingest.Strategy]int {
	count := map[ingest.Strategy]int{}
	for _, d := range docs {
		count[DocumentStrategy(d)]++
	}
	return count
}

// strategyOf is Strategy over docs.
func strategyOf(docs []store.Document) (s ingest.Strategy, mixed bool) {
	count := StrategyCounts(docs)
	best := ingest.Recursive
	for _, s := range ingest.Strategies { // a fixed order breaks ties
		if count[s] > count[best] {
			best = s
		}
	}
	return best, len(count) > 1
}

// settleStrategy decides the strategy of an add, given the library's
// documents, and refuses, before anything is written, what cannot be
// done: a strategy that needs a model without one, or another strategy
// than the library's without Reindex. A library left mixed by an
// interrupted re-index takes its most common strategy.
func (a *adder) settleStrategy(docs []store.Document) error {
	have, _ := strategyOf(docs)
	want := a.opt.Strategy
	if want == "" {
		want = have
	}
	if _, err := ingest.ParseStrategy(string(want)); err != nil {
		return err
	}
	if want.NeedsModel() && a.opt.Enrich == nil {
		return fmt.Errorf("strategy %s: %w", want, ErrNeedsModel)
	}
	if len(docs) > 0 && want != have && !a.opt.Reindex {
		return &StrategyError{Library: a.l.name, Have: have, Want: want}
	}
	a.strategy = want
	return nil
}

// stale lists the paths of the documents indexed with another strategy
// than the add's, for a re-index; those whose file is gone are noted and
// left as they are.
func (a *adder) stale(docs []store.Document) []string {
	var paths []string
	for _, d := range docs {
		if DocumentStrategy(d) == a.strategy {
			continue
		}
		if !exists(d.Path) {
			a.rep.Notes = append(a.rep.Notes, Note{Path: d.Path,
				Text: fmt.Sprintf("file is gone; kept as indexed with %s (remove it with ibid rm)", DocumentStrategy(d))})
			continue
		}
		paths = append(paths, d.Path)
	}
	slices.Sort(paths)
	return paths
}

// apply indexes a loaded document (recursive chunks) with the add's
// strategy. It runs on the reader's goroutine for the strategies that
// need no model; enrichment runs on Add's (see enrich).
func (a *adder) apply(ctx context.Context, ld *ingest.Loaded) error {
	switch a.strategy {
	case ingest.Semantic:
		if err := ingest.MakeSemantic(ctx, ld, a.l.emb.Embed, 0); err != nil {
			return err
		}
	case ingest.Hierarchical:
		ingest.MakeHierarchical(ld, 0)
	}
	setStrategy(ld, a.strategy)
	return nil
}

// enrich has the Enricher write what the strategy indexes, reporting
// progress as StageEnrich.
func (a *adder) enrich(path string, ld *ingest.Loaded) error {
	if !a.strategy.NeedsModel() {
		return nil
	}
	err := a.opt.Enrich.Enrich(a.ctx, ld, func(done, total int) {
		a.pmu.Lock()
		defer a.pmu.Unlock()
		a.p.Enriched, a.p.ToEnrich = done, total
		a.report(StageEnrich, path)
	})
	if err != nil {
		if ce := a.ctx.Err(); ce != nil {
			return ce
		}
		return fmt.Errorf("couldn't enrich %s: %w", path, err)
	}
	return nil // apply recorded the strategy; file counts the rows enrichment added
}

// setStrategy records s on ld's document, with its segment count.
func setStrategy(ld *ingest.Loaded, s ingest.Strategy) {
	if ld.Document.Meta == nil {
		ld.Document.Meta = map[string]string{}
	}
	ld.Document.Meta[ingest.MetaStrategy] = string(s)
	ld.Document.Segments = len(ld.Segments)
}
