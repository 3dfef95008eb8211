// Package library is a named collection of documents over a store.Store:
// adding files (load, chunk, embed, commit), removing them, and searching
// them. It knows the store only through the store contract, so a library
// lives in the embedded store or in PostgreSQL alike; which one is the
// location given in Options.Store.
package library

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ibid-dev/ibid/internal/regular"
	"github.com/ibid-dev/ibid/internal/xdg"
	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/rag/retrieve"
	"github.com/ibid-dev/ibid/store"
)

// DefaultName is the library used when none is named.
const DefaultName = "default"

// Options say which library to open and how.
type Options struct {
	Name string // DefaultName if empty
	// Store is where libraries live: "" for the embedded store in the XDG
	// data folder, a folder path for the embedded store there,
	// "postgres://…" for PostgreSQL (see store.Open).
	Store string
	// Embedder embeds segments and queries. nil: the one the library was
	// built with if known and local, else the local embedder.
	Embedder retrieve.Embedder
	// InMemory keeps the library in memory only (nothing is written; Store
	// is ignored), for evaluations and tests.
	InMemory bool
	// AnyEmbedder opens a library whatever embedder built it, for listing
	// and removing documents: when Embedder is nil and the library was built
	// by an embedder other than the local one, Add and Search then refuse
	// with the message that says how to run them. A library that does not
	// exist yet is not created; it opens empty, in memory.
	AnyEmbedder bool
	// MustExist refuses to open a library that does not exist (instead of
	// creating it), with an error wrapping store.ErrNoLibrary that lists
	// the libraries there are.
	MustExist bool
	// OCRLang is Tesseract's language list for PDF pages without a text
	// layer ("eng", "deu+eng"); "" is English.
	OCRLang string
	// OCRDPI is the resolution such pages are rendered at for Tesseract;
	// 0 is 300. Lower reads faster and small print worse.
	OCRDPI int
}

func (o Options) name() string {
	if o.Name == "" {
		return DefaultName
	}
	return o.Name
}

// Library is a named collection of documents: a store that keeps their
// segments and vectors and answers dense and keyword queries, and the
// embedder that built it.
//
// Invariants: every document in the store is whole (all its segments, with
// vectors from the library's embedder). The library's embedder is the one
// that built it, or nil when it was opened with AnyEmbedder and that
// embedder is not at hand.
//
// Concurrency: every method may be called from any goroutine, also while
// Add or Remove run. Add and Remove are serialised in the process; between
// processes the store serialises writes, and each Add or Remove settles
// its decisions again when another process changed what they were based
// on. Close cancels a running Add or Remove (which keeps the documents it
// had finished) and waits for it.
type Library struct {
	name  string
	loc   string // the store location ("memory:" in memory)
	st    store.Store
	built store.Info
	emb   retrieve.Embedder // nil: opened with AnyEmbedder, embedder not at hand

	wmu sync.Mutex // serialises Add and Remove in this process

	closing context.Context // done once Close is called
	close   context.CancelFunc

	lmu     sync.Mutex     // guards loader
	loader  *ingest.Loader // created when first needed (safe for concurrent use)
	ocrLang string         // Options.OCRLang
	ocrDPI  int            // Options.OCRDPI

	rmu     sync.Mutex    // guards rootsCh
	rootsCh chan struct{} // closed when this Library changes the roots (roots.go), then replaced

	smu   sync.Mutex // guards skips
	skips *skipMemo  // the files syncs skipped (skips.go), read when first needed
}

// memory is the location of a library kept in memory.
const memory = "memory:"

// Open opens the library opt names, creating it if it does not exist. A
// library built with another embedder is refused with an error wrapping
// store.ErrEmbedderMismatch that says how to run with the right one or
// rebuild the library.
func Open(ctx context.Context, opt Options) (*Library, error) {
	name := opt.name()
	if err := store.ValidName(name); err != nil {
		return nil, err
	}
	loc := opt.Store
	if opt.InMemory {
		loc = memory
	}

	// Open what is there, adopting its embedder, to learn what built it.
	var st store.Store
	exists := false
	if loc != memory {
		var err error
		st, err = store.Open(ctx, loc, store.Options{Library: name})
		switch {
		case errors.Is(err, store.ErrNoLibrary):
			if opt.MustExist {
				return nil, noLibrary(ctx, loc, name)
			}
		case err != nil:
			return nil, fmt.Errorf("couldn't open library %q: %w", name, openHint(err))
		default:
			exists = true
		}
	}
	var built store.Info
	if exists {
		built = st.Info()
	}
	fail := func(err error) (*Library, error) {
		if st != nil {
			st.Close()
		}
		return nil, err
	}

	emb := opt.Embedder
	if emb == nil {
		local := retrieve.NewLocalEmbedder()
		switch {
		case !exists || built.Embedder == local.Name():
			emb = local
		case opt.AnyEmbedder:
			// Listing and removing need no embedder.
		default:
			return fail(mismatch(name, built, store.Info{Embedder: local.Name(), Dimension: local.Dimension()}))
		}
	}
	if emb != nil && exists {
		want := store.Info{Embedder: emb.Name(), Dimension: built.Dimension}
		if built.Embedder != want.Embedder {
			return fail(mismatch(name, built, want)) // asks no server for its dimension
		}
		if d := emb.Dimension(); d > 0 && d != built.Dimension {
			want.Dimension = d
			return fail(mismatch(name, built, want))
		}
	}

	if !exists {
		if opt.AnyEmbedder {
			loc = memory // nothing to list: open empty, create nothing
		}
		d, err := dimension(ctx, emb)
		if err != nil {
			return nil, err
		}
		built = store.Info{Embedder: emb.Name(), Dimension: d}
		st, err = store.Open(ctx, loc, store.Options{Library: name, Info: built, Create: true})
		if err != nil {
			return nil, fmt.Errorf("couldn't create library %q: %w", name, openHint(err))
		}
	}
	closing, cancel := context.WithCancel(context.Background())
	return &Library{name: name, loc: loc, st: st, built: built, emb: emb, closing: closing, close: cancel, ocrLang: opt.OCRLang, ocrDPI: opt.OCRDPI,
		rootsCh: make(chan struct{})}, nil
}

// openHint adds to an error that opening a store returned what to do about
// it, where the store did not say.
func openHint(err error) error {
	if errors.Is(err, store.ErrEmbedderMismatch) || strings.Contains(err.Error(), "ibid ") {
		return err
	}
	return fmt.Errorf("%w (ibid doctor checks a library and says what is wrong)", err)
}

// noLibrary is the error for a library that must exist and does not: it
// lists the libraries there are and says how to create one.
func noLibrary(ctx context.Context, loc, name string) error {
	var names []string
	if libs, err := store.Libraries(ctx, loc); err == nil {
		for _, l := range libs {
			names = append(names, l.Name)
		}
	}
	have := "there are no libraries yet"
	if len(names) > 0 {
		have = "the libraries are: " + strings.Join(names, ", ")
	}
	return fmt.Errorf("%w %q (%s); create it with: ibid add --library %s PATH…", store.ErrNoLibrary, name, have, name)
}

// dimension is the dimension of emb's vectors: what emb says, or, if it
// does not know, the length of a vector it makes (which also tells why it
// cannot, when its server is down).
func dimension(ctx context.Context, emb retrieve.Embedder) (int, error) {
	if d := emb.Dimension(); d > 0 {
		return d, nil
	}
	vs, err := emb.Embed(ctx, []string{"dimension probe"})
	if err != nil {
		return 0, fmt.Errorf("couldn't reach the embedder %s (check OPENAI_BASE_URL and OPENAI_API_KEY): %w", emb.Name(), err)
	}
	if len(vs) != 1 || len(vs[0]) == 0 {
		return 0, fmt.Errorf("embedder %s returned no vector", emb.Name())
	}
	return len(vs[0]), nil
}

// mismatch says that library name was built with another embedder and
// how to go on: run with the embedder that built it, or rebuild it.
func mismatch(name string, built, want store.Info) error {
	flag := ""
	if !isLocal(want.Embedder) {
		flag = " --embed-model " + embedModel(want.Embedder)
	}
	return fmt.Errorf("%w: library %q was built with %s (dimension %d), not %s; %s, or rebuild it: "+
		"ibid rm --library %s --all && ibid add --library %s%s PATH…",
		store.ErrEmbedderMismatch, name, built.Embedder, built.Dimension, want.Embedder,
		runWith(built.Embedder), name, name, flag)
}

func runWith(embedder string) string {
	if isLocal(embedder) {
		return "run without --embed-model"
	}
	return "run with --embed-model " + embedModel(embedder)
}

// isLocal reports whether an embedder name is the local embedder's.
func isLocal(embedder string) bool {
	return embedder == retrieve.NewLocalEmbedder().Name()
}

// embedModel is the --embed-model value that selects the embedder of
// this name: its name without a provider prefix such as "openai:".
func embedModel(embedder string) string {
	for _, sep := range []string{":", "/"} {
		if p, m, ok := strings.Cut(embedder, sep); ok && p == "openai" {
			return m
		}
	}
	return embedder
}

// Name is the library's name.
func (l *Library) Name() string { return l.name }

// Location is the store location the library lives at ("memory:" for a
// library in memory).
func (l *Library) Location() string { return l.loc }

// InMemory reports whether the library lives in memory only.
func (l *Library) InMemory() bool { return l.loc == memory }

// EmbedderName names the embedder that built the library.
func (l *Library) EmbedderName() string { return l.built.Embedder }

// Store is the library's store.
func (l *Library) Store() store.Store { return l.st }

// getLoader returns the library's loader, creating it on first use; its
// PDF engine keeps its compiled code under the cache folder.
func (l *Library) getLoader() *ingest.Loader {
	l.lmu.Lock()
	defer l.lmu.Unlock()
	if l.loader == nil {
		dir := filepath.Join(xdg.CacheDir(), "wazero")
		// The PDF engine's compiler cache opens its entries as they are: a
		// named pipe left there would hang it. A cache holds regular files.
		regular.Sweep(dir, 3)
		l.loader = ingest.NewLoader(dir)
		l.loader.SetOCR(l.ocrLang, filepath.Join(xdg.CacheDir(), "ocr"), l.ocrDPI)
	}
	return l.loader
}

// noEmbedder is the error of Add and Search on a library opened without
// the embedder that built it.
func (l *Library) noEmbedder() error {
	return fmt.Errorf("%w: library %q was built with %s; %s, or rebuild it: "+
		"ibid rm --library %s --all && ibid add --library %s PATH…",
		store.ErrEmbedderMismatch, l.name, l.built.Embedder, runWith(l.built.Embedder), l.name, l.name)
}

// Close cancels a running Add or Remove, waits for it (it commits the
// documents it had finished), and releases the library; it must not be
// used afterwards.
func (l *Library) Close() error {
	l.close()
	l.wmu.Lock()
	defer l.wmu.Unlock()
	var errs []error
	l.lmu.Lock()
	if l.loader != nil {
		errs = append(errs, l.loader.Close())
		l.loader = nil
	}
	l.lmu.Unlock()
	errs = append(errs, l.st.Close())
	return errors.Join(errs...)
}

// bind returns a context that is done when ctx is or when the library is
// closed, so that Close stops a running Add or Remove.
func (l *Library) bind(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(l.closing, cancel)
	return ctx, func() { stop(); cancel() }
}

// Delete removes the library opt names and everything in it, atomically
// (after a crash it is whole or gone), so that it can be built again,
// perhaps with another embedder. A library that does not exist is not an
// error.
func Delete(ctx context.Context, opt Options) error {
	name := opt.name()
	if err := store.ValidName(name); err != nil {
		return err
	}
	if err := store.Drop(ctx, opt.Store, name); err != nil {
		return fmt.Errorf("couldn't delete library %q: %w", name, err)
	}
	return nil
}

// List lists the libraries at a store location.
func List(ctx context.Context, location string) ([]store.LibraryInfo, error) {
	libs, err := store.Libraries(ctx, location)
	if err != nil {
		return nil, fmt.Errorf("couldn't list libraries: %w", err)
	}
	return libs, nil
}
