package ingest

import (
	"context"
	"path/filepath"
	"testing"
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
