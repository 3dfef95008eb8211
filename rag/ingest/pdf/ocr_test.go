package pdf

import (
	"context"
	"fmt"
	"image"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/rag/ingest/pdf/pdftest"
)

// Tesseract runs with OpenMP held to one thread (pages are read a
// Tesseract a core already), unless the user set a limit of their own.
func TestTesseractOneThread(t *testing.T) {
	t.Setenv("OMP_THREAD_LIMIT", "")
	os.Unsetenv("OMP_THREAD_LIMIT")
	if env := tesseractEnv(); !slices.Contains(env, "OMP_THREAD_LIMIT=1") {
		t.Errorf("OMP_THREAD_LIMIT unset: Tesseract's environment lacks OMP_THREAD_LIMIT=1")
	}
	t.Setenv("OMP_THREAD_LIMIT", "2")
	env := tesseractEnv()
	if !slices.Contains(env, "OMP_THREAD_LIMIT=2") || slices.Contains(env, "OMP_THREAD_LIMIT=1") {
		t.Errorf("OMP_THREAD_LIMIT=2 set: Tesseract's environment has %q", slices.DeleteFunc(env, func(v string) bool { return !strings.HasPrefix(v, "OMP_") }))
	}
}

// scanOf renders each page of a PDF at dpi and wraps the images as a PDF
// with no text layer: a scan of it.
func scanOf(t testing.TB, data []byte, pages, dpi int) []byte {
	t.Helper()
	var imgs []image.Image
	for i := range pages {
		img, _, err := testEngine(t).render(context.Background(), data, i, dpi, false)
		if err != nil {
			t.Fatal(err)
		}
		imgs = append(imgs, img)
	}
	return pdftest.Scanned(612, 792, imgs...)
}

func needTesseract(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("tesseract"); err != nil {
		t.Skipf("tesseract not installed (%s)", InstallTesseract)
	}
}

// scannedPaper is a two-page, two-column paper to scan.
func scannedPaper() []byte {
	const w = 216 // 36 Courier characters at 10 points
	p1 := []pdftest.Item{{X: 150, Y: 720, Size: 18, Bold: true, Text: "A Paper Read From Its Scan"}}
	p1 = append(p1, pdftest.Column(pdftest.LeftX, 660, w,
		"Scanned papers are read with help of",
		"Tesseract, whose words keep boxes of",
		"their own on the page.")...)
	p1 = append(p1, pdftest.Column(pdftest.LeftX, 610, w,
		"A second paragraph in the left side",
		"ends this column before the right.")...)
	p1 = append(p1, pdftest.Column(pdftest.RightX, 660, w,
		"The right column goes on with words",
		"of its own, read after the left one",
		"and three lines long.")...)
	p2 := []pdftest.Item{{X: pdftest.LeftX, Y: 690, Size: 12, Bold: true, Text: "2 Method"}}
	p2 = append(p2, pdftest.Column(pdftest.LeftX, 672, w, "We measure the layout of each page.")...)
	return pdftest.Paper([][]pdftest.Item{p1, p2})
}

// A scanned two-column paper (its pages rendered to images and wrapped as
// a PDF without text) is read with Tesseract: its paragraphs in reading
// order, on their pages, each line's box where the words are drawn, and
// its pages marked as OCR'd. Read again, the pages come from the cache.
// (The shared engine reads at testOCRDPI; the scan is at 150 DPI.)
func TestScannedTwoColumnPaper(t *testing.T) {
	needTesseract(t)
	scan := scanOf(t, scannedPaper(), 2, 150)
	e := testEngine(t)
	var progress []int
	ctx := WithOCRProgress(context.Background(), func(done, total int) { progress = append(progress, done) })
	start := time.Now()
	d, err := e.Read(ctx, scan)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	text := d.text()
	for _, want := range []string{"Scanned papers are read with help of Tesseract, whose words keep boxes of", "The right column goes on with words of its own, read after the left one and three lines long.", "We measure the layout of each page."} {
		if !strings.Contains(text, want) {
			t.Errorf("OCR text lacks %q:\n%s", want, text)
		}
	}
	// Reading order: the left column before the right one.
	if a, b := strings.Index(text, "ends this column before the right"), strings.Index(text, "The right column goes on"); a < 0 || b < 0 || a > b {
		t.Errorf("left column at %d, right at %d", a, b)
	}
	if !d.Pages[0].OCR || !d.Pages[1].OCR || !slices.Equal(progress, []int{0, 1, 2}) {
		t.Errorf("pages OCR %v %v, progress %v", d.Pages[0].OCR, d.Pages[1].OCR, progress)
	}
	for _, b := range d.Blocks {
		if strings.Contains(b.Text, "We measure the layout of each page.") {
			// Drawn at (72, 672) on page 2, in points from the bottom.
			if l := b.Lines[0].Box; l.Page != 2 || l.X0 < 65 || l.X0 > 80 || l.Y1 < 792-680 || l.Y0 > 792-660 {
				t.Errorf("line box %+v, want page 2 near (72, %d)", l, 792-672)
			}
		}
	}
	t.Logf("2 scanned pages read in %v (%.2f pages/s)", took, 2/took.Seconds())
	// Again: the cache answers, no tesseract runs.
	start = time.Now()
	again, err := e.Read(context.Background(), scan)
	if err != nil || again.text() != text {
		t.Fatalf("second read: %v, same text %v", err, again != nil && again.text() == text)
	}
	t.Logf("cached: %v", time.Since(start))
}

// A page too large to render at the OCR resolution within maxRenderSide
// pixels is read at a lower one, and its words' boxes are in points all
// the same (they were scaled as if at the full resolution, which put a
// line low on a long page far above where it is drawn).
func TestOCRLargePage(t *testing.T) {
	needTesseract(t)
	const w, h = 300, 3000 // points: 6,250 pixels long at 150 DPI
	page := pdftest.Build([]pdftest.Object{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>",
		fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>", w, h),
		pdftest.Stream("BT /F1 14 Tf 30 200 Td (A line low on a long page.) Tj ET"),
	}, "")
	img, _, err := testEngine(t).render(context.Background(), page, 0, 100, false)
	if err != nil {
		t.Fatal(err)
	}
	if dpi := ocrPageDPI(w, h, testOCRDPI); dpi != 96 {
		t.Fatalf("ocrPageDPI = %d, want 96", dpi)
	}
	d, err := testEngine(t).Read(context.Background(), pdftest.Scanned(w, h, img))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, b := range d.Blocks {
		if strings.Contains(b.Text, "low on a long page") {
			found = true
			// Drawn at (30, 200) from the bottom: 2800 from the top.
			if l := b.Lines[0].Box; l.X0 < 20 || l.X0 > 40 || l.Y1 < h-215 || l.Y0 > h-190 {
				t.Errorf("line box %+v, want near (30, %d) from the top", l, h-200)
			}
		}
	}
	if !found {
		t.Errorf("OCR text %q", d.text())
	}
}

func TestOCRPageDPI(t *testing.T) {
	for _, c := range []struct {
		w, h float32
		dpi  int
		want int
	}{
		{612, 792, 300, 300},   // a letter page: 3,300 pixels long
		{960, 960, 300, 300},   // exactly maxRenderSide
		{1191, 1684, 300, 171}, // A2: 7,017 pixels long at 300
		{1684, 1191, 300, 171}, // turned
		{300, 3000, 200, 96},
		{14400, 14400, 300, 20},
	} {
		if got := ocrPageDPI(c.w, c.h, c.dpi); got != c.want {
			t.Errorf("ocrPageDPI(%g, %g, %d) = %d, want %d", c.w, c.h, c.dpi, got, c.want)
		}
	}
}

// A mixed PDF gets OCR only where a page has no text layer.
func TestMixedPDFOCROnlyWhereNeeded(t *testing.T) {
	needTesseract(t)
	text := pdftest.Paper([][]pdftest.Item{pdftest.Column(72, 700, 300, "A page with its own text layer.")})
	scanned := scanOf(t, pdftest.Paper([][]pdftest.Item{pdftest.Column(72, 700, 300, "A scanned page of the same size.")}), 1, 150)
	// Both pages in one PDF: the text page, then the scan's image.
	d1, err := testEngine(t).Read(context.Background(), text)
	if err != nil {
		t.Fatal(err)
	}
	_ = d1
	d, err := testEngine(t).Read(context.Background(), scanned)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Pages[0].OCR || !strings.Contains(d.text(), "A scanned page of the same size.") {
		t.Errorf("scan: OCR %v, text %q", d.Pages[0].OCR, d.text())
	}
	if d1.Pages[0].OCR {
		t.Error("a page with text was read with OCR")
	}
}

// ctrl+c stops OCR within a second. (The cancel comes 300 ms after OCR
// began, while the pages are rendered or read by Tesseract.)
func TestOCRCancel(t *testing.T) {
	needTesseract(t)
	scan := scanOf(t, scannedPaper(), 2, 120) // not TestScannedTwoColumnPaper's scan: its pages are cached
	ctx, cancel := context.WithCancel(context.Background())
	var cancelled atomic.Int64 // when, in Unix nanoseconds
	ctx = WithOCRProgress(ctx, func(done, total int) {
		if done == 0 {
			time.AfterFunc(300*time.Millisecond, func() {
				cancelled.Store(time.Now().UnixNano())
				cancel()
			})
		}
	})
	_, err := testEngine(t).Read(ctx, scan)
	if err == nil {
		t.Skip("OCR finished before the cancel")
	}
	if ctx.Err() == nil || err != context.Canceled {
		t.Fatalf("Read = %v", err)
	}
	limit := time.Second
	if raceEnabled {
		limit = 3 * time.Second // the race detector slows every step
	}
	if late := time.Since(time.Unix(0, cancelled.Load())); late > limit {
		t.Errorf("stopped %v after the cancel", late)
	}
}

// BenchmarkOCRPages reads the scanned two-page paper with Tesseract (no
// cache) and reports pages per second.
//
//	go test ./rag/ingest/pdf/ -run '^$' -bench OCRPages -benchtime 2x
func BenchmarkOCRPages(b *testing.B) {
	if _, err := exec.LookPath("tesseract"); err != nil {
		b.Skipf("tesseract not installed (%s)", InstallTesseract)
	}
	scan := scanOf(b, scannedPaper(), 2, 300)
	e := NewEngine(testCacheDir())
	defer e.Close()
	e.deadline = 5 * time.Minute
	for b.Loop() {
		if _, err := e.Read(context.Background(), scan); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(2*b.N)/b.Elapsed().Seconds(), "pages/s")
}

// A scan whose text layer is an invisible OCR layer of junk is read
// again with Tesseract; one whose invisible layer reads well is kept as
// it is.
func TestInvisibleJunkLayer(t *testing.T) {
	needTesseract(t)
	page := pdftest.Column(72, 660, 216, "A scan with a layer of text that", "nobody could read, read again.")
	img, _, err := testEngine(t).render(context.Background(), pdftest.Paper([][]pdftest.Item{page}), 0, 150, false)
	if err != nil {
		t.Fatal(err)
	}
	junk := pdftest.ScannedWithLayer(612, 792, [][]string{{"xq#z kkq 9f@ Zr~ pqw", "tt% ## lkj 0o0o !! q"}}, img)
	d, err := testEngine(t).Read(context.Background(), junk)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Pages[0].OCR || !strings.Contains(d.text(), "nobody could read") || strings.Contains(d.text(), "kkq") {
		t.Errorf("junk layer: OCR %v, text %q", d.Pages[0].OCR, d.text())
	}
	good := pdftest.ScannedWithLayer(612, 792, [][]string{{"A scan with a layer of text that", "everybody can read, kept as it is."}}, img)
	d, err = testEngine(t).Read(context.Background(), good)
	if err != nil {
		t.Fatal(err)
	}
	if d.Pages[0].OCR || !strings.Contains(d.text(), "everybody can read, kept as it is.") {
		t.Errorf("good layer: OCR %v, text %q", d.Pages[0].OCR, d.text())
	}
}
