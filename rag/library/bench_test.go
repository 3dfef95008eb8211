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

// BenchmarkSyncUnchanged syncs a followed folder of 1,000 unchanged notes
// in a library on disk: what `ibid sync` costs when nothing changed (the
// files are listed and stat'ed, never read), and, for comparison, a
// re-add of the folder, which now takes the same shortcut.
// Figures: go test -run XXX -bench SyncUnchanged ./rag/library/
func BenchmarkSyncUnchanged(b *testing.B) {
	tmp := b.TempDir()
	b.Setenv("XDG_CACHE_HOME", filepath.Join(os.TempDir(), "ibid-rag-test-cache"))
	b.Setenv("XDG_DATA_HOME", filepath.Join(tmp, "data"))
	docs := filepath.Join(tmp, "docs")
	files := make(map[string]string, 1000)
	for i := range 1000 {
		files[filepath.Join("sub"+strconv.Itoa(i%10), "note-"+strconv.Itoa(i)+".md")] =
			"# Note " + strconv.Itoa(i) + "\n\nA short note about topic " + strconv.Itoa(i) + ".\n"
	}
	writeFiles(b, docs, files)
	l, err := Open(context.Background(), Options{Store: filepath.Join(tmp, "lib")})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	if rep, err := l.AddWith(context.Background(), []string{docs}, AddOptions{Follow: true}, nil); err != nil || len(rep.Added) != 1000 {
		b.Fatalf("setup: %v", err)
	}
	b.Run("sync", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			rep, err := l.Sync(context.Background(), SyncOptions{}, nil)
			if err != nil || rep.Changed() || rep.Unchanged != 1000 {
				b.Fatalf("sync: %v, %+v", err, rep)
			}
		}
	})
	b.Run("re-add", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			rep, err := l.Add(context.Background(), []string{docs}, nil)
			if err != nil || len(rep.Unchanged) != 1000 {
				b.Fatalf("re-add: %v", err)
			}
		}
	})
}
