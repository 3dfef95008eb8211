package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sync"

	"github.com/ibid-dev/ibid/internal/xdg"
	"github.com/ibid-dev/ibid/rag/enrich"
	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/rag/llm"
)

// enricher is the library's Enricher for an add: rag/enrich with the
// configured model, caching in $XDG_CACHE_HOME/ibid/enrich, adding up
// what every document cost for the report at the end.
type enricher struct {
	opt   enrich.Options
	mu    sync.Mutex
	total enrich.Report
	used  bool
}

// newEnricher connects the chat model strategy s asks to write what it
// indexes (--enrich-model, else --model), or says how to give it one.
func newEnricher(ctx context.Context, cfg *Config, s ingest.Strategy) (*enricher, error) {
	mc := modelConfig(cfg)
	if cfg.EnrichModel != "" {
		mc.Model = cfg.EnrichModel
	}
	m, err := llm.Connect(ctx, mc)
	switch {
	case err != nil:
		return nil, fmt.Errorf("add: strategy %s needs a chat model to write what it indexes: %w; %s", s, err, needsModelAdvice)
	case m == nil: // no server configured and no local one found
		return nil, fmt.Errorf("add: strategy %s needs a chat model to write what it indexes, and none is configured: %s", s, needsModelAdvice)
	}
	return chatEnricher(m, s), nil
}

// chatEnricher is the enricher of strategy s with model m, caching in
// $XDG_CACHE_HOME/ibid/enrich.
func chatEnricher(m *llm.Model, s ingest.Strategy) *enricher {
	// One breaker for the whole add: a model that fails every call is
	// given up on after a run of failures, whatever documents they were.
	return &enricher{opt: enrich.Options{Strategy: s, Model: m, CacheDir: filepath.Join(xdg.CacheDir(), "enrich"), Breaker: enrich.NewBreaker()}}
}

// Enrich enriches one loaded document (library.Enricher).
func (e *enricher) Enrich(ctx context.Context, ld *ingest.Loaded, progress func(done, total int)) error {
	opt := e.opt
	opt.Progress = progress
	rep, err := enrich.Enrich(ctx, ld, opt)
	e.mu.Lock()
	e.total.Add(rep)
	e.used = true
	e.mu.Unlock()
	return err
}

// maxFailures is how many failed chunks the report lists one by one.
const maxFailures = 10

// PrintReport prints what the enrichment cost, and the chunks it could not
// enrich (they were indexed without), if it ran.
func (e *enricher) PrintReport(w io.Writer) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.used {
		return
	}
	r := e.total
	fmt.Fprintf(w, "%s, with %s in %.1f s\n", r, e.opt.Model.Label(), r.Wall.Seconds())
	if e.opt.Breaker.Tripped() != nil {
		return // the add's error says why and how to go on; the chunks of the stopped document were not added
	}
	for i, f := range r.Failures {
		if i == maxFailures {
			fmt.Fprintf(w, "  … and %d more chunks indexed without enrichment\n", len(r.Failures)-maxFailures)
			break
		}
		fmt.Fprintf(w, "  not enriched %s (indexed as it is; the next add tries again)\n", clean(f))
	}
	if r.CacheError != "" {
		fmt.Fprintf(w, "  note: couldn't write the enrichment cache (%s); a later add will pay again\n", clean(r.CacheError))
	}
}
