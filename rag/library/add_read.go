package library

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/store"
)

// fileRead is a file read, hashed and, unless the library holds its
// content already, loaded; or a file found unchanged by its size and time,
// not read (same).
type fileRead struct {
	path, abs, id string
	st            fileStat        // the file's size and time before it was read
	statOK        bool            // st was taken
	same          *store.Document // the document of the file, unchanged by st: not read
	file          *ingest.File    // the file as read, when not loaded
	ld            *ingest.Loaded  // nil: not loaded
	skip          string          // the reason the file is skipped, if it is
	err           error           // what stops the run (ctx's error)
}

// reader reads files in a goroutine of its own, one ahead of the caller,
// and sends each on the returned channel, which it closes when done or
// when ctx is.
func (a *adder) reader(ctx context.Context, files []string) <-chan fileRead {
	ch := make(chan fileRead)
	go func() {
		defer close(ch)
		for _, f := range files {
			r := a.read(a.ocr.withProgress(ctx, f), f, true)
			select {
			case ch <- r:
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch
}

// read reads and hashes one file and, if its content is not in the
// library, loads it; with fast, a file whose size and time are those its
// document recorded is not read (fileRead.same). It runs in the reader's
// goroutine: it only reads the store and a.prior.
func (a *adder) read(ctx context.Context, path string, fast bool) fileRead {
	r := fileRead{path: path}
	abs, err := filepath.Abs(path)
	if err != nil {
		r.skip = "unreadable path: " + err.Error()
		return r
	}
	r.abs = abs
	if fi, err := os.Stat(abs); err == nil && fi.Mode().IsRegular() {
		r.st, r.statOK = statOf(fi), true
		if d, ok := a.prior[abs]; ok && fast && a.opt.bib == nil && unchangedAs(d, r.st, a.strategy) {
			r.same, r.id = &d, d.ID
			return r
		}
	}
	f, err := ingest.ReadFile(ctx, abs, a.limits())
	var se *ingest.SkipError
	switch {
	case errors.As(err, &se):
		r.skip = se.Reason
		return r
	case err != nil && ctx.Err() != nil:
		r.err = ctx.Err()
		return r
	case err != nil:
		r.skip = "unreadable: " + cause(err)
		return r
	}
	r.id = ingest.DocumentID(f.Hash)
	if doc, err := a.l.st.Document(ctx, r.id); err == nil {
		if DocumentStrategy(doc) == a.strategy || doc.Path != abs {
			r.file = f // probably unchanged; the caller decides
			return r
		}
	}
	r.ld, r.skip, r.err = a.load(ctx, f)
	return r
}

// limits are the loader's per-file size limits, or --max-file-size for
// every format.
func (a *adder) limits() ingest.Limits {
	if n := a.opt.MaxFileSize; n > 0 {
		return ingest.Limits{MaxPDF: n, MaxText: n}
	}
	return ingest.Limits{}
}

// load loads a file read and indexes it with the add's strategy; a file
// that cannot be used gets a reason to skip it; err is ctx's error, or the
// strategy's (the embedder semantic chunking asks failed), which would
// fail every file and so stops the run.
func (a *adder) load(ctx context.Context, f *ingest.File) (*ingest.Loaded, string, error) {
	ld := a.opt.bib.preloaded(f.Path, f.Hash)
	var err error
	if ld == nil {
		ld, err = a.loader.LoadFile(ctx, f)
	}
	if err == nil && len(ld.Segments) > 0 {
		if err := a.apply(ctx, ld); err != nil {
			if ce := ctx.Err(); ce != nil {
				return nil, "", ce
			}
			return nil, "", fmt.Errorf("couldn't index %s with strategy %s: %w", f.Path, a.strategy, err)
		}
	}
	switch {
	case err == nil && len(ld.Segments) == 0:
		return nil, "no text to index", nil
	case err == nil:
		return ld, "", nil
	case ctx.Err() != nil:
		return nil, "", ctx.Err()
	}
	var se *ingest.SkipError
	if errors.As(err, &se) {
		return nil, se.Reason, nil
	}
	return nil, err.Error(), nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// cause is an error's last part, without the path that the report shows
// beside it.
func cause(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
