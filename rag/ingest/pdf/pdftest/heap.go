package pdftest

import (
	"os"
	"runtime/debug"
)

// LeanHeap sets the garbage collector to let the heap grow by half its
// live size between collections rather than double it, unless GOGC is
// set: for a test process that reads PDFs (page images, pdfium's memory).
// Under the race detector every byte the heap ever spanned costs two
// more of shadow memory, never given back, so a smaller heap goal is a
// smaller process: rag/ingest/pdf's tests peak at about 0.73 GB instead
// of 0.97, for no more CPU time.
func LeanHeap() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(50)
	}
}
