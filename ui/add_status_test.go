package ui

import (
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/rag/library"
	"github.com/ibid-dev/ibid/ui/backend"
)

// TestAddStatusShowsOCR: while /add waits on Tesseract, the status line
// says which scanned page it is on; at other stages it says nothing of OCR.
func TestAddStatusShowsOCR(t *testing.T) {
	t.Parallel()
	m := New(newFakeBackend(sampleAnswer), darkOpt())
	m.width = 160
	m.adding = true
	m.addProgress = backend.AddProgress{Stage: library.StageOCR.String(), File: "/papers/scan.pdf", FilesTotal: 2, OCRDone: 3, OCRTotal: 12}
	if line := strings.Join(m.statusLines(), "\n"); !strings.Contains(line, "OCR page 3/12") || !strings.Contains(line, "scan.pdf") {
		t.Fatalf("status while OCR reads a page: %q", line)
	}
	m.addProgress.Stage = library.StageEmbed.String()
	if line := strings.Join(m.statusLines(), "\n"); strings.Contains(line, "OCR") {
		t.Fatalf("status after OCR: %q", line)
	}
}
