package pdf

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/internal/shareddata"
	"github.com/ibid-dev/ibid/internal/testmain"
	"github.com/ibid-dev/ibid/rag/ingest/pdf/pdftest"
)

var (
	engineOnce sync.Once
	engine     *Engine
	ocrCache   string // the shared engine's OCR cache, removed by TestMain
)

// testOCRDPI is the resolution the shared engine renders pages at for
// Tesseract: what its tests check (the words, their order and boxes in
// points, of scans made at 150 DPI) holds at 150 as at 300 DPI, for a
// quarter of the pixels, whose copies the race detector shadows.
const testOCRDPI = 150

// testEngine is one Engine shared by all tests, so pdfium is compiled once
// per test binary and its instances (whose memory grows with the largest
// page they held, and stays) are reused; its compilation cache lives in
// the system's temporary directory, so later runs start warm. It reads
// scans with Tesseract at testOCRDPI and caches their pages in a
// temporary folder of this process.
func testEngine(t testing.TB) *Engine {
	t.Helper()
	engineOnce.Do(func() {
		engine = NewEngine(testCacheDir())
		// The deadline guards users, not a test on a loaded machine; the
		// tests of the guard make engines of their own.
		engine.deadline = 5 * time.Minute
		dir, err := os.MkdirTemp("", "ibid-pdf-test-ocr-")
		if err == nil {
			ocrCache = dir
		}
		engine.SetOCR(OCR{CacheDir: ocrCache, DPI: testOCRDPI})
	})
	return engine
}

// testCacheDir is the wazero cache the shared test engine uses, so a
// test's own Engine starts warm.
func testCacheDir() string {
	return pdftest.EngineCache()
}

// sharedPDF is the path of a real PDF, skipping the test without it.
func sharedPDF(t *testing.T, name string) string {
	t.Helper()
	return shareddata.Path(t, "pdf", name)
}

// readShared reads a real PDF with the shared engine, once per test
// binary: the tests that call it only read the Document.
func readShared(t *testing.T, name string) (*Document, []byte) {
	t.Helper()
	path := sharedPDF(t, name)
	sharedReads.mu.Lock()
	if sharedReads.m == nil {
		sharedReads.m = map[string]*sharedRead{}
	}
	r := sharedReads.m[name]
	if r == nil {
		r = &sharedRead{}
		sharedReads.m[name] = r
	}
	sharedReads.mu.Unlock()
	r.once.Do(func() {
		if r.data, r.err = os.ReadFile(path); r.err == nil {
			r.doc, r.err = testEngine(t).Read(context.Background(), r.data)
		}
	})
	if r.err != nil {
		t.Fatal(r.err)
	}
	return r.doc, r.data
}

// sharedReads are readShared's PDFs, by name.
var sharedReads struct {
	mu sync.Mutex
	m  map[string]*sharedRead
}

type sharedRead struct {
	once sync.Once
	doc  *Document
	data []byte
	err  error
}

// text is a Document's blocks joined by a blank line, as a loader writes
// them.
func (d *Document) text() string {
	var b []byte
	for _, blk := range d.Blocks {
		if len(b) > 0 {
			b = append(b, "\n\n"...)
		}
		b = append(b, blk.Text...)
	}
	return string(b)
}

func TestMain(m *testing.M) {
	pdftest.LeanHeap()
	code := testmain.Run(m)
	if ocrCache != "" {
		os.RemoveAll(ocrCache)
	}
	if engine != nil {
		if err := engine.Close(); err != nil {
			println("closing engine:", err.Error())
			code = 1
		}
	}
	testmain.Exit(code)
}
