package eval

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"github.com/ibid-dev/ibid/rag/retrieve"
)

// This file embeds an evaluation's corpus and queries: in batches, in
// parallel for the local embedder, each query once.

// embedAll embeds texts in batches, on all CPUs for the local embedder,
// calling progress after each batch.
func embedAll(ctx context.Context, emb retrieve.Embedder, texts []string, progress func(done int)) ([][]float32, error) {
	const batch = 64
	out := make([][]float32, len(texts))
	workers := 1
	if emb.Name() == retrieve.NewLocalEmbedder().Name() {
		workers = runtime.GOMAXPROCS(0)
	}
	var (
		mu    sync.Mutex
		done  int
		first error
		wg    sync.WaitGroup
		next  = make(chan int)
	)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for range workers {
		wg.Go(func() {
			for lo := range next {
				hi := min(lo+batch, len(texts))
				vs, err := emb.Embed(ctx, texts[lo:hi])
				if err == nil && len(vs) != hi-lo {
					err = fmt.Errorf("embedder returned %d vectors for %d texts", len(vs), hi-lo)
				}
				mu.Lock()
				if err != nil && first == nil {
					first = fmt.Errorf("couldn't embed documents: %w", err)
					cancel()
				}
				if err == nil {
					copy(out[lo:hi], vs)
					done += hi - lo
					progress(done)
				}
				mu.Unlock()
			}
		})
	}
feed:
	for lo := 0; lo < len(texts); lo += batch {
		select {
		case next <- lo:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if first != nil {
		return nil, first
	}
	return out, ctx.Err()
}

// cachedEmbedder remembers the vectors of texts embedded before (the
// queries, embedded once for the dense and the hybrid run).
type cachedEmbedder struct {
	retrieve.Embedder
	mu    sync.Mutex
	cache map[string][]float32
}

func (c *cachedEmbedder) warm(ctx context.Context, texts []string) error {
	vs, err := embedAll(ctx, c.Embedder, texts, func(int) {})
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, t := range texts {
		c.cache[t] = vs[i]
	}
	return nil
}

func (c *cachedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.mu.Lock()
	out := make([][]float32, len(texts))
	var miss []string
	for i, t := range texts {
		if v, ok := c.cache[t]; ok {
			out[i] = v
		} else {
			miss = append(miss, t)
		}
	}
	c.mu.Unlock()
	if len(miss) == 0 {
		return out, nil
	}
	vs, err := c.Embedder.Embed(ctx, miss)
	if err != nil {
		return nil, err
	}
	j := 0
	for i := range out {
		if out[i] == nil {
			out[i] = vs[j]
			j++
		}
	}
	return out, nil
}
