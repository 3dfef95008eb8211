package rag

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/rag/retrieve"
	"github.com/ibid-dev/ibid/store"
)

// LibraryOptions says which library to open and how.
type LibraryOptions struct {
	Name string // "default" if empty
	Dir  string // overrides LibraryDir(Name) (tests)
	// Embedder embeds segments and queries. nil: the one the library was
	// built with if known and local, else the local embedder.
	Embedder retrieve.Embedder
	// InMemory keeps the library in memory only (nothing is written; Dir
	// is ignored), for evaluations and tests.
	InMemory bool
	// AnyEmbedder opens a library whatever embedder built it, for listing
	// and removing documents: when Embedder is nil and the library was built
	// by an embedder other than the local one, Add and Search then refuse
	// with the message that says how to run them. A library that does not
	// exist yet is not created; it opens empty, in memory.
	AnyEmbedder bool
}

// Library is a named collection of documents: the store that keeps their
// segments and vectors, and the retrieval index over them.
//
// Invariants: every document in the store is whole (all its segments, with
// vectors from the library's embedder), and the index holds exactly the
// store's documents. The library's embedder is the one that built it, or nil
// when it was opened with AnyEmbedder and that embedder is not at hand.
//
// Concurrency: Search, Segment, Segments, Documents and Len may be called
// from any goroutine, also while Add or Remove run; Add and Remove are
// serialised in the process and, through a lock file in the library's
// folder (flock), between processes on Linux, macOS and the BSDs (elsewhere two
// writing processes are not kept apart; the store then refuses the second
// one's stale writes). A process whose view of the library is out of date
// (another one wrote since it opened it) reloads it before it writes.
type Library struct {
	name  string
	dir   string // "" in memory
	built store.Info
	emb   retrieve.Embedder // nil: opened with AnyEmbedder, embedder not at hand

	wmu sync.Mutex // serialises Add and Remove in this process

	lmu    sync.Mutex     // guards loader
	loader *ingest.Loader // created when first needed (safe for concurrent use)

	mu    sync.RWMutex // guards st, idx and stamp, which reload replaces
	st    *store.Chromem
	idx   *retrieve.Index
	stamp time.Time // the lock file's modification time when st was loaded
}

// OpenLibrary opens the library opt names, creating it if it does not
// exist. A library built with another embedder is refused with an error
// wrapping store.ErrEmbedderMismatch that says how to run with the right
// one or rebuild the library.
func OpenLibrary(ctx context.Context, opt LibraryOptions) (*Library, error) {
	name := opt.Name
	if name == "" {
		name = "default"
	}
	if err := ValidLibraryName(name); err != nil {
		return nil, err
	}
	dir := opt.Dir
	switch {
	case opt.InMemory:
		dir = ""
	case dir == "":
		dir = LibraryDir(name)
	}

	var built store.Info
	exists := false
	if dir != "" {
		var err error
		built, exists, err = store.ReadInfo(dir)
		if err != nil {
			return nil, fmt.Errorf("couldn't read library %q: %w", name, err)
		}
	}
	if !exists && opt.AnyEmbedder {
		dir = "" // nothing to list: open empty, create nothing
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
			return nil, libMismatch(name, built, store.Info{Embedder: local.Name(), Dimension: local.Dimension()})
		}
	}

	want := store.Info{} // adopt what built it (AnyEmbedder without an embedder)
	if emb != nil {
		want.Embedder = emb.Name()
		if exists && built.Embedder != want.Embedder {
			return nil, libMismatch(name, built, want) // asks no server for its dimension
		}
		d, err := libDimension(ctx, emb, built, exists)
		if err != nil {
			return nil, err
		}
		want.Dimension = d
	}

	st, err := store.Open(dir, want)
	if errors.Is(err, store.ErrEmbedderMismatch) {
		if b, ok, _ := store.ReadInfo(dir); ok {
			return nil, libMismatch(name, b, want)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("couldn't open library %q: %w", name, err)
	}
	l := &Library{name: name, dir: dir, built: st.Info(), emb: emb, st: st}
	if dir != "" {
		l.stamp = libStamp(dir)
	}
	if err := l.buildIndex(); err != nil {
		st.Close()
		return nil, err
	}
	return l, nil
}

// libDimension is the dimension of emb's vectors: the library's, if emb
// built it (an embedder behind a server then needs no call to open it);
// else what emb says, or, if it does not know, the length of a vector it
// makes (which also tells why it cannot, when its server is down).
func libDimension(ctx context.Context, emb retrieve.Embedder, built store.Info, exists bool) (int, error) {
	if exists && built.Embedder == emb.Name() && built.Dimension > 0 {
		return built.Dimension, nil
	}
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

// buildIndex builds the retrieval index over l.st. The caller has not
// published l yet.
func (l *Library) buildIndex() error {
	idx, err := l.newIndex(l.st)
	l.idx = idx
	return err
}

// newIndex builds a retrieval index over st; nil without an embedder.
func (l *Library) newIndex(st *store.Chromem) (*retrieve.Index, error) {
	if l.emb == nil {
		return nil, nil
	}
	// The BM25 index saved in the library's folder, checked against the
	// store, spares analysing every segment again.
	idx, err := retrieve.NewIndexDir(st, l.emb, l.dir)
	if err != nil {
		return nil, fmt.Errorf("couldn't index library %q: %w", l.name, err)
	}
	return idx, nil
}

// saveIndex saves the BM25 index in the library's folder, for the next
// open. The caller holds wmu and the writer lock. A failure costs only
// time at the next open (the index is then rebuilt), so it is not
// reported.
func (l *Library) saveIndex() {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.dir != "" && l.idx != nil {
		l.idx.Save(l.dir)
	}
}

// reload reopens the store from disk and rebuilds the index: another
// process changed the library since this one opened it. The caller holds
// wmu. Searches go on over the old store and index until the new ones are
// ready.
func (l *Library) reload() error {
	if l.dir == "" {
		return errors.New("library in memory cannot be reloaded")
	}
	stamp := libStamp(l.dir) // before opening: a change while we do is seen next time
	st, err := store.Open(l.dir, l.store().Info())
	if err != nil {
		return fmt.Errorf("couldn't reopen library %q: %w", l.name, err)
	}
	idx, err := l.newIndex(st)
	if err != nil {
		st.Close()
		return err
	}
	l.mu.Lock()
	old := l.st
	l.st, l.idx, l.stamp = st, idx, stamp
	l.mu.Unlock()
	old.Close()
	return nil
}

// refresh reloads the library if another process changed it since this
// one loaded it (each writer stamps the lock file's modification time when
// it has committed), so that a long-lived process, such as the chat, sees
// documents added from another terminal at its next search. It does
// nothing while this process is writing to the library, and keeps the old
// view if the library is gone or cannot be reopened.
func (l *Library) refresh() {
	if l.dir == "" {
		return
	}
	stamp := libStamp(l.dir)
	l.mu.RLock()
	same := stamp.Equal(l.stamp)
	l.mu.RUnlock()
	if same || !l.wmu.TryLock() {
		return
	}
	defer l.wmu.Unlock()
	if _, ok, err := store.ReadInfo(l.dir); err != nil || !ok {
		return
	}
	l.reload() // on failure the old view stays, and the next call tries again
}

// touched records that this process changed the library: it stamps the
// lock file for other processes and remembers the stamp as seen. The
// caller holds wmu and the writer lock.
func (l *Library) touched() {
	if l.dir == "" {
		return
	}
	stamp := libTouch(l.dir)
	l.mu.Lock()
	l.stamp = stamp
	l.mu.Unlock()
}

// libMismatch says that library name was built with another embedder and
// how to go on: run with the embedder that built it, or rebuild it.
func libMismatch(name string, built, want store.Info) error {
	flag := "--embed-model " + libEmbedModel(want.Embedder)
	if libIsLocal(want.Embedder) {
		flag = ""
	}
	return fmt.Errorf("%w: library %q was built with %s (dimension %d), not %s; %s, or rebuild it: "+
		"ibid rm --library %s --all && ibid add --library %s%s PATH...",
		store.ErrEmbedderMismatch, name, built.Embedder, built.Dimension, want.Embedder,
		libRunWith(built.Embedder), name, name, libPrefixSpace(flag))
}

func libRunWith(embedder string) string {
	if libIsLocal(embedder) {
		return "run without --embed-model"
	}
	return "run with --embed-model " + libEmbedModel(embedder)
}

func libPrefixSpace(s string) string {
	if s == "" {
		return ""
	}
	return " " + s
}

// libIsLocal reports whether an embedder name is the local embedder's.
func libIsLocal(embedder string) bool {
	return embedder == retrieve.NewLocalEmbedder().Name()
}

// libEmbedModel is the --embed-model value that selects the embedder of
// this name: its name without a provider prefix such as "openai:".
func libEmbedModel(embedder string) string {
	for _, sep := range []string{":", "/"} {
		if p, m, ok := strings.Cut(embedder, sep); ok && p == "openai" {
			return m
		}
	}
	return embedder
}

// Name is the library's name.
func (l *Library) Name() string { return l.name }

// Dir is the library's folder; "" for a library in memory.
func (l *Library) Dir() string { return l.dir }

// EmbedderName names the embedder that built the library.
func (l *Library) EmbedderName() string { return l.built.Embedder }

// Embedder is the library's embedder; nil when the library was opened with
// AnyEmbedder and the embedder that built it is not at hand.
func (l *Library) Embedder() retrieve.Embedder { return l.emb }

// store is the library's store, for Add and Remove (which hold wmu, so
// that it is not replaced under them).
func (l *Library) store() *store.Chromem {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.st
}

// Len is the number of segments in the library.
func (l *Library) Len() int {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.st.Len()
}

// Documents lists the library's documents, sorted by path.
func (l *Library) Documents() []store.Document {
	l.refresh()
	l.mu.RLock()
	docs := l.st.Documents()
	l.mu.RUnlock()
	slices.SortFunc(docs, func(a, b store.Document) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return docs
}

// Document returns the document with this id.
func (l *Library) Document(id string) (store.Document, bool) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.st.Document(id)
}

// Segment returns the segment with this id ("{document_id}:{index}") and
// its document.
func (l *Library) Segment(id string) (store.Segment, store.Document, bool) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	seg, ok := l.st.Segment(id)
	if !ok {
		return store.Segment{}, store.Document{}, false
	}
	doc, ok := l.st.Document(seg.DocumentID)
	if !ok {
		return store.Segment{}, store.Document{}, false
	}
	return seg, doc, true
}

// Segments returns a document's segments in reading order.
func (l *Library) Segments(docID string) []store.Segment {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.st.Segments(docID)
}

// Search returns the passages retrieval hands the model for query: dense
// and BM25 hits fused, each with its neighbouring segments.
func (l *Library) Search(ctx context.Context, query string, opt retrieve.Options) ([]retrieve.Passage, error) {
	if l.emb == nil {
		return nil, l.noEmbedder()
	}
	l.refresh()
	l.mu.RLock()
	defer l.mu.RUnlock()
	ps, err := l.idx.Search(ctx, query, opt)
	if err != nil {
		return nil, fmt.Errorf("couldn't search library %q: %w", l.name, err)
	}
	return ps, nil
}

// getLoader returns the library's loader, creating it on first use; its
// PDF engine keeps its compiled code under CacheDir().
func (l *Library) getLoader() *ingest.Loader {
	l.lmu.Lock()
	defer l.lmu.Unlock()
	if l.loader == nil {
		l.loader = ingest.NewLoader(filepath.Join(CacheDir(), "wazero"))
	}
	return l.loader
}

// noEmbedder is the error of Add and Search on a library opened without
// the embedder that built it.
func (l *Library) noEmbedder() error {
	return fmt.Errorf("%w: library %q was built with %s; %s, or rebuild it: "+
		"ibid rm --library %s --all && ibid add --library %s PATH...",
		store.ErrEmbedderMismatch, l.name, l.built.Embedder, libRunWith(l.built.Embedder), l.name, l.name)
}

// Close releases the library; it must not be used afterwards.
func (l *Library) Close() error {
	l.wmu.Lock()
	defer l.wmu.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
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

// DeleteLibrary removes every file of the library opt names (Name or Dir),
// under the library's writer lock, so that it can be built again, perhaps
// with another embedder. A library that does not exist is not an error.
func DeleteLibrary(ctx context.Context, opt LibraryOptions) error {
	name := opt.Name
	if name == "" {
		name = "default"
	}
	if err := ValidLibraryName(name); err != nil {
		return err
	}
	dir := opt.Dir
	if dir == "" {
		dir = LibraryDir(name)
	}
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	unlock, err := libLock(ctx, dir, nil)
	if err != nil {
		return err
	}
	defer unlock()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("couldn't read library %q: %w", name, err)
	}
	// The manifest first: without it the folder holds no library, whatever
	// else a failure leaves behind.
	slices.SortStableFunc(entries, func(a, b os.DirEntry) int {
		return libBool(b.Name() == "manifest.json") - libBool(a.Name() == "manifest.json")
	})
	for _, e := range entries {
		if e.Name() == libLockName {
			continue // others may be waiting on it
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("couldn't delete library %q: %w", name, err)
		}
	}
	libTouch(dir)
	return nil
}

func libBool(b bool) int {
	if b {
		return 1
	}
	return 0
}

// DocFreq says how many segments hold each term (as keyword search
// analyses text) and how many segments there are (see TermStats).
func (l *Library) DocFreq(ctx context.Context, terms []string) ([]int, int, error) {
	if l.emb == nil {
		return nil, 0, l.noEmbedder()
	}
	l.mu.RLock()
	defer l.mu.RUnlock()
	df, n := l.idx.DocFreq(terms)
	return df, n, nil
}
