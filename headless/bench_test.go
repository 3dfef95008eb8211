package headless

import (
	"context"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/rag"
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
	m, err := rag.ConnectModel(context.Background(), rag.ModelConfig{BaseURL: srv.BaseURL(), Model: "fake-model"})
	if err != nil {
		b.Fatal(err)
	}
	p := rag.NewPipeline(newFakeLibrary(), m, rag.PipelineOptions{})
	var firstTotal, refTotal time.Duration
	var worstFirst, worstRef time.Duration
	n := 0
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
		firstTotal += first
		refTotal += ref
		worstFirst = max(worstFirst, first)
		worstRef = max(worstRef, ref)
		n++
	}
	b.ReportMetric(float64(firstTotal.Microseconds())/float64(n), "µs-first-event")
	b.ReportMetric(float64(refTotal.Microseconds())/float64(n), "µs-token-to-ref")
	b.Logf("first byte → first event: mean %v, worst %v; token's last byte → ref: mean %v, worst %v (n=%d)",
		firstTotal/time.Duration(n), worstFirst, refTotal/time.Duration(n), worstRef, n)
}
