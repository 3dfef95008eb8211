package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/internal/shareddata"
)

// TestRealPDFs runs add, ls and search over real papers from
// ../shared/data/pdf: a born-digital paper is added with its pages, and a
// scan without a text layer is skipped with what to do about it.
func TestRealPDFs(t *testing.T) {
	paper := shareddata.Path(t, "pdf", "elegantpaper-en.pdf")
	scan := shareddata.Path(t, "pdf", "jo-miyazawa-ja-vertical.pdf")
	if testing.Short() {
		t.Skip("reads PDFs with the PDF engine")
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	cmdEnv(t)
	// The PDF engine's compiled code is the user's cache, kept between
	// runs (a fresh one costs tens of seconds under -race).
	t.Setenv("XDG_CACHE_HOME", cache)
	code, out, errs := runCmd(t, "add", paper, scan)
	if code != 0 || !strings.Contains(out, "1 added") || !strings.Contains(out, "1 skipped") || !strings.Contains(out, "run OCR") {
		t.Fatalf("add: %d\n%s\n%s", code, out, errs)
	}
	code, out, _ = runCmd(t, "ls")
	if code != 0 || !strings.Contains(out, "ElegantPaper") || !strings.Contains(out, "pdf          5 ") {
		t.Errorf("ls (title, format, 5 pages):\n%s", out)
	}
	code, out, _ = runCmd(t, "search", "-k", "1", "--section", "Bibliography", "BibTeX bibliography style")
	if code != 0 || !strings.Contains(out, "1. ") || !strings.Contains(out, "pp. 3–4") || !strings.Contains(out, "1.6 Bibliography") {
		t.Errorf("search (page range and section of the passage):\n%s", out)
	}
}
