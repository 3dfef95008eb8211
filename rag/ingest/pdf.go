package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/enums"
	pdferrors "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
)

// pdfEngine is a lazily started pool of pdfium WebAssembly instances.
//
// Invariant: pool is nil until the first PDF is loaded; after start it is
// either a working pool or err says why it could not start (and is
// returned to every later caller). Close releases the pool and the wazero
// compilation cache; a closed engine refuses further work.
type pdfEngine struct {
	cacheDir string

	once   sync.Once
	mu     sync.Mutex // guards pool, cache, closed
	pool   pdfium.Pool
	cache  wazero.CompilationCache
	err    error
	closed bool
}

// pdfWorkers bounds the number of pdfium instances (each holds its own
// WebAssembly memory, which grows with the document).
const pdfWorkers = 2

// start compiles the pdfium module (using the on-disk cache when there is
// one) and creates the pool. It runs once per engine.
func (e *pdfEngine) start() {
	rc := wazero.NewRuntimeConfig()
	var cache wazero.CompilationCache
	if e.cacheDir != "" {
		c, err := wazero.NewCompilationCacheWithDir(e.cacheDir)
		if err == nil {
			cache = c
		}
		// A cache directory that cannot be used only costs time: fall
		// back to compiling in memory.
	}
	if cache == nil {
		cache = wazero.NewCompilationCache()
	}
	rc = rc.WithCompilationCache(cache)
	pool, err := webassembly.Init(webassembly.Config{
		MinIdle:       1,
		MaxIdle:       pdfWorkers,
		MaxTotal:      pdfWorkers,
		ReuseWorkers:  true,
		RuntimeConfig: rc,
		FSConfig:      wazero.NewFSConfig(), // documents are passed as bytes; mount nothing
		Stdout:        io.Discard,
		Stderr:        io.Discard,
	})
	e.mu.Lock()
	defer e.mu.Unlock()
	if err != nil {
		cache.Close(context.Background())
		e.err = fmt.Errorf("%w: couldn't start pdfium: %w", errEngineStart, err)
		return
	}
	if e.closed { // Close raced with start
		pool.Close()
		cache.Close(context.Background())
		e.err = fmt.Errorf("%w: loader is closed", errEngineStart)
		return
	}
	e.pool, e.cache = pool, cache
}

func (e *pdfEngine) instance(ctx context.Context) (pdfium.Pdfium, error) {
	e.mu.Lock()
	closed := e.closed
	e.mu.Unlock()
	if closed {
		return nil, fmt.Errorf("%w: loader is closed", errEngineStart)
	}
	e.once.Do(e.start)
	e.mu.Lock()
	pool, err := e.pool, e.err
	if e.closed && err == nil {
		err = fmt.Errorf("%w: loader is closed", errEngineStart)
	}
	e.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 5*time.Minute)
		defer cancel()
	}
	inst, err := pool.GetInstanceWithContext(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: couldn't get a pdfium instance: %w", errEngineStart, err)
	}
	return inst, nil
}

func (e *pdfEngine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	var err error
	if e.pool != nil {
		err = e.pool.Close()
		e.pool = nil
	}
	if e.cache != nil {
		if cerr := e.cache.Close(context.Background()); err == nil {
			err = cerr
		}
		e.cache = nil
	}
	return err
}

// pdfText is what the PDF engine extracts from one file.
type pdfText struct {
	Title, Author string
	Pages         []string // text of each page, page 1 first
	// TextObjects counts the text objects checked (the first
	// maxTextObjectChecks); Unmapped those whose glyphs have no Unicode (a
	// font without a ToUnicode map that pdfium cannot map either): their
	// text is lost.
	TextObjects, Unmapped int
}

// maxTextObjectChecks bounds how many text objects (from the first pages
// on) are checked for unmapped glyphs: every pdfium call through wazero
// costs an allocation, and fonts without a Unicode map show on the first
// pages of a document as well as anywhere.
const maxTextObjectChecks = 300

// readPage appends page i's text to out and counts its text objects.
func readPage(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, i int, out *pdfText) error {
	page, err := inst.FPDF_LoadPage(&requests.FPDF_LoadPage{Document: doc, Index: i})
	if err != nil {
		return err
	}
	defer inst.FPDF_ClosePage(&requests.FPDF_ClosePage{Page: page.Page})
	pg := requests.Page{ByReference: &page.Page}
	tp, err := inst.FPDFText_LoadPage(&requests.FPDFText_LoadPage{Page: pg})
	if err != nil {
		return err
	}
	defer inst.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage})
	cnt, err := inst.FPDFText_CountChars(&requests.FPDFText_CountChars{TextPage: tp.TextPage})
	if err != nil {
		return err
	}
	text := ""
	if cnt.Count > 0 {
		t, err := inst.FPDFText_GetText(&requests.FPDFText_GetText{TextPage: tp.TextPage, StartIndex: 0, Count: cnt.Count})
		if err != nil {
			return err
		}
		text = t.Text
	}
	out.Pages = append(out.Pages, text)

	if out.TextObjects >= maxTextObjectChecks {
		return nil
	}
	objs, err := inst.FPDFPage_CountObjects(&requests.FPDFPage_CountObjects{Page: pg})
	if err != nil {
		return err
	}
	for k := 0; k < objs.Count && out.TextObjects < maxTextObjectChecks; k++ {
		o, err := inst.FPDFPage_GetObject(&requests.FPDFPage_GetObject{Page: pg, Index: k})
		if err != nil {
			return err
		}
		typ, err := inst.FPDFPageObj_GetType(&requests.FPDFPageObj_GetType{PageObject: o.PageObject})
		if err != nil || typ.Type != enums.FPDF_PAGEOBJ_TEXT {
			continue
		}
		out.TextObjects++
		t, err := inst.FPDFTextObj_GetText(&requests.FPDFTextObj_GetText{PageObject: o.PageObject, TextPage: tp.TextPage})
		if err != nil || t.Text == "" {
			out.Unmapped++
		}
	}
	return nil
}

// errPDFEngine marks failures of the engine itself (not of the document).
var errPDFEngine = errors.New("PDF engine failed")

// extract reads the pages and Info dictionary of a PDF held in data. Bad
// documents come back as *SkipError-ready reasons via pdfReason; the engine
// is protected against panics.
func (e *pdfEngine) extract(ctx context.Context, data []byte) (out *pdfText, err error) {
	inst, err := e.instance(ctx)
	if err != nil {
		return nil, err
	}
	broken := false
	defer func() {
		if r := recover(); r != nil {
			broken = true
			err = fmt.Errorf("%w: %v", errPDFEngine, r)
			out = nil
		}
		if broken {
			inst.Kill() // the worker may be in a bad state: let the pool replace it
		} else {
			inst.Close()
		}
	}()

	doc, err := inst.OpenDocument(&requests.OpenDocument{File: &data})
	if err != nil {
		if !isDocumentError(err) {
			broken = true
		}
		return nil, err
	}
	defer inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc.Document})

	out = &pdfText{}
	if md, err := inst.GetMetaData(&requests.GetMetaData{Document: doc.Document, Tags: &[]string{"Title", "Author"}}); err == nil {
		for _, t := range md.Tags {
			v := strings.TrimSpace(strings.ToValidUTF8(t.Value, ""))
			switch t.Tag {
			case "Title":
				out.Title = v
			case "Author":
				out.Author = v
			}
		}
	}
	n, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc.Document})
	if err != nil {
		return nil, fmt.Errorf("couldn't count pages: %w", err)
	}
	for i := 0; i < n.PageCount; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := readPage(inst, doc.Document, i, out); err != nil {
			return nil, fmt.Errorf("couldn't read page %d: %w", i+1, err)
		}
	}
	return out, nil
}

// isDocumentError reports whether err is pdfium refusing the document (as
// opposed to the engine failing).
func isDocumentError(err error) bool {
	for _, target := range []error{pdferrors.ErrFile, pdferrors.ErrFormat, pdferrors.ErrPassword, pdferrors.ErrSecurity, pdferrors.ErrPage, pdferrors.ErrUnknown} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

// pdfReason turns a pdfium error on opening a document into the one-line
// reason a user sees.
func pdfReason(err error) string {
	switch {
	case errors.Is(err, pdferrors.ErrPassword):
		return "encrypted PDF (needs a password); save an unencrypted copy to add it"
	case errors.Is(err, pdferrors.ErrSecurity):
		return "encrypted PDF (unsupported encryption); save an unencrypted copy to add it"
	case errors.Is(err, pdferrors.ErrFormat), errors.Is(err, pdferrors.ErrFile), errors.Is(err, pdferrors.ErrUnknown):
		return "corrupt PDF (pdfium cannot parse it)"
	case errors.Is(err, errPDFEngine):
		return "corrupt PDF (the PDF engine failed on it)"
	}
	return "unreadable PDF: " + err.Error()
}
