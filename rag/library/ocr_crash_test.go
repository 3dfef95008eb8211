package library

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/rag/ingest/pdf/pdftest"
	"github.com/ibid-dev/ibid/rag/retrieve"
)

// scannedPapers writes, for each path, a PDF of one scanned page (a page
// of text rendered to an image, no text layer) that says its sentence:
// testdata's scan of it (see scanFiles).
func scannedPapers(t *testing.T, paths, sentences []string) {
	t.Helper()
	for i, path := range paths {
		if err := os.WriteFile(path, scanOf(t, sentences[i]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// scanFiles are testdata's scanned pages, by the sentence each says.
// They are made by scannedPaper (`go test ./rag/library/ -run OCR
// -update` makes them again): made in every run, their rendering and
// image coding were a tenth of the package's CPU under the race
// detector.
var scanFiles = map[string]string{
	"Honey bees dance to tell the hive where the flowers are.":       "scan-bees.pdf",
	"Glaciers carve deep valleys as they slide down from the peaks.": "scan-glaciers.pdf",
}

var updateScans = flag.Bool("update", false, "make testdata's scanned pages (scan-*.pdf) again")

// scans guards making testdata's scans again, once per test binary.
var scans = struct {
	mu   sync.Mutex
	made map[string]bool
}{made: map[string]bool{}}

// scanOf is testdata's scan of sentence, made again first with -update.
func scanOf(t *testing.T, sentence string) []byte {
	t.Helper()
	name, ok := scanFiles[sentence]
	if !ok {
		t.Fatalf("testdata has no scan of %q: add one to scanFiles and run with -update", sentence)
	}
	path := filepath.Join("testdata", name)
	if *updateScans {
		scans.mu.Lock()
		if !scans.made[sentence] {
			ld := ingest.NewLoader(pdftest.EngineCache())
			err := os.WriteFile(path, scannedPaper(t, ld, sentence), 0o644)
			ld.Close()
			if err != nil {
				scans.mu.Unlock()
				t.Fatal(err)
			}
			scans.made[sentence] = true
		}
		scans.mu.Unlock()
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// scannedPaper is a PDF of one scanned page that says sentence: its two
// halves in Courier, rendered at the viewer's resolution.
func scannedPaper(t *testing.T, ld *ingest.Loader, sentence string) []byte {
	t.Helper()
	half := len(sentence) / 2
	for half < len(sentence) && sentence[half] != ' ' {
		half++
	}
	text := filepath.Join(t.TempDir(), "text.pdf")
	page := pdftest.Column(72, 660, 216, sentence[:half], strings.TrimSpace(sentence[half:]))
	if err := os.WriteFile(text, pdftest.Paper([][]pdftest.Item{page}), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := ld.RenderPage(context.Background(), text, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return pdftest.Scanned(612, 792, img)
}

// A SIGKILL while scanned PDFs are read with OCR leaves whole documents
// only; the add that follows completes the library, and a scanned page's
// sentence is found by search.
func TestLibraryKilledDuringOCR(t *testing.T) {
	if dir := os.Getenv("IBID_TEST_KILL_DIR"); dir != "" {
		killChild(dir, os.Getenv("IBID_TEST_KILL_DOCS"))
		return
	}
	if testing.Short() {
		t.Skip("starts child processes")
	}
	if _, err := exec.LookPath("tesseract"); err != nil {
		t.Skip("tesseract not installed")
	}
	tmp := parallelDir(t)
	docs := filepath.Join(tmp, "docs")
	manyNotes(t, docs, 5)
	sentences := []string{
		"Honey bees dance to tell the hive where the flowers are.",
		"Glaciers carve deep valleys as they slide down from the peaks.",
	}
	var scans []string
	for i := range sentences {
		scans = append(scans, filepath.Join(docs, "scan"+string(rune('a'+i))+".pdf"))
	}
	scannedPapers(t, scans, sentences)
	libDir := filepath.Join(tmp, "lib")
	// The scans are read while the notes are embedded: kill after the
	// first progress line, a little later, while tesseract works.
	cmd := exec.Command(os.Args[0], "-test.run=^TestLibraryKilledDuringOCR$", "-test.v=false")
	// The child reads the scans with a cache of its own (see
	// freshOCRCache): Tesseract works when it is killed. The add after
	// the kill may take pages from the package's cache.
	cmd.Env = append(os.Environ(), "IBID_TEST_KILL_DIR="+libDir, "IBID_TEST_KILL_DOCS="+docs, "XDG_CACHE_HOME="+pdftest.CacheHome(t))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	if sc.Scan() {
		time.Sleep(1500 * time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()

	l := mustOpen(t, Options{Store: libDir, OCRDPI: testOCRDPI})
	checkWhole(t, l)
	t.Logf("killed: %d documents whole", len(mustDocs(t, l)))
	rep := mustAdd(t, l, docs)
	if n := len(mustDocs(t, l)); n != 7 {
		t.Fatalf("after the add: %d documents (%s), want 7", n, counts(rep))
	}
	checkWhole(t, l)
	for _, s := range sentences {
		ps, err := l.Search(context.Background(), s, retrieve.Options{K: 3})
		if err != nil || len(ps) == 0 {
			t.Fatalf("search %q: %v", s, err)
		}
		top := ps[0]
		if !strings.HasSuffix(top.Document.Path, ".pdf") || top.Segment.PageStart != 1 || len(top.Segment.Boxes) == 0 || top.Document.Meta[ingest.MetaOCRPages] != "1" {
			t.Errorf("search %q: top passage %q from %s page %d, boxes %d, ocr pages %q", s, top.Segment.Text, top.Document.Path, top.Segment.PageStart, len(top.Segment.Boxes), top.Document.Meta[ingest.MetaOCRPages])
		}
	}
}

// An add of a scanned PDF reports its OCR: StageOCR for that file, from 0
// of its pages to all of them, before the file is done.
func TestAddReportsOCRProgress(t *testing.T) {
	if _, err := exec.LookPath("tesseract"); err != nil {
		t.Skip("tesseract not installed")
	}
	tmp := testEnv(t)
	freshOCRCache(t)
	scan := filepath.Join(tmp, "scan.pdf")
	scannedPapers(t, []string{scan}, []string{"Honey bees dance to tell the hive where the flowers are."})
	l := mustOpen(t, Options{Store: filepath.Join(tmp, "lib"), OCRDPI: testOCRDPI})
	var ocr []AddProgress
	fileDone := -1
	_, err := l.AddWith(context.Background(), []string{scan}, AddOptions{}, func(p AddProgress) {
		switch p.Stage {
		case StageOCR:
			ocr = append(ocr, p)
		case StageFile:
			fileDone = len(ocr)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(ocr) == 0 {
		t.Fatal("no StageOCR progress for a scanned PDF")
	}
	last := ocr[len(ocr)-1]
	if last.File != scan || last.OCRTotal != 1 || last.OCRDone != 1 {
		t.Errorf("last OCR progress: file %q, %d/%d pages; want %q, 1/1", last.File, last.OCRDone, last.OCRTotal, scan)
	}
	if fileDone != len(ocr) {
		t.Errorf("OCR progress after the file was done (%d of %d reports before it)", fileDone, len(ocr))
	}
}

// testOCRDPI is the resolution the tests' scans are read at: they are
// made at 150 DPI, so 300 would only cost more.
const testOCRDPI = 150

// freshOCRCache gives the test a cache of its own but for the PDF
// engine's compiled code (pdftest.CacheHome), so that its pages are read
// by Tesseract in every run: the package's shared cache would answer them
// from an earlier run's OCR, and a test of what happens while Tesseract
// works would test nothing.
func freshOCRCache(t *testing.T) {
	t.Helper()
	t.Setenv("XDG_CACHE_HOME", pdftest.CacheHome(t))
}
