package library

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// BenchmarkLibraryAdd adds 200 small Markdown notes (6 segments each) with
// the local embedder, into a library in memory and into one on disk (with
// its commits and syncs). Figures: go test -run XXX -bench LibraryAdd ./rag/
func BenchmarkLibraryAdd(b *testing.B) {
	for _, mode := range []string{"memory", "disk"} {
		b.Run(mode, func(b *testing.B) {
			tmp := b.TempDir()
			b.Setenv("XDG_CACHE_HOME", filepath.Join(os.TempDir(), "ibid-rag-test-cache"))
			docs := filepath.Join(tmp, "docs")
			manyNotes(b, docs, 200)
			segs := 0
			i := 0
			for b.Loop() {
				i++
				opt := Options{InMemory: mode == "memory", Store: filepath.Join(tmp, "lib", strconv.Itoa(i))}
				l, err := Open(context.Background(), opt)
				if err != nil {
					b.Fatal(err)
				}
				rep, err := l.Add(context.Background(), []string{docs}, nil)
				if err != nil || len(rep.Added) != 200 {
					b.Fatalf("added %d: %v", len(rep.Added), err)
				}
				segs = mustLen(b, l)
				l.Close()
			}
			b.ReportMetric(float64(segs*b.N)/b.Elapsed().Seconds(), "segments/s")
		})
	}
}
