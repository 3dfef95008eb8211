package pdf

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"github.com/ibid-dev/ibid/internal/figures"
	"github.com/ibid-dev/ibid/rag/ingest/pdf/pdftest"
	"io"
	"strings"
	"testing"
	"time"
)

// bombPDF is a one-page PDF whose content stream is a FlateDecode stream
// that inflates to about mib MiB of spaces from a thousandth of that in
// file: the same deflate block (1 MiB of spaces after a window of spaces)
// repeated.
func bombPDF(mib int) []byte {
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
	for range mib - 2 {
		z.Write(block)
	}
	w.Close() // the final block; the Adler-32 checksum is left out
	content := z.Bytes()
	objs := []pdftest.Object{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", len(content), content),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}
	return pdftest.Build(objs, "")
}

// A decompression bomb is refused quickly, in bounded memory (its stream
// checked before pdfium inflates it), with a one-line reason, and the
// engine keeps working afterwards. (Its limit
// is 16 MiB and the bomb 128 MiB: users' limit of 256 MiB and a bomb of
// gigabytes cost seconds of inflating under the race detector for the
// same refusal; TestPDFBombMemory reads such a bomb.)
func TestPDFBomb(t *testing.T) {
	e := NewEngine(testCacheDir())
	defer e.Close()
	e.deadline = 2 * time.Second
	e.inflate = 16 << 20
	if _, err := e.Read(context.Background(), pdftest.Tiny()); err != nil {
		t.Fatal(err) // starts the engine
	}
	data := bombPDF(128)
	start := time.Now()
	_, err := e.Read(context.Background(), data)
	took := time.Since(start)
	var se *Error
	if !errors.As(err, &se) {
		t.Fatalf("Read = %v; want an *Error", err)
	}
	if !strings.HasPrefix(se.Reason, "corrupt or hostile PDF (") || strings.Contains(se.Reason, "\n") || len(se.Reason) > 120 {
		t.Errorf("reason %q; want one short line starting with \"corrupt or hostile PDF (\"", se.Reason)
	}
	t.Logf("%d byte bomb refused in %v: %s", len(data), took, se.Reason)
	if !strings.Contains(se.Reason, "inflates past 16 MiB") {
		t.Errorf("reason %q; want the stream's inflation refused before pdfium inflated it", se.Reason)
	}
	if took > e.deadline+time.Second {
		t.Errorf("took %v, past the deadline %v", took, e.deadline)
	}
	// The engine replaced its worker: the next PDF loads.
	if _, err := e.Read(context.Background(), pdftest.Tiny()); err != nil {
		t.Errorf("after the bomb, tiny.pdf: %v", err)
	}
}

// A PDF that runs past its deadline is stopped and reported as such.
func TestPDFDeadline(t *testing.T) {
	e := NewEngine(testCacheDir())
	defer e.Close()
	e.deadline = time.Nanosecond
	_, err := e.Read(context.Background(), pdftest.Tiny())
	var se *Error
	if !errors.As(err, &se) || !strings.HasPrefix(se.Reason, "corrupt or hostile PDF (took longer than") {
		t.Fatalf("Load = %v; want a skip for taking too long", err)
	}
}

// An instance that reaches its memory limit fails the PDF (and only that
// PDF) with a reason that says so. The 80 MB PDF it takes peaks at 2.3 GB
// and minutes under -race (a 48 MB one runs pdfium out of memory before
// the limit), so it runs with the measurement tests (CI).
func TestPDFMemoryLimit(t *testing.T) {
	figures.Require(t)
	e := NewEngine(testCacheDir())
	defer e.Close()
	e.memPages = 1024 // 64 MiB
	big := strings.Repeat("x", 1<<20)
	var pages []string
	for range 80 {
		pages = append(pages, "BT /F1 12 Tf 72 720 Td ("+big+") Tj ET")
	}
	_, err := e.Read(context.Background(), pdftest.Pages("", pages, "", nil))
	var se *Error
	if !errors.As(err, &se) || se.Reason != "corrupt or hostile PDF (needed more than the 64 MiB memory limit)" {
		t.Fatalf("Read = %v; want a skip for the memory limit", err)
	}
}

// A PDF with more characters than the engine's bound is refused before
// its characters are read, with a reason that says so.
func TestPDFCharacterLimit(t *testing.T) {
	e := NewEngine(testCacheDir())
	defer e.Close()
	e.chars = 200
	line := strings.Repeat("word ", 12)
	page := pdftest.TextContent(line, line)
	if _, err := e.Read(context.Background(), pdftest.Pages("", []string{page}, "", nil)); err != nil {
		t.Fatalf("a page of %d characters: %v", 2*len(line), err)
	}
	_, err := e.Read(context.Background(), pdftest.Pages("", []string{page, page}, "", nil))
	var pe *Error
	if !errors.As(err, &pe) || pe.Reason != "corrupt or hostile PDF (more than 200 characters of text)" {
		t.Fatalf("Read = %v; want the character limit", err)
	}
}

// The layout runs under the same deadline as pdfium: a layout whose
// context ends stops at its next page with the context's error.
func TestLayoutStopsAtDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-ctx.Done()
	_, err := readPaper(ctx, &extracted{Pages: []*rawPage{densePage(50, 40), densePage(50, 40)}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("readPaper = %v; want the deadline", err)
	}
}

// Compressed streams are checked before pdfium sees them: a content
// stream that inflates past the limit is refused at once, and the reason
// says the limit; a compressed content stream of a few lines is read as
// usual.
func TestCompressedStreams(t *testing.T) {
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	io.WriteString(w, pdftest.TextContent("Compressed text reads as any other."))
	w.Close()
	objs := []pdftest.Object{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", z.Len(), z.Bytes()),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}
	d, err := testEngine(t).Read(context.Background(), pdftest.Build(objs, ""))
	if err != nil || !strings.Contains(d.text(), "Compressed text reads as any other.") {
		t.Fatalf("compressed page: %v", err)
	}
	if err := checkStreams(context.Background(), bombPDF(64), 16<<20); err == nil || !strings.Contains(err.Error(), "inflates past 16 MiB") {
		t.Fatalf("checkStreams(bomb) = %v", err)
	}
}
