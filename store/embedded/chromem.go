package embedded

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/philippgille/chromem-go"
)

// ErrNotFound is returned when a document is not in the library.
var ErrNotFound = errors.New("no such document")

// ErrClosed is returned by a store's methods after Close.
var ErrClosed = errors.New("store is closed")

// Chromem is the embedded default Store: documents, segments and vectors
// live in memory, dense queries go through an in-memory chromem-go
// collection filled with the stored vectors, and, unless the store was
// opened without a folder, every change is first committed to the library's
// own files (see docs/storage.md; chromem-go's persistence is not used, as it
// names files after a 4-byte hash of each id and loses segments when two
// collide).
//
// Invariants:
//   - Every live segment with a non-zero vector is in the chromem collection
//     under its segment ID, with that vector, normalised; segments whose vector
//     is all zeros are stored but never returned by Query.
//   - A change is visible to readers only after it is committed on disk; a
//     failed change leaves memory and disk as they were.
//   - Each document's vectors are one contiguous slice, row i belonging to
//     segment i.
//
// Concurrency: any number of goroutines may read (Documents, Document,
// Segment, Segments, Each, Len, Query, Vector) while one writes (PutDocument,
// PutDocuments, DeleteDocument, Update, Compact); writers are serialised, and
// readers wait only while a committed change is linked in, never for the
// disk. Values
// handed to callers (Filter and Each arguments, Section slices) are shared
// with the store and must not be modified. Segments returned by the store
// carry no Vector; use Vector for a copy.
//
// Between processes, writers take an advisory lock on the library folder
// and refuse to write when another process changed it since Open.
type Chromem struct {
	dir  string // "" for a store that lives only in memory
	info Info

	wmu sync.Mutex // serialises writers; disk I/O happens under wmu only

	// mu guards the fields below it: readers hold it shared; writers, who
	// also hold wmu, take it only to change them.
	mu     sync.RWMutex
	docs   map[string]*entry
	nsegs  int // live segments
	coll   *chromem.Collection
	closed bool

	disk *disk // nil in memory; its fields are guarded by wmu
}

// entry is one live document with its segments and vectors.
type entry struct {
	doc  Document
	segs []Segment // Vector nil
	zero []bool    // zero[i]: segment i's vector is all zeros
	vecs []float32 // len(segs) × dim, row i for segment i
	row  int       // first row in the current generation's vector file
}

func (e *entry) vector(i, dim int) []float32 { return e.vecs[i*dim : (i+1)*dim : (i+1)*dim] }

// Open opens the library in dir, creating it if dir holds none, for use with
// the embedder described by info. With dir == "" the store lives in memory
// only. If the library was built with another embedder or dimension, Open
// returns an error wrapping ErrEmbedderMismatch that names both. A zero Info
// adopts the embedder of an existing library (for commands that need none,
// such as listing); for a library that does not exist yet it is an error
// wrapping fs.ErrNotExist.
//
// Open ignores and removes whatever an interrupted writer left uncommitted.
func Open(dir string, info Info) (*Chromem, error) {
	s := &Chromem{dir: dir, info: info, docs: make(map[string]*entry)}
	if dir == "" {
		if err := validInfo(info); err != nil {
			return nil, err
		}
		if err := s.newCollection(); err != nil {
			return nil, err
		}
		return s, nil
	}
	d, loaded, err := openDisk(dir, info)
	if err != nil {
		return nil, err
	}
	s.disk = d
	s.info = d.man.info()
	if err := s.newCollection(); err != nil {
		d.close()
		return nil, err
	}
	for _, e := range loaded {
		s.docs[e.doc.ID] = e
		s.nsegs += len(e.segs)
	}
	if err := s.addAll(loaded); err != nil {
		d.close()
		return nil, err
	}
	return s, nil
}

// addAll fills the collection with entries on all CPUs: chromem-go checks
// each vector's norm as it adds it, the bulk of the work of opening.
func (s *Chromem) addAll(entries []*entry) error {
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

// ReadInfo reports which embedder built the library in dir; ok is false
// when dir holds no library.
func ReadInfo(dir string) (info Info, ok bool, err error) {
	m, ok, err := readManifest(dir)
	if err != nil || !ok {
		return Info{}, ok, err
	}
	return m.info(), true, nil
}

func validInfo(info Info) error {
	if info.Embedder == "" || info.Dimension <= 0 {
		return fmt.Errorf("store needs an embedder name and a positive dimension, got %q and %d", info.Embedder, info.Dimension)
	}
	return nil
}

func mismatch(dir string, have, want Info) error {
	return fmt.Errorf("%w: the library in %s was built with %q (dimension %d), not %q (dimension %d); "+
		"use %q again, or rebuild the library with %q by removing that folder and adding the documents again",
		ErrEmbedderMismatch, dir, have.Embedder, have.Dimension, want.Embedder, want.Dimension,
		have.Embedder, want.Embedder)
}

func (s *Chromem) newCollection() error {
	noEmbed := func(context.Context, string) ([]float32, error) {
		return nil, errors.New("store: vectors must be given, the store embeds nothing")
	}
	c, err := chromem.NewDB().CreateCollection("segments", nil, noEmbed)
	if err != nil {
		return fmt.Errorf("couldn't create chromem collection: %w", err)
	}
	s.coll = c
	return nil
}

// addToCollection adds e's segments with non-zero vectors to the chromem
// collection. The vectors are normalised already, so chromem keeps the
// slices it is given instead of copying them.
func (s *Chromem) addToCollection(e *entry) error {
	ctx := context.Background()
	for i := range e.segs {
		if e.zero[i] {
			continue
		}
		err := s.coll.AddDocument(ctx, chromem.Document{ID: e.segs[i].ID, Embedding: e.vector(i, s.info.Dimension)})
		if err != nil {
			return fmt.Errorf("couldn't index segment %s: %w", e.segs[i].ID, err)
		}
	}
	return nil
}

func (s *Chromem) removeFromCollection(e *entry) error {
	var ids []string
	for i := range e.segs {
		if !e.zero[i] {
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
func (s *Chromem) Info() Info { return s.info }

// Dir is the library's folder, "" for a store in memory only.
func (s *Chromem) Dir() string { return s.dir }

// Documents returns the library's documents ordered by path, then ID.
func (s *Chromem) Documents() []Document {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]Document, 0, len(s.docs))
	for _, e := range s.docs {
		out = append(out, e.doc)
	}
	slices.SortFunc(out, func(a, b Document) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

// Document returns the document with the given ID.
func (s *Chromem) Document(id string) (Document, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e, ok := s.docs[id]
	if !ok {
		return Document{}, false
	}
	return e.doc, true
}

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
func (s *Chromem) lookup(id string) (*entry, int, bool) {
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

// Segment returns the segment with the given ID (without its vector).
func (s *Chromem) Segment(id string) (Segment, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e, i, ok := s.lookup(id)
	if !ok {
		return Segment{}, false
	}
	return e.segs[i], true
}

// Vector returns a copy of a segment's stored (normalised) vector.
func (s *Chromem) Vector(id string) ([]float32, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e, i, ok := s.lookup(id)
	if !ok {
		return nil, false
	}
	return slices.Clone(e.vector(i, s.info.Dimension)), true
}

// Segments returns a document's segments in order (without vectors).
func (s *Chromem) Segments(docID string) []Segment {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e, ok := s.docs[docID]
	if !ok {
		return nil
	}
	return slices.Clone(e.segs)
}

// Each visits every segment, document by document in ID order and each
// document's segments in order, until fn returns false. fn runs under the
// store's read lock: it must not modify its arguments nor call the store.
func (s *Chromem) Each(fn func(doc *Document, seg *Segment) bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	ids := make([]string, 0, len(s.docs))
	for id := range s.docs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		e := s.docs[id]
		for i := range e.segs {
			if !fn(&e.doc, &e.segs[i]) {
				return
			}
		}
	}
}

// Len is the number of segments in the library.
func (s *Chromem) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.nsegs
}

// Close releases the library's files. The store must not be used after.
func (s *Chromem) Close() error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if s.disk != nil {
		return s.disk.close()
	}
	return nil
}

var _ Store = (*Chromem)(nil)

// removeIfExists removes path, ignoring its absence.
func removeIfExists(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}
