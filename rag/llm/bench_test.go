package llm

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/rag/llmtest"
)

// BenchmarkStream streams a 200-chunk answer over loopback HTTP through the
// client, with and without the idle timeout's per-read timer, to show what
// the retry and timeout layer costs per answer.
func BenchmarkStream(b *testing.B) {
	chunks := llmtest.Split(strings.Repeat("Bees pollinate almonds [source_1]. ", 200), 35)
	for _, bc := range []struct {
		name string
		idle time.Duration
	}{{"idle=2m", 0}, {"idle=off", -1}} {
		b.Run(bc.name, func(b *testing.B) {
			srv := llmtest.New(llmtest.Reply{Chunks: chunks})
			defer srv.Close()
			m := modelOn(srv, Config{IdleTimeout: bc.idle})
			b.ReportAllocs()
			for b.Loop() {
				n := 0
				if err := m.Stream(context.Background(), []Message{{Role: RoleUser, Content: "q"}}, nil, func(s string) { n += len(s) }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
