package library

import (
	"context"
	"sync"

	"github.com/ibid-dev/ibid/rag/ingest"
)

// ocrTicker carries the reader's OCR progress to Add's goroutine, which
// alone reports progress: the reader notes the latest count and ticks; a
// tick that finds one pending is dropped (the count it would bring is
// already noted).
type ocrTicker struct {
	mu          sync.Mutex
	file        string
	done, total int
	tick        chan struct{}
}

// withProgress returns ctx for loading file, under which the PDF engine's
// OCR notes its progress here.
func (o *ocrTicker) withProgress(ctx context.Context, file string) context.Context {
	return ingest.WithOCRProgress(ctx, func(done, total int) {
		o.mu.Lock()
		o.file, o.done, o.total = file, done, total
		o.mu.Unlock()
		select {
		case o.tick <- struct{}{}:
		default:
		}
	})
}

// latest is the last count noted.
func (o *ocrTicker) latest() (file string, done, total int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.file, o.done, o.total
}

// next waits for the reader's next file, reporting StageOCR whenever the
// file being read has pages read by Tesseract (a scanned PDF's pages take
// seconds each, so the add shows which page it is on).
func (a *adder) next(files <-chan fileRead) (fileRead, bool) {
	for {
		select {
		case r, ok := <-files:
			// The reader ticks before it sends the file: a tick still
			// pending is this file's last count, reported before it.
			select {
			case <-a.ocr.tick:
				a.reportOCR()
			default:
			}
			return r, ok
		case <-a.ocr.tick:
			a.reportOCR()
		}
	}
}

func (a *adder) reportOCR() {
	file, done, total := a.ocr.latest()
	a.p.OCRDone, a.p.OCRTotal = done, total
	a.report(StageOCR, file)
}
