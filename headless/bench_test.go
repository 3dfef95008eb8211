package headless

import (
	"context"
	"io"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/llm"
	"github.com/ibid-dev/ibid/rag/llmtest"
)

// BenchmarkAskLatency measures what `ibid ask --format ndjson` adds to a
// model's stream: from the model server writing its first content byte to
// the first event written by ask, and from the server writing the last
// byte of a citation token ("]", alone in its chunk) to the ref event
// written. Both include loopback HTTP and go-openai's parsing. Goal: under
// 1 ms each.
func BenchmarkAskLatency(b *testing.B) {
	chunks := []string{"Honey bees pollinate ", "almonds [source_", "1", "] and more text follows."}
	const tokenEnd = 3 // index of the chunk holding the token's last byte
	srv := llmtest.New(llmtest.Reply{Chunks: chunks})
	defer srv.Close()
	var sent [4]atomic.Int64
	srv.Before = func(i int) { sent[i].Store(time.Now().UnixNano()) }
	m, err := llm.Connect(context.Background(), llm.ModelConfig{Config: llm.Config{BaseURL: srv.BaseURL()}, Model: "fake-model"})
	if err != nil {
		b.Fatal(err)
	}
	p := rag.NewPipeline(newFakeLibrary(), rag.ModelAnswerer(m), rag.PipelineOptions{})
	var firsts, refs []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		var firstAt, refAt time.Time
		w := &NDJSONWriter{w: io.Discard}
		err := p.Answer(context.Background(), rag.NewConversation("b"), "bees?", func(e rag.Event) {
			w.Write(e)
			now := time.Now()
			if firstAt.IsZero() {
				firstAt = now
			}
			if e.Type == rag.EventRef && refAt.IsZero() {
				refAt = now
			}
		})
		if err != nil {
			b.Fatal(err)
		}
		first := firstAt.Sub(time.Unix(0, sent[0].Load()))
		ref := refAt.Sub(time.Unix(0, sent[tokenEnd].Load()))
		firsts = append(firsts, first)
		refs = append(refs, ref)
	}
	f50, f99 := quantiles(firsts)
	r50, r99 := quantiles(refs)
	b.ReportMetric(float64(f50.Nanoseconds())/1e3, "µs-first-event-p50")
	b.ReportMetric(float64(r50.Nanoseconds())/1e3, "µs-token-to-ref-p50")
	b.Logf("first byte → first event: p50 %v, p99 %v; token's last byte → ref: p50 %v, p99 %v (n=%d)",
		f50, f99, r50, r99, len(firsts))
}

// quantiles returns the median and the 99th percentile of ds.
func quantiles(ds []time.Duration) (p50, p99 time.Duration) {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2], s[len(s)*99/100]
}
