package ingest

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkPDFPages loads the real PDFs with ibid (pdfium, layout and
// chunking, engine started) and with poppler's pdftotext (a process per
// file, as a user would run it) in one run, and reports pages per second
// for both. The goal is ibid within 3× of pdftotext per page.
//
//	go test ./rag/ingest/ -run '^$' -bench PDFPages -benchtime 5x
func BenchmarkPDFPages(b *testing.B) {
	files := []string{"alce-gao2023-citations.pdf", "elegantpaper-en.pdf", "elegantpaper-cn.pdf"}
	var paths []string
	pages := 0
	for _, f := range files {
		p := filepath.Join(sharedPDFDir, f)
		ld, err := testLoader(b).Load(context.Background(), p)
		if err != nil {
			b.Skip(err)
		}
		paths = append(paths, p)
		pages += ld.Document.Pages
	}
	b.Run("ibid", func(b *testing.B) {
		for b.Loop() {
			for _, p := range paths {
				if _, err := testLoader(b).Load(context.Background(), p); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(pages*b.N)/b.Elapsed().Seconds(), "pages/s")
	})
	b.Run("pdftotext", func(b *testing.B) {
		if _, err := exec.LookPath("pdftotext"); err != nil {
			b.Skip("pdftotext not installed (apt-get install poppler-utils)")
		}
		for b.Loop() {
			for _, p := range paths {
				if err := exec.Command("pdftotext", p, "/dev/null").Run(); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(pages*b.N)/b.Elapsed().Seconds(), "pages/s")
	})
}
