package pdf

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/ibid-dev/ibid/rag/ingest/pdf/pdftest"
)

// Engines share the process's pdfium: a second engine reads without
// starting it again, and closing one engine leaves the others reading.
// (An engine with another memory limit gets instances of its own:
// TestPDFMemoryLimit, a measurement test, would read its PDF otherwise.)
func TestEnginesSharePdfium(t *testing.T) {
	ctx := context.Background()
	a, b := NewEngine(testCacheDir()), NewEngine("")
	defer b.Close()
	for _, e := range []*Engine{a, b, testEngine(t)} {
		if _, err := e.Read(ctx, pdftest.Tiny()); err != nil {
			t.Fatal(err)
		}
	}
	if a.pool == nil || a.pool != b.pool || a.pool != testEngine(t).pool {
		t.Fatalf("engines with the same memory limit use pools %p, %p, %p; want one", a.pool, b.pool, testEngine(t).pool)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Read(ctx, pdftest.Tiny()); !errors.Is(err, ErrUnavailable) {
		t.Errorf("a closed engine reads: %v; want ErrUnavailable", err)
	}
	if _, err := b.Read(ctx, pdftest.Tiny()); err != nil {
		t.Errorf("after another engine closed: %v", err)
	}
}

// Engines opened, used and closed from several goroutines at once share
// the pool safely (run with -race): every read succeeds, whatever the
// other engines do.
func TestEnginesConcurrent(t *testing.T) {
	ctx := context.Background()
	page := pdftest.TextContent("Every engine reads this line.")
	data := pdftest.Pages("", []string{page}, "", nil)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 4 {
		wg.Go(func() {
			for range 2 {
				e := NewEngine(testCacheDir())
				for range 2 {
					d, err := e.Read(ctx, data)
					if err != nil {
						errs <- err
					} else if got := d.text(); got != "Every engine reads this line." {
						errs <- errors.New("read " + got)
					}
				}
				e.Close()
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
