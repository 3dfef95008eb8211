package enrich

import (
	"errors"
	"fmt"
	"sync"
)

// DefaultFailureRun is how many model calls in a row may fail (each past
// the client's retry policy) before a Breaker stops calling the model.
const DefaultFailureRun = 8

// ErrModelFailing is wrapped by the error of an Enrich that stopped
// because its Breaker tripped: the model failed every call of a run, so
// that asking it for the rest would only cost time (a thousand chunks at
// five tries each is half an hour of nothing).
var ErrModelFailing = errors.New("the model failed every call of a run, and was not asked again")

// Breaker stops calling a model that fails every call. The runs that share
// one (one per document of an add) count calls that failed in a row, after
// the client's retry policy, across documents; a success starts the count
// again. After Limit failures in a row, or at once for a failure that will
// fail every call (no server, a refused key, no such model), it trips:
// every later call fails at once, and Enrich returns an error wrapping
// ErrModelFailing, which stops the add (keeping the documents enriched
// before; their answers are cached, so a rerun pays only for the rest).
// A nil *Breaker never trips. It is safe for concurrent use.
type Breaker struct {
	// Limit is the run of failures that trips it; 0 means
	// DefaultFailureRun.
	Limit int

	mu      sync.Mutex
	run     int
	tripped error
}

// NewBreaker returns a Breaker with the default limit.
func NewBreaker() *Breaker { return &Breaker{} }

// Tripped is the error every call fails with once the breaker tripped, nil
// before.
func (b *Breaker) Tripped() error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.tripped
}

// record counts a call's outcome: err nil for a call the model answered.
// lasting says err will fail every later call.
func (b *Breaker) record(err error, lasting bool) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.tripped != nil {
		return
	}
	if err == nil {
		b.run = 0
		return
	}
	b.run++
	limit := b.Limit
	if limit <= 0 {
		limit = DefaultFailureRun
	}
	switch {
	case lasting:
		b.tripped = fmt.Errorf("%w (%v)", ErrModelFailing, err)
	case b.run >= limit:
		b.tripped = fmt.Errorf("%w: %d calls in a row failed (the last: %v)", ErrModelFailing, b.run, oneLine(err.Error()))
	}
}
