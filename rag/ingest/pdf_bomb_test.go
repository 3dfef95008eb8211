package ingest

import (
	"bytes"
	"compress/flate"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// bombPDF is a one-page PDF whose content stream is a FlateDecode stream
// that inflates to about gib GiB of spaces from a few MiB of file: the
// same deflate block (1 MiB of spaces after a window of spaces) repeated.
func bombPDF(gib int) []byte {
	var z bytes.Buffer
	z.Write([]byte{0x78, 0x9c}) // zlib header, default compression
	w, _ := flate.NewWriter(&z, flate.BestCompression)
	spaces := bytes.Repeat([]byte{' '}, 1<<20)
	w.Write(spaces)
	w.Flush()
	prefix := z.Len()
	w.Write(spaces)
	w.Flush()
	block := append([]byte(nil), z.Bytes()[prefix:]...)
	for range gib*1024 - 2 {
		z.Write(block)
	}
	w.Close() // the final block; the Adler-32 checksum is left out
	content := z.Bytes()
	objs := []pdfObject{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", len(content), content),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}
	return buildPDF(objs, "")
}

// A decompression bomb is refused quickly, in bounded memory, with a
// one-line reason, and the engine keeps working afterwards.
func TestPDFBomb(t *testing.T) {
	l := NewLoader(testCacheDir())
	defer l.Close()
	l.pdf.deadline = 2 * time.Second
	if _, err := l.LoadBytes(context.Background(), "tiny.pdf", tinyPDF()); err != nil {
		t.Fatal(err) // starts the engine
	}
	data := bombPDF(2)
	start := time.Now()
	_, err := l.LoadBytes(context.Background(), "bomb.pdf", data)
	took := time.Since(start)
	var se *SkipError
	if !errors.As(err, &se) {
		t.Fatalf("Load = %v; want a SkipError", err)
	}
	if !strings.HasPrefix(se.Reason, "corrupt or hostile PDF (") || strings.Contains(se.Reason, "\n") || len(se.Reason) > 120 {
		t.Errorf("reason %q; want one short line starting with \"corrupt or hostile PDF (\"", se.Reason)
	}
	t.Logf("%d byte bomb refused in %v: %s", len(data), took, se.Reason)
	if took > l.pdf.deadline+time.Second {
		t.Errorf("took %v, past the deadline %v", took, l.pdf.deadline)
	}
	// The engine replaced its worker: the next PDF loads.
	if _, err := l.LoadBytes(context.Background(), "tiny.pdf", tinyPDF()); err != nil {
		t.Errorf("after the bomb, tiny.pdf: %v", err)
	}
}

// A PDF that runs past its deadline is stopped and reported as such.
func TestPDFDeadline(t *testing.T) {
	l := NewLoader(testCacheDir())
	defer l.Close()
	l.pdf.deadline = time.Nanosecond
	_, err := l.LoadBytes(context.Background(), "tiny.pdf", tinyPDF())
	var se *SkipError
	if !errors.As(err, &se) || !strings.HasPrefix(se.Reason, "corrupt or hostile PDF (took longer than") {
		t.Fatalf("Load = %v; want a skip for taking too long", err)
	}
}

// An instance that reaches its memory limit fails the PDF (and only that
// PDF) with a reason that says so.
func TestPDFMemoryLimit(t *testing.T) {
	l := NewLoader(testCacheDir())
	defer l.Close()
	l.pdf.memPages = 1024 // 64 MiB
	big := strings.Repeat("x", 1<<20)
	var pages []string
	for range 80 {
		pages = append(pages, "BT /F1 12 Tf 72 720 Td ("+big+") Tj ET")
	}
	_, err := l.LoadBytes(context.Background(), "big.pdf", pagesPDF("", pages, "", nil))
	var se *SkipError
	if !errors.As(err, &se) || se.Reason != "corrupt or hostile PDF (needed more than the 64 MiB memory limit)" {
		t.Fatalf("Load = %v; want a skip for the memory limit", err)
	}
}

// testCacheDir is the wazero cache the shared test loader uses, so a
// test's own Loader starts warm.
func testCacheDir() string {
	return filepath.Join(os.TempDir(), "ibid-ingest-test-wazero")
}
