// Package embedded is ibid's default store: a library is a folder of its
// own files (an append-only log of documents and segments, one contiguous
// file of vectors, a saved keyword index), held in memory while open;
// chromem-go answers unfiltered dense queries, and a BM25 index of package
// keyword answers keyword queries. docs/storage.md describes the files,
// the locking and what survives a crash or damage.
//
// The package registers itself with package store for folder locations
// (and the empty one, the XDG data folder) and for "memory:" locations.
package embedded

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/philippgille/chromem-go"

	"github.com/ibid-dev/ibid/store"
	"github.com/ibid-dev/ibid/store/keyword"
)

// Store is the embedded store.Store: documents, segments, vectors and the
// keyword index live in memory; unless the store lives in memory only,
// every change is first committed to the library's own files (see
// docs/storage.md; chromem-go's persistence is not used, as it names files
// after a 4-byte hash of each id and loses segments when two collide).
//
// Invariants:
//   - Every live segment with a non-zero vector that is not a parent is in
//     the chromem collection under its segment ID, with that vector,
//     normalised; segments whose vector is all zeros (or whose stored
//     vectors failed their checksum) and parents (store.Parents) are
//     stored but never returned by Dense.
//   - The keyword index holds exactly the live segments that are not
//     parents, each under its KeywordText; so its statistics (DocFreq)
//     leave parents out.
//   - Which segments are parents is derived from the stored Parent fields
//     whenever an entry is made (Update, replaying the log), never stored
//     apart: the files' format does not know of it.
//   - A change is visible to readers only after it is committed on disk; a
//     failed change leaves memory and disk as they were.
//   - Each document's vectors are one contiguous slice, row i belonging to
//     segment i.
//
// Concurrency: any number of goroutines may read while one writes; writers
// (Update, Compact, and catching up with another process's commits) are
// serialised by wsem, and readers wait only while a committed change is
// linked in, never for the disk. Between processes, writers hold the
// library's lock file (flock) from catching up to committing.
type Store struct {
	dir  string // "" for a store that lives only in memory
	info store.Info

	// wsem serialises writers in this process; unlike a mutex, waiting for
	// it honours a context.
	wsem chan struct{}

	// mu guards the fields below it: readers hold it shared; writers, who
	// also hold wsem, take it only to change them.
	mu     sync.RWMutex
	docs   map[string]*entry
	nsegs  int // live segments
	coll   *chromem.Collection
	kw     *keyword.BM25
	closed bool
	mem    map[string]string // a store in memory's settings (settings.go)
	dense  denseIndex        // what Dense scans: the codes, in row order
	view                     // the files and the codes' memory the entries refer to (vf, lf, codes)

	disk *disk // nil in memory; its fields are guarded by wsem

	// check is the background pass over the vectors the last load did
	// not check (check.go), nil when there is none; guarded by wsem.
	check *vectorCheck

	// damaged is a copy of disk.damage for Damage, which may run beside a
	// writer: published after each load and catch-up.
	damaged atomic.Pointer[DamageError]
}

// entry is one live document with its segments and vectors.
//
// Invariant: len(zero) == len(parent) == len(segs), segs[i].Index == i
// and segs[i].ID == doc.ID + ":" + i; doc.Segments == len(segs). vecs is
// nil (the vectors are read from the vector file when needed: a library
// too large for the exact path, see denseIndex) or holds len(segs)×dimension
// floats, row i for segment i. scales and codes are segment i's quantised
// vector (package quant), zero for segments Dense cannot find; qbody is
// the memory they lie in, laid out as a block of the codes file. Once
// linked into a store an entry is never modified except for row (by a
// compaction) and vecs (dropped when the library outgrows the exact path),
// both under the store's lock.
type entry struct {
	doc    store.Document
	segs   []store.Segment // Vector nil
	zero   []bool          // zero[i]: segment i's vector is all zeros (or lost)
	parent []bool          // parent[i]: an index row names segment i (store.Parents): never searched
	vecs   []float32       // len(segs) × dim, row i for segment i; nil when read from the file
	row    int             // first row in the current generation's vector file
	sum    uint32          // checksum of vecs as committed
	lost   bool            // the stored vectors were damaged (zeroed, see disk.attach)
	// unembedded: the vectors were lost and a repair kept the text; the
	// rows are zeros (zero[i] all true) until the document is put again.
	unembedded bool
	terms      []keyword.Terms // analysed KeywordTexts, only until linked

	scales []float32 // len(segs)
	codes  []int8    // len(segs) × quant.Stride(dim)
	qbody  []byte    // the memory of scales and codes

	// texts says where the segments' texts lie in the current generation's
	// log (texts.go): when it is set, segs hold no Text or IndexText. nil
	// for a store in memory only, whose segments keep their texts.
	texts []textRef
	sums  []uint32 // keyword.Sum of each keyword text (a snapshot keeps them for the keyword index)
}

func (e *entry) vector(i, dim int) []float32 { return e.vecs[i*dim : (i+1)*dim : (i+1)*dim] }

// dense reports whether segment i can be found by Dense: it has a vector
// and is not a parent.
func (e *entry) dense(i int) bool { return !e.zero[i] && !e.parent[i] }

// newStore returns an empty store for info.
func newStore(dir string, info store.Info) (*Store, error) {
	s := &Store{dir: dir, info: info, wsem: make(chan struct{}, 1), docs: map[string]*entry{}, kw: keyword.NewBM25(),
		dense: denseIndex{exact: true}}
	c, err := newCollection()
	if err != nil {
		return nil, err
	}
	s.coll = c
	return s, nil
}

// newCollection returns an empty chromem-go collection for the exact path.
func newCollection() (*chromem.Collection, error) {
	noEmbed := func(context.Context, string) ([]float32, error) {
		return nil, errors.New("store: vectors must be given, the store embeds nothing")
	}
	c, err := chromem.NewDB().CreateCollection("segments", nil, noEmbed)
	if err != nil {
		return nil, fmt.Errorf("couldn't create chromem collection: %w", err)
	}
	return c, nil
}

// NewMemory returns a store that lives in memory only, for the embedder
// info describes.
func NewMemory(info store.Info) (*Store, error) {
	if err := validInfo(info); err != nil {
		return nil, err
	}
	return newStore("", info)
}

// lock takes the writer's place in this process, waiting with ctx.
func (s *Store) lock(ctx context.Context) error {
	select {
	case s.wsem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%w: %w", store.ErrBusy, ctx.Err())
	}
}

func (s *Store) unlock() { <-s.wsem }

// tryLock takes the writer's place if it is free.
func (s *Store) tryLock() bool {
	select {
	case s.wsem <- struct{}{}:
		return true
	default:
		return false
	}
}

// addAll fills the collection with entries on all CPUs: chromem-go checks
// each vector's norm as it adds it, the bulk of the work of opening.
func (s *Store) addAll(entries []*entry) error {
	workers := min(runtime.GOMAXPROCS(0), len(entries))
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(entries); i += workers {
				if err := s.addToCollection(entries[i]); err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// addToCollection adds e's segments that Dense can find (entry.dense) to
// the chromem collection. The vectors are normalised already, so chromem keeps the
// slices it is given instead of copying them.
func (s *Store) addToCollection(e *entry) error {
	ctx := context.Background()
	for i := range e.segs {
		if !e.dense(i) {
			continue
		}
		err := s.coll.AddDocument(ctx, chromem.Document{ID: e.segs[i].ID, Embedding: e.vector(i, s.info.Dimension)})
		if err != nil {
			return fmt.Errorf("couldn't index segment %s: %w", e.segs[i].ID, err)
		}
	}
	return nil
}

func (s *Store) removeFromCollection(e *entry) error {
	var ids []string
	for i := range e.segs {
		if e.dense(i) {
			ids = append(ids, e.segs[i].ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	if err := s.coll.Delete(context.Background(), nil, nil, ids...); err != nil {
		return fmt.Errorf("couldn't unindex document %s: %w", e.doc.ID, err)
	}
	return nil
}

// Info says which embedder built the library.
func (s *Store) Info() store.Info { return s.info }

// SetBM25 sets the keyword index's BM25 parameters (for `ibid eval`'s
// tuning; not part of the store contract).
func (s *Store) SetBM25(k1, b float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kw.K1, s.kw.B = k1, b
}

// Damage describes the damage found when the library was opened: nil when
// none was; otherwise an error wrapping *DamageError that says what to do.
// A damaged library is open read-only.
func (s *Store) Damage() error {
	if d := s.damaged.Load(); d != nil {
		return d
	}
	return nil
}

// publishDamage makes what the last load or catch-up found visible to
// Damage; the caller holds wsem.
func (s *Store) publishDamage() {
	d := s.disk.damage
	if d == nil {
		s.damaged.Store(nil)
		return
	}
	c := *d
	c.Problems = slices.Clone(d.Problems)
	s.damaged.Store(&c)
}

// Close saves the keyword index if it changed, and the snapshot when the
// log has grown past it (snapshot.go), and releases the library's files. The store must not be used after.
func (s *Store) Close() error {
	s.wsem <- struct{}{}
	defer s.unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if s.disk == nil {
		return nil
	}
	s.saveSnapshotNow()
	s.saveKeywordLocked(false)
	s.view.release()
	s.view = view{}
	return s.disk.close()
}

// saveKeywordLocked writes the keyword index when it changed since it was
// last saved (with throttle, at most every keywordSaveEvery); the caller
// holds wsem and mu (shared at least). A failure only costs the next open
// the analysis of what changed.
func (s *Store) saveKeywordLocked(throttle bool) {
	d := s.disk
	if d == nil || !d.kwDirty || !d.writable() || d.damage != nil {
		return
	}
	if throttle && time.Since(d.kwSaved) < keywordSaveEvery {
		return
	}
	if err := s.kw.Save(d.path(keywordName)); err == nil {
		d.kwDirty, d.kwSaved = false, time.Now()
	}
}

// keywordSaveEvery bounds how often a busy writer saves the keyword index;
// Close saves it too, and a stale file costs the next open only the
// segments that changed.
const keywordSaveEvery = 10 * time.Second

// splitID splits a segment ID "doc:index" into its parts.
func splitID(id string) (doc string, index int, ok bool) {
	i := strings.LastIndexByte(id, ':')
	if i < 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(id[i+1:])
	if err != nil || n < 0 {
		return "", 0, false
	}
	return id[:i], n, true
}

// lookup finds a live segment; the caller holds mu.
func (s *Store) lookup(id string) (*entry, int, bool) {
	docID, i, ok := splitID(id)
	if !ok {
		return nil, 0, false
	}
	e, ok := s.docs[docID]
	if !ok || i >= len(e.segs) {
		return nil, 0, false
	}
	return e, i, true
}

func validInfo(info store.Info) error {
	if info.Embedder == "" || info.Dimension <= 0 {
		return fmt.Errorf("store needs an embedder name and a positive dimension, got %q and %d", info.Embedder, info.Dimension)
	}
	return nil
}

func mismatch(dir string, have, want store.Info) error {
	return fmt.Errorf("%w: the library in %s was built with %q (dimension %d), not %q (dimension %d); "+
		"use %q again, or rebuild the library with %q (ibid rm --all, then add the documents again)",
		store.ErrEmbedderMismatch, dir, have.Embedder, have.Dimension, want.Embedder, want.Dimension,
		have.Embedder, want.Embedder)
}

var (
	_ store.Store           = (*Store)(nil)
	_ store.DocumentCounter = (*Store)(nil)
)
