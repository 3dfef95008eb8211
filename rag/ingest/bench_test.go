package ingest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ibid-dev/ibid/internal/cputime"
	"github.com/ibid-dev/ibid/internal/synthtext"
	"github.com/ibid-dev/ibid/rag/ingest/tokens"
)

// BenchmarkPDFStartup measures a new Loader's first PDF (the tiny one in
// testdata): compiling pdfium's WebAssembly with an empty cache directory
// (cold), with a filled one (warm, as in every ibid run after the first),
// and with no cache directory at all. Run with -benchtime=3x: one cold
// iteration takes seconds.
//
//	go test ./rag/ingest/ -run '^$' -bench PDFStartup -benchtime 3x
func BenchmarkPDFStartup(b *testing.B) {
	path := filepath.Join("testdata", "tiny.pdf")
	first := func(b *testing.B, cacheDir string) {
		l := NewLoader(cacheDir)
		if _, err := l.Load(context.Background(), path); err != nil {
			b.Fatal(err)
		}
		if err := l.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			dir := b.TempDir()
			b.StartTimer()
			first(b, dir)
		}
	})
	b.Run("warm", func(b *testing.B) {
		dir := b.TempDir()
		first(b, dir)
		for b.Loop() {
			first(b, dir)
		}
	})
	b.Run("nocache", func(b *testing.B) {
		for b.Loop() {
			first(b, "")
		}
	})
}

// BenchmarkLoad measures loading and chunking with a started engine.
func BenchmarkLoad(b *testing.B) {
	for _, f := range []string{
		filepath.Join("testdata", "notes.md"),
		filepath.Join("testdata", "page.html"),
		filepath.Join(sharedPDFDir, "alce-gao2023-citations.pdf"),
		filepath.Join(sharedPDFDir, "elegantpaper-cn.pdf"),
	} {
		b.Run(filepath.Base(f), func(b *testing.B) {
			l := testLoader(b)
			if _, err := l.Load(context.Background(), f); err != nil {
				b.Skip(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := l.Load(context.Background(), f); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkHostile measures loading and chunking per input class at
// 64 KB and 1 MB (and 16 MB with -bench16mb): every class should reach
// 1 MB/s, with time per MB flat across sizes (within 2x).
//
//	go test ./rag/ingest/ -run '^$' -bench Hostile -benchtime 2x
func BenchmarkHostile(b *testing.B) {
	sizes := []int{64 << 10, 1 << 20}
	if *bench16 {
		sizes = append(sizes, 16<<20)
	}
	l := NewLoader("")
	defer l.Close()
	tokens.Count("warm up") // build the tokenizer outside the timings
	for _, h := range synthtext.Hostile {
		for _, n := range sizes {
			data := []byte(h.Make(n))
			b.Run(h.Name+"/"+sizeName(n), func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				// CPU time as well as wall time: on a shared machine the
				// wall clock measures the neighbours too.
				cpu0 := cputime.Process()
				defer func() {
					mb := float64(len(data)) / (1 << 20) * float64(b.N)
					b.ReportMetric((cputime.Process()-cpu0).Seconds()*1000/mb, "cpu-ms/MB")
				}()
				for b.Loop() {
					b.StopTimer()
					tokens.ClearCache() // a file is loaded once: no cache from the last round
					b.StartTimer()
					if _, err := l.LoadBytes(context.Background(), h.File, data); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
