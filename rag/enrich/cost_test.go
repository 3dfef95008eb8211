package enrich

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/internal/figures"
	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/rag/ingest/tokens"
	"github.com/ibid-dev/ibid/rag/llmtest"
)

// A server that sends no usage: the tokens are estimated, and said to be.
func TestEstimatedTokens(t *testing.T) {
	f := newFake()
	srv, m := server(t, f)
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		rep := f.reply(r)
		rep.Usage = nil
		return rep
	})
	d := document(t, "doc", 2, 1, 60)
	rep, err := Enrich(context.Background(), d, Options{Strategy: ingest.Contextual, Model: m})
	if err != nil {
		t.Fatal(err)
	}
	prompt := contextMessages(documentPrefix(d.Text), d.Segments[0].Text, false)
	least := tokens.Count(prompt[0].Content) + tokens.Count(prompt[1].Content)
	if rep.EstimatedCalls != 2 || rep.InputTokens < 2*least || rep.OutputTokens == 0 || rep.CachedInputTokens != 0 {
		t.Errorf("report %+v; want estimated tokens, at least %d input", rep, 2*least)
	}
}

// TestCostPer1000Chunks measures what enriching 1,000 chunks costs against
// the fake with a fixed 20 ms latency at the default concurrency, and the
// cache hit rate of adding them again. Run with -v to see the figures.
func TestCostPer1000Chunks(t *testing.T) {
	figures.Require(t)
	enrichTwice(t, 20, 50)
}

// TestCostSmallSample checks on 20 chunks what TestCostPer1000Chunks
// measures on 1,000: one call a chunk, and none when they are added again.
func TestCostSmallSample(t *testing.T) {
	enrichTwice(t, 2, 10)
}

// enrichTwice enriches docs documents of perDoc chunks with every
// strategy against the fake at 20 ms latency, then again from the cache,
// and checks one call a chunk the first time and none the second.
func enrichTwice(t *testing.T, docs, perDoc int) {
	t.Helper()
	for _, s := range []ingest.Strategy{ingest.Contextual, ingest.WindowSummary, ingest.Questions} {
		f := newFake()
		srv, m := server(t, f)
		srv.SetLatency(20 * time.Millisecond)
		dir := t.TempDir()
		load := func() []*ingest.Loaded {
			var ls []*ingest.Loaded
			for i := range docs {
				l := document(t, fmt.Sprintf("doc%d", i), perDoc, 1, 60)
				if len(l.Segments) != perDoc {
					t.Fatalf("%d chunks", len(l.Segments))
				}
				ls = append(ls, l)
			}
			return ls
		}
		opt := Options{Strategy: s, Model: m, CacheDir: dir}
		rep, err := EnrichAll(context.Background(), load(), opt)
		if err != nil || rep.Failed != 0 || rep.Calls != docs*perDoc {
			t.Fatalf("%s: %+v, %v", s, rep, err)
		}
		again, err := EnrichAll(context.Background(), load(), opt)
		if err != nil || again.Calls != 0 {
			t.Fatalf("%s again: %+v, %v", s, again, err)
		}
		t.Logf("%-14s per %d chunks: %d calls, %d input tokens (%d cached), %d output tokens, wall %v at concurrency %d, 20 ms latency; repeated add: %d calls, cache hit rate %.0f%%, wall %v",
			s, docs*perDoc, rep.Calls, rep.InputTokens, rep.CachedInputTokens, rep.OutputTokens, rep.Wall.Round(10*time.Millisecond),
			DefaultConcurrency, again.Calls, 100*float64(again.CacheHits)/float64(again.CacheHits+again.Calls), again.Wall.Round(time.Millisecond))
	}
}
