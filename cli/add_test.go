package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/ibid-dev/ibid/rag/library"
)

func TestAddProgressTerminal(t *testing.T) {
	var b bytes.Buffer
	p := &addPrinter{w: &b, tty: true, width: 60, lib: "default"}
	p.progress(library.AddProgress{Stage: library.StageLoad, File: "/x/paper.pdf", FilesDone: 1, FilesTotal: 4, Segments: 10})
	p.progress(library.AddProgress{Stage: library.StageFile, File: "/x/paper.pdf", FilesDone: 2, FilesTotal: 4, Segments: 120, Embedded: 100, ToEmbed: 120})
	p.clear()
	out := b.String()
	if strings.Count(out, "\r\x1b[K") != 3 || strings.Contains(out, "\n") {
		t.Fatalf("terminal progress is not redrawn in place: %q", out)
	}
	if !strings.Contains(out, "2/4 files") || !strings.Contains(out, "embedding 100/120") || !strings.Contains(out, "█████") {
		t.Fatalf("progress line lacks counts or bar: %q", out)
	}
	for _, line := range strings.Split(out, "\r\x1b[K") {
		if w := ansi.StringWidth(line); w >= 60 {
			t.Errorf("progress line %q is %d cells, wider than the terminal", line, w)
		}
	}
}

// TestProgressLineOCR: a scanned PDF's OCR shows the page Tesseract is on.
func TestProgressLineOCR(t *testing.T) {
	line := progressLine(library.AddProgress{Stage: library.StageOCR, File: "/x/scan.pdf", FilesTotal: 3, OCRDone: 2, OCRTotal: 9}, 120)
	if !strings.Contains(line, "OCR page 2/9 · scan.pdf") {
		t.Fatalf("progress line while OCR reads: %q", line)
	}
}
