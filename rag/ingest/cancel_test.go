package ingest

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/ibid-dev/ibid/internal/figures"
)

// cancelAfter is a context that cancels itself on its n-th Err call, and
// records the work done (bytes of words looked up) at that moment.
type cancelAfter struct {
	context.Context
	cancel func()
	mu     sync.Mutex
	calls  int
	n      int
	work   int64 // lookedUpBytes when cancelled
}

func (c *cancelAfter) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	if c.calls == c.n {
		c.work = lookedUpBytes.Load()
		c.cancel()
	}
	return c.Context.Err()
}

// TestCancelStopsPromptly cancels loads of large hostile texts at many
// points and counts the work done after: loading and chunking must look
// at ctx often enough that little work follows (at 1 MB/s, the bound is
// well under a second), wherever the cancel lands: at four looks by
// default, at six up to the 200th with IBID_FIGURES=1 as CI runs it.
func TestCancelStopsPromptly(t *testing.T) {
	const size = 1 << 20
	const maxAfter = 256 << 10 // bytes of words looked up after cancelling
	looks := []int{1, 2, 3, 10}
	if figures.Enabled() {
		looks = []int{1, 2, 3, 10, 50, 200}
	}
	CountTokens("warm up")
	for _, h := range hostile {
		data := []byte(h.gen(size))
		for _, n := range looks {
			clearWordCache()
			base, cancel := context.WithCancel(context.Background())
			ctx := &cancelAfter{Context: base, cancel: cancel, n: n}
			_, err := testLoader(t).LoadBytes(ctx, h.file, data)
			cancel()
			if ctx.calls < n {
				if err != nil {
					t.Errorf("%s: %v", h.name, err)
				}
				break // finished before the n-th look at ctx
			}
			if !errors.Is(err, context.Canceled) {
				t.Errorf("%s, cancelled at look %d: err %v", h.name, n, err)
			}
			if after := lookedUpBytes.Load() - ctx.work; after > maxAfter {
				t.Errorf("%s, cancelled at look %d: %d bytes tokenised after", h.name, n, after)
			}
		}
	}
}
