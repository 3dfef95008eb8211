package ingest

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/ibid-dev/ibid/internal/figures"
	"github.com/ibid-dev/ibid/internal/synthtext"
	"github.com/ibid-dev/ibid/rag/ingest/tokens"
)

// cancelAfter is a context that cancels itself on its n-th Err call, and
// records the work done (bytes of words looked up) at that moment. That
// call still answers nil: the cancel lands just after a look at ctx, so
// the work until the next look is what follows it (answered at once, the
// look that cancelled would stop the load itself, and no missing look
// could be seen).
type cancelAfter struct {
	context.Context
	cancel func()
	mu     sync.Mutex
	calls  int
	n      int
	work   int64 // bytes looked up (tokens.Work) when cancelled
}

func (c *cancelAfter) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	err := c.Context.Err()
	if c.calls == c.n {
		c.work, _ = tokens.Work()
		c.cancel()
	}
	return err
}

// TestCancelStopsPromptly cancels loads of large hostile texts at many
// points and counts the work done after: loading and chunking must look
// at ctx often enough that little work follows (at 1 MB/s, the bound is
// well under a second), wherever the cancel lands: at four looks by
// default, at six up to the 200th with IBID_FIGURES=1 as CI runs it.
func TestCancelStopsPromptly(t *testing.T) {
	const size = 1 << 19       // twice maxAfter: a stretch without a look tokenises more than maxAfter
	const maxAfter = 256 << 10 // bytes of words looked up after cancelling
	looks := []int{1, 2, 3, 10}
	if figures.Enabled() {
		looks = []int{1, 2, 3, 10, 50, 200}
	}
	tokens.Count("warm up")
	for _, h := range synthtext.Hostile {
		data := []byte(h.Make(size))
		for _, n := range looks {
			tokens.ClearCache()
			base, cancel := context.WithCancel(context.Background())
			ctx := &cancelAfter{Context: base, cancel: cancel, n: n}
			_, err := testLoader(t).LoadBytes(ctx, h.File, data)
			cancel()
			if ctx.calls < n {
				if err != nil {
					t.Errorf("%s: %v", h.Name, err)
				}
				break // finished before the n-th look at ctx
			}
			// A load that looked at ctx again stops with its error; one
			// that did not (the cancel came after its last look) ends as
			// it would have; either way little work follows the cancel.
			if (ctx.calls > n || err != nil) && !errors.Is(err, context.Canceled) {
				t.Errorf("%s, cancelled after look %d (%d looks): err %v", h.Name, n, ctx.calls, err)
			}
			lookedUp, _ := tokens.Work()
			if after := lookedUp - ctx.work; after > maxAfter {
				t.Errorf("%s, cancelled after look %d: %d bytes tokenised after", h.Name, n, after)
			}
		}
	}
}
