package pdf

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/klippa-app/go-pdfium"
	pdferrors "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
)

// Engine reads PDFs with pdfium WebAssembly instances borrowed from the
// process's shared pool (see pools), started on the first PDF.
//
// Invariant: pool is nil until the first PDF is loaded; after start it is
// either a working pool or err says why it could not start (and is
// returned to every later caller). Close waits for the engine's own work
// and leaves the shared pool to other engines; a closed engine refuses
// further work.
type Engine struct {
	cacheDir string
	work     sync.WaitGroup // reading goroutines, abandoned ones too
	// deadline bounds the time one PDF may take and memPages the memory
	// (in 64 KiB WebAssembly pages) each pdfium instance may grow to;
	// zero means the defaults. Both are set before the first PDF.
	deadline time.Duration
	memPages uint32
	// chars bounds the characters of one PDF (0: maxChars), inflate the
	// bytes one compressed stream may inflate to (0: maxInflate).
	chars   int
	inflate int64
	ocr     OCR // see SetOCR

	once   sync.Once
	mu     sync.Mutex // guards pool, err, closed
	pool   pdfium.Pool
	err    error
	closed bool
}

// maxChars bounds the characters of one PDF, so the memory its layout
// takes is bounded too (a character and what is built from it take about
// a hundred bytes): a 1,000-page book has about 3 million.
const maxChars = 8_000_000

// Defaults for a PDF's time and an instance's memory. Real papers take
// well under a second and a few dozen MiB; a decompression bomb takes
// minutes and gigabytes.
const (
	defaultPDFDeadline = 30 * time.Second
	defaultPDFMemPages = 16384 // 1 GiB
)

func (e *Engine) timeout() time.Duration {
	if e.deadline > 0 {
		return e.deadline
	}
	return defaultPDFDeadline
}

func (e *Engine) charLimit() int {
	if e.chars > 0 {
		return e.chars
	}
	return maxChars
}

func (e *Engine) inflateLimit() int64 {
	if e.inflate > 0 {
		return e.inflate
	}
	return maxInflate
}

func (e *Engine) memoryPages() uint32 {
	if e.memPages > 0 {
		return e.memPages
	}
	return defaultPDFMemPages
}

// NewEngine returns an Engine that keeps wazero's compilation cache in
// cacheDir (e.g. $XDG_CACHE_HOME/ibid/wazero); "" means no cache on disk
// (compiling pdfium then costs a few seconds per process, once: engines
// share the process's pdfium, see pools). It is safe for concurrent use;
// nothing starts until the first Read.
func NewEngine(cacheDir string) *Engine {
	return &Engine{cacheDir: cacheDir}
}

// closeWait is how long Close waits for abandoned work.
const closeWait = 2 * time.Second

// start borrows the process's pool for the engine's memory limit,
// starting it if no engine has (see sharedPoolFor). It runs once per
// engine.
func (e *Engine) start() {
	pool, err := sharedPoolFor(e.memoryPages(), e.cacheDir)
	e.mu.Lock()
	defer e.mu.Unlock()
	if err != nil {
		e.err = err
		return
	}
	e.pool = pool
}

func (e *Engine) instance(ctx context.Context) (pdfium.Pdfium, error) {
	e.mu.Lock()
	closed := e.closed
	e.mu.Unlock()
	if closed {
		return nil, fmt.Errorf("%w: loader is closed", ErrUnavailable)
	}
	e.once.Do(e.start)
	e.mu.Lock()
	pool, err := e.pool, e.err
	if e.closed && err == nil {
		err = fmt.Errorf("%w: loader is closed", ErrUnavailable)
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
		return nil, fmt.Errorf("%w: couldn't get a pdfium instance: %w", ErrUnavailable, err)
	}
	return inst, nil
}

// Close stops the engine: later reads fail with ErrUnavailable. A PDF
// abandoned at its deadline may still be inside pdfium: Close waits up to
// closeWait for the engine's work to give its instances back to the
// shared pool, which stays for other engines (see pools).
func (e *Engine) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	e.mu.Unlock()
	idle := make(chan struct{})
	go func() { e.work.Wait(); close(idle) }()
	select {
	case <-idle:
	case <-time.After(closeWait):
	}
	return nil
}

// extracted is what the PDF engine extracts from one file.
type extracted struct {
	Title, Author string
	Pages         []*rawPage // page 1 first
	Outline       []outlineItem
	// TextObjects counts the text objects drawn; Unmapped those whose
	// glyphs have no Unicode (a font without a ToUnicode map that pdfium
	// cannot map either): their text is lost.
	TextObjects, Unmapped int
}

// errPDFEngine marks failures of the engine itself (not of the document).
var errPDFEngine = errors.New("PDF engine failed")

// hostileError is a PDF the engine gave up on: it crashed pdfium, used up
// the memory limit or ran past the deadline. Reason is for the user.
type hostileError struct{ reason string }

func (e *hostileError) Error() string { return "corrupt or hostile PDF (" + e.reason + ")" }

// extract reads the pages, outline and Info dictionary of a PDF held in
// data, within the engine's deadline and memory limit (see guard).
func (e *Engine) extract(ctx context.Context, data []byte) (*extracted, error) {
	return guard(e, ctx, func(dctx context.Context, inst pdfium.Pdfium) (*extracted, error) {
		return e.read(ctx, dctx, inst, data)
	})
}

// guard runs work on a pdfium instance within the engine's deadline and
// memory limit: every stage of reading a PDF (its streams checked, its
// pages read by pdfium, their layout) runs inside work, so one deadline
// bounds them all. work owns inst and gives it back (read does). The
// engine is protected against panics; an instance that failed is killed,
// not reused.
//
// At the deadline guard returns at once; pdfium may still be inside one
// call, so the working goroutine finishes that call in the background,
// within the memory limit, notices the deadline and gives the instance
// back (the layout notices it at its next page). Close waits a little
// for such stragglers.
func guard[T any](e *Engine, ctx context.Context, work func(dctx context.Context, inst pdfium.Pdfium) (T, error)) (T, error) {
	var zero T
	inst, err := e.instance(ctx)
	if err != nil {
		return zero, err
	}
	e.mu.Lock()
	if e.closed { // Close raced with instance: give the instance back
		e.mu.Unlock()
		inst.Close()
		return zero, fmt.Errorf("%w: loader is closed", ErrUnavailable)
	}
	e.work.Add(1) // under mu, so never after Close's Wait began
	e.mu.Unlock()
	dctx, cancel := context.WithTimeout(ctx, e.timeout())
	type result struct {
		out T
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer e.work.Done()
		defer cancel()
		out, err := work(dctx, inst)
		done <- result{out, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-dctx.Done():
		// The working goroutine cancels dctx itself once it has sent
		// its result: take the result when there is one.
		select {
		case r = <-done:
		default:
			r.err = dctx.Err()
		}
	}
	if r.err != nil && ctx.Err() == nil && errors.Is(r.err, context.DeadlineExceeded) {
		r.err = fmt.Errorf("%w: %w", &hostileError{fmt.Sprintf("took longer than %s", e.timeout())}, r.err)
	}
	return r.out, r.err
}

// session is one document open on a pdfium instance (see onDocument).
type session struct {
	broken  bool     // pdfium failed: the instance is killed, not reused
	release []func() // run before the instance is given back, unless broken
}

// onDocument opens data on inst, which it owns and gives back (or kills,
// if pdfium failed or work panicked) before it returns, and runs work on
// the open document. The compressed streams are checked first (see
// checkStreams) unless checked says this engine checked these bytes
// already (the pages of a PDF read with OCR are rendered from the bytes
// read checked). An engine failure becomes a *hostileError that says why
// (see hostile).
func (e *Engine) onDocument(ctx, dctx context.Context, inst pdfium.Pdfium, data []byte, checked bool, work func(s *session, doc references.FPDF_DOCUMENT) error) (err error) {
	if err := dctx.Err(); err != nil {
		inst.Close()
		return err
	}
	s := &session{}
	defer func() {
		if r := recover(); r != nil {
			s.broken = true
			err = fmt.Errorf("%w: %v", errPDFEngine, r)
		}
		if err != nil && ctx.Err() == nil && (s.broken || errors.Is(err, errPDFEngine)) {
			err = e.hostile(dctx, inst, err)
			s.broken = true
		}
		if !s.broken {
			for _, f := range s.release {
				f()
			}
		}
		if s.broken {
			inst.Kill() // the worker may be in a bad state: let the pool replace it
		} else {
			inst.Close()
		}
	}()
	if !checked {
		if err := checkStreams(dctx, data, e.inflateLimit()); err != nil {
			return err
		}
	}
	doc, err := inst.OpenDocument(&requests.OpenDocument{File: &data})
	if err != nil {
		if !isDocumentError(err) {
			s.broken = true
		}
		return err
	}
	defer inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc.Document})
	return work(s, doc.Document)
}

// read does extract's work on inst (see onDocument).
func (e *Engine) read(ctx, dctx context.Context, inst pdfium.Pdfium, data []byte) (out *extracted, err error) {
	err = e.onDocument(ctx, dctx, inst, data, false, func(s *session, doc references.FPDF_DOCUMENT) error {
		var err error
		out, err = e.readOpen(dctx, s, inst, doc, data)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// readOpen reads an open document's Info, outline and pages.
func (e *Engine) readOpen(dctx context.Context, s *session, inst pdfium.Pdfium, document references.FPDF_DOCUMENT, data []byte) (*extracted, error) {
	out := &extracted{}
	if md, err := inst.GetMetaData(&requests.GetMetaData{Document: document, Tags: &[]string{"Title", "Author"}}); err == nil {
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
	if bm, err := inst.GetBookmarks(&requests.GetBookmarks{Document: document}); err == nil {
		out.Outline = flattenOutline(bm.Bookmarks, 1, nil)
	}
	wd, err := openWasmDoc(dctx, inst, data)
	if err != nil {
		return nil, err
	}
	s.release = append(s.release, wd.free)
	n, err := wd.pageCount()
	if err != nil {
		return nil, fmt.Errorf("couldn't count pages: %w", err)
	}
	objs := map[uint32]bool{} // text object: has a mapped character
	chars := 0
	for i := 0; i < n; i++ {
		if err := dctx.Err(); err != nil {
			return nil, err
		}
		pg, err := wd.readPage(i, e.charLimit()-chars)
		if err != nil {
			if errors.Is(err, errTooManyChars) {
				return nil, &hostileError{fmt.Sprintf("more than %d characters of text", e.charLimit())}
			}
			return nil, fmt.Errorf("couldn't read page %d: %w", i+1, err)
		}
		chars += len(pg.chars)
		for _, c := range pg.chars {
			if c.obj != 0 {
				objs[c.obj] = objs[c.obj] || !c.unmapped
			}
		}
		// Objects are identified by address: count them per page. Text
		// objects whose glyphs pdfium cannot map at all never reach the
		// text page; those it reaches may still be unmapped.
		mapped := 0
		for _, m := range objs {
			if m {
				mapped++
			}
		}
		out.TextObjects += max(pg.textObjects, len(objs))
		out.Unmapped += max(pg.textObjects, len(objs)) - mapped
		clear(objs)
		out.Pages = append(out.Pages, pg)
	}
	return out, nil
}

// hostile turns an engine failure into a one-line reason: over the
// deadline, out of memory, or a crash.
func (e *Engine) hostile(dctx context.Context, inst pdfium.Pdfium, err error) error {
	limit := uint64(e.memoryPages()) * 65536
	reason := "the PDF engine crashed on it"
	switch mod, _ := moduleOf(inst); {
	case errors.Is(dctx.Err(), context.DeadlineExceeded):
		reason = fmt.Sprintf("took longer than %s", e.timeout())
	case mod != nil && mod.Memory() != nil && uint64(mod.Memory().Size()) >= limit*3/4,
		strings.Contains(strings.ToLower(err.Error()), "memory"): // a failed grow or malloc
		reason = fmt.Sprintf("needed more than the %d MiB memory limit", limit>>20)
	}
	return fmt.Errorf("%w: %w", &hostileError{reason}, err)
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
	var he *hostileError
	switch {
	case errors.As(err, &he):
		return he.Error()
	case errors.Is(err, pdferrors.ErrPassword):
		return "encrypted PDF (needs a password); save an unencrypted copy to add it"
	case errors.Is(err, pdferrors.ErrSecurity):
		return "encrypted PDF (unsupported encryption); save an unencrypted copy to add it"
	case errors.Is(err, pdferrors.ErrFormat), errors.Is(err, pdferrors.ErrFile), errors.Is(err, pdferrors.ErrUnknown):
		return "corrupt PDF (pdfium cannot parse it)"
	case errors.Is(err, errPDFEngine):
		return "corrupt or hostile PDF (the PDF engine crashed on it)"
	}
	return "unreadable PDF: " + err.Error()
}

// ErrUnavailable marks a PDF engine that could not start (or was closed):
// not the document's fault.
var ErrUnavailable = errors.New("PDF engine unavailable")

// Error is a PDF that cannot be read, through its own fault (corrupt,
// encrypted, hostile, without text): Reason is one line for the user.
type Error struct {
	Reason string
	Err    error // the cause, when there is one
}

func (e *Error) Error() string { return e.Reason }
func (e *Error) Unwrap() error { return e.Err }

// ReasonNoText is the Reason for a PDF whose pages carry no text
// (scanned images, or text drawn as shapes).
const ReasonNoText = "no extractable text in this PDF (scanned pages or text drawn as images); run OCR on it first"

// Read reads a PDF held in data as a paper (see Document), within the
// engine's deadline and memory limit. Errors are the context's, an
// ErrUnavailable engine's, or an *Error that says what is wrong with the
// document; a bug in the layout on a strange file is an *Error too, so it
// costs that file, not the run.
func (e *Engine) Read(ctx context.Context, data []byte) (*Document, error) {
	// The PDF's deadline runs from when pdfium starts on it (not while
	// the engine starts or waits for an instance) and covers the
	// layout too; OCR's time is bounded per page instead.
	var began time.Time
	out, err := guard(e, ctx, func(dctx context.Context, inst pdfium.Pdfium) (*extracted, error) {
		began = time.Now()
		return e.read(ctx, dctx, inst, data)
	})
	if err != nil {
		return nil, e.readErr(ctx, err)
	}
	if len(out.Pages) == 0 {
		return nil, &Error{Reason: "PDF has no pages"}
	}
	// Pages without a text layer are read with Tesseract (see ocr.go);
	// the time it takes is bounded per page, not by the PDF's deadline.
	var scanned []int
	var spent time.Duration
	if pages := needsOCR(out); len(pages) > 0 {
		t0 := time.Now()
		scanned, err = e.readScans(ctx, data, out, pages)
		spent = time.Since(t0)
		switch {
		case errors.Is(err, errNoTesseract):
			if len(pages) == len(out.Pages) {
				return nil, &Error{Reason: ReasonNoTesseract}
			}
			scanned = nil // a mixed PDF without Tesseract: its text pages
		case err != nil:
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, &Error{Reason: "OCR failed: " + oneLine(err.Error()), Err: err}
		}
	}
	// Most text runs unmapped: what little comes out is fragments out of
	// order, worse than nothing for retrieval.
	if len(scanned) == 0 && out.Unmapped > 0 && out.Unmapped*2 > out.TextObjects {
		return nil, &Error{Reason: fmt.Sprintf("no extractable text in this PDF (%d of %d text runs use fonts without a Unicode map); run OCR on it first", out.Unmapped, out.TextObjects)}
	}
	d, err := e.layOutWithin(ctx, e.timeout()-(time.Since(began)-spent), out)
	if err != nil {
		return nil, e.readErr(ctx, err)
	}
	for _, i := range scanned {
		d.Pages[i].OCR = true
	}
	return d, nil
}

// ReasonNoTesseract is the Reason for a PDF whose pages have no text
// layer where Tesseract is not installed: it says how to install it.
const ReasonNoTesseract = "no extractable text in this PDF (scanned pages); install Tesseract to read it with OCR: " + InstallTesseract

// readErr turns an error of reading into what Read returns: the
// context's, ErrUnavailable, or an *Error.
func (e *Engine) readErr(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	var de *Error
	if errors.Is(err, ErrUnavailable) || errors.As(err, &de) {
		return err
	}
	return &Error{Reason: pdfReason(err), Err: err}
}

// layOutWithin lays out the pages within what is left of the PDF's
// deadline: at the deadline it returns at once (the layout stops at its
// next page).
func (e *Engine) layOutWithin(ctx context.Context, left time.Duration, out *extracted) (*Document, error) {
	dctx, cancel := context.WithTimeout(ctx, max(left, time.Millisecond))
	defer cancel()
	type result struct {
		d   *Document
		err error
	}
	done := make(chan result, 1)
	go func() {
		d, err := readPaper(dctx, out)
		done <- result{d, err}
	}()
	select {
	case r := <-done:
		if r.err != nil && ctx.Err() == nil && errors.Is(r.err, context.DeadlineExceeded) {
			r.err = fmt.Errorf("%w: %w", &hostileError{fmt.Sprintf("took longer than %s", e.timeout())}, r.err)
		}
		return r.d, r.err
	case <-dctx.Done():
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &hostileError{fmt.Sprintf("took longer than %s", e.timeout())}
	}
}

// oneLine is s on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// readPaper lays the pages out; a panic in the layout becomes an *Error,
// and the layout stops with ctx's error when ctx is done.
func readPaper(ctx context.Context, out *extracted) (d *Document, err error) {
	defer func() {
		if r := recover(); r != nil {
			if s, ok := r.(stopped); ok {
				d, err = nil, s.err
				return
			}
			d, err = nil, &Error{Reason: fmt.Sprintf("unreadable PDF: layout failed: %v", r)}
		}
	}()
	return document(out, layOut(ctx, out.Pages, out.Outline)), nil
}

// stopped is the panic with which the layout stops when its context is
// done (see checkCtx); readPaper recovers it.
type stopped struct{ err error }

// checkCtx stops the layout when ctx is done.
func checkCtx(ctx context.Context) {
	if err := ctx.Err(); err != nil {
		panic(stopped{err})
	}
}
