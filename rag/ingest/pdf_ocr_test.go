package ingest

import (
	"context"
	"errors"
	"image"
	_ "image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/rag/ingest/pdf"
	"github.com/ibid-dev/ibid/rag/ingest/pdf/pdftest"
)

// scannedPDF is testdata/scanned.pdf: a page of text rendered to an
// image and wrapped as a PDF with no text layer, made by makeScannedPDF
// (again with -update; made in every run, its rendering and image coding
// cost half a second under the race detector).
func scannedPDF(t *testing.T) []byte {
	t.Helper()
	path := filepath.Join("testdata", "scanned.pdf")
	if *update {
		if err := os.WriteFile(path, makeScannedPDF(t), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// makeScannedPDF renders a page of two lines and wraps the image as a
// scan.
func makeScannedPDF(t *testing.T) []byte {
	t.Helper()
	page := pdftest.Column(pdftest.LeftX, 660, 216,
		"A scanned page holds this sentence,",
		"which only OCR can read back again.")
	png, err := testLoader(t).RenderPage(context.Background(), writeTemp(t, "text.pdf", pdftest.Paper([][]pdftest.Item{page})), 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	img, _, err := image.Decode(strings.NewReader(string(png)))
	if err != nil {
		t.Fatal(err)
	}
	return pdftest.Scanned(612, 792, img)
}

// A scanned PDF is read with Tesseract: its passages hold the page's
// sentence, on page 1, with boxes, and the document says which pages are
// OCR text. Without Tesseract it is skipped with the command that
// installs it.
func TestScannedPDFLoads(t *testing.T) {
	data := scannedPDF(t)
	t.Run("without tesseract", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		_, err := testLoader(t).LoadBytes(context.Background(), "scan.pdf", data)
		var se *SkipError
		if !errors.As(err, &se) || se.Reason != pdf.ReasonNoTesseract || !strings.Contains(se.Reason, "apt-get install tesseract-ocr tesseract-ocr-eng") {
			t.Fatalf("Load = %v; want the skip with the install command", err)
		}
	})
	if _, err := exec.LookPath("tesseract"); err != nil {
		t.Skipf("tesseract not installed (%s)", pdf.InstallTesseract)
	}
	ld, err := testLoader(t).LoadBytes(context.Background(), "scan.pdf", data)
	if err != nil {
		t.Fatal(err)
	}
	if ld.Document.Meta[MetaOCRPages] != "1" {
		t.Errorf("ocr pages %q, want 1", ld.Document.Meta[MetaOCRPages])
	}
	s := segmentOf(t, ld, "A scanned page holds this sentence, which only OCR can read back again.")
	if s.From != 1 || s.To != 1 || len(ld.Segments[0].Boxes) == 0 {
		t.Errorf("segment on pages %d-%d, boxes %v", s.From, s.To, ld.Segments[0].Boxes)
	}
}

// writeTemp writes data to a file named name in a temporary folder.
func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
