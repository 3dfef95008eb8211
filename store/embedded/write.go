package embedded

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/ibid-dev/ibid/internal/regular"
	"github.com/ibid-dev/ibid/store"
	"github.com/ibid-dev/ibid/store/internal/quant"
	"github.com/ibid-dev/ibid/store/keyword"
)

// Update deletes the documents named in deletes, then stores puts
// (replacing documents of the same ID), in one commit: after an error, or a
// crash at any moment, the library shows all of it or none. A delete of a
// document that is not there is an error wrapping ErrNotFound, and nothing
// is changed. Vectors are copied and normalised; NaN or infinite values
// are refused; an all-zero vector is kept but never matches a query.
//
// Update waits for other writers, in this process and in others, as long
// as ctx allows (then it returns an error wrapping ErrBusy), and honours
// ctx until its commit point.
func (s *Store) Update(ctx context.Context, puts []store.Put, deletes []string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(puts) == 0 && len(deletes) == 0 {
		return nil
	}
	dim := s.info.Dimension
	entries := make([]*entry, len(puts))
	var a keyword.Analyser
	for i := range puts {
		e, err := prepare(&puts[i], dim, &a)
		if err != nil {
			return err
		}
		entries[i] = e
		if i%16 == 15 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}

	if err := s.lock(ctx); err != nil {
		return err
	}
	defer s.unlock()
	if s.isClosed() {
		return store.ErrClosed
	}
	if d := s.disk; d != nil {
		if err := s.writeLocked(ctx, d, entries, deletes); err != nil {
			return err
		}
	} else if err := s.checkDeletes(deletes); err != nil {
		return err
	}
	if err := s.link(deletes, entries); err != nil {
		return err
	}
	if s.disk != nil {
		s.maybeCompact()
		s.mu.RLock()
		s.saveKeywordLocked(true)
		s.mu.RUnlock()
	}
	return nil
}

func (s *Store) isClosed() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.closed
}

// checkDeletes refuses deletes of documents the library does not hold; the
// caller holds wsem (so docs cannot change).
func (s *Store) checkDeletes(deletes []string) error {
	for _, id := range deletes {
		if _, ok := s.docs[id]; !ok {
			return fmt.Errorf("couldn't delete document %s: %w", id, store.ErrNotFound)
		}
	}
	return nil
}

// writeLocked commits a batch to disk: it takes the library's lock,
// catches up with other processes' commits, checks the deletes against the
// result, and appends the batch. The caller holds wsem.
func (s *Store) writeLocked(ctx context.Context, d *disk, entries []*entry, deletes []string) error {
	if d.damage != nil {
		return fmt.Errorf("%w: %w", store.ErrReadOnly, d.damage)
	}
	if !d.writable() {
		return fmt.Errorf("%w: library in %s", store.ErrReadOnly, d.dir)
	}
	unlock, err := s.lockCaughtUp(ctx, d)
	if err != nil {
		return err
	}
	defer unlock()
	if err := s.prepareFiles(ctx, d); err != nil {
		return err
	}
	if err := s.checkDeletes(deletes); err != nil {
		return err
	}
	payload := binary.AppendUvarint(nil, uint64(len(deletes)+len(entries)))
	for _, id := range deletes {
		payload = appendDelete(payload, id)
	}
	vecs := make([][]float32, 0, len(entries))
	row := d.rows
	for _, e := range entries {
		e.row = row
		e.texts = make([]textRef, len(e.segs))
		payload, err = appendPutAt(payload, &e.doc, e.segs, e.zero, row, e.sum, false, e.texts)
		if err != nil {
			return err
		}
		vecs = append(vecs, e.vecs)
		row += len(e.segs)
	}
	docs, segs := s.countsAfter(deletes, entries)
	base := d.logEnd + recordHeader // where the payload will lie in the log
	if err := d.commit(ctx, payload, vecs, docs, segs); err != nil {
		return fmt.Errorf("couldn't update library: %w", err)
	}
	for _, e := range entries {
		for i := range e.texts {
			e.texts[i].off += base
		}
	}
	d.appendCodes(entries)
	s.openFiles()
	return nil
}

// countsAfter is the number of live documents and segments once deletes
// and then entries are applied; the caller holds wsem.
func (s *Store) countsAfter(deletes []string, entries []*entry) (docs, segs int) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	docs, segs = len(s.docs), s.nsegs
	gone := map[string]bool{}
	drop := func(id string) {
		if e, ok := s.docs[id]; ok && !gone[id] {
			gone[id] = true
			docs--
			segs -= len(e.segs)
		}
	}
	for _, id := range deletes {
		drop(id)
	}
	for _, e := range entries {
		drop(e.doc.ID)
	}
	added := map[string]int{}
	for _, e := range entries {
		if _, ok := added[e.doc.ID]; !ok {
			docs++
		}
		segs += len(e.segs) - added[e.doc.ID]
		added[e.doc.ID] = len(e.segs)
	}
	return docs, segs
}

// openFiles opens the current generation's vector file and log for
// reading when the store has none open yet (the first commit made them).
// The caller holds wsem.
func (s *Store) openFiles() {
	if s.disk == nil || (s.vf != nil && s.lf != nil) {
		return
	}
	d := s.disk
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.vf == nil {
		s.vf, _, _ = regular.Open(d.path(vectorName(d.man.Generation)))
	}
	if s.lf == nil {
		s.lf, _, _ = regular.Open(d.path(logName(d.man.Generation)))
	}
}

// link makes a committed update visible: deletes first, then puts, which
// replace documents of the same IDs. A library that grows past exactMax
// leaves the exact path here (see denseIndex). The caller holds wsem.
func (s *Store) link(deletes []string, entries []*entry) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for _, id := range deletes {
		if old, ok := s.docs[id]; ok {
			errs = append(errs, s.unlink(old))
			delete(s.docs, id)
		}
	}
	x := &s.dense
	for _, e := range entries {
		if old, ok := s.docs[e.doc.ID]; ok {
			errs = append(errs, s.unlink(old))
		}
		if s.disk == nil {
			e.row = x.next // rows only order the scan: there is no file
			x.next += len(e.segs)
		}
		s.docs[e.doc.ID] = e
		s.nsegs += len(e.segs)
		for i := range e.segs {
			if !e.parent[i] {
				s.kw.AddTerms(e.segs[i].ID, e.terms[i])
			}
		}
		e.terms = nil
		if x.exact {
			errs = append(errs, s.addToCollection(e))
		}
	}
	x.link(s.docs, entries)
	if x.exact && x.n > exactMax {
		s.leaveExact()
	}
	for _, e := range entries {
		if s.disk != nil && e.texts != nil {
			// Committed: the texts are read from the log when needed.
			for i := range e.segs {
				e.segs[i].Text, e.segs[i].IndexText = "", ""
			}
		}
		if !x.exact && s.disk != nil {
			e.vecs = nil // committed: read from the file when needed
		}
	}
	if s.disk != nil {
		s.disk.kwDirty = true
	}
	return errors.Join(errs...)
}

// leaveExact empties the chromem collection of a library grown past
// exactMax and drops the vectors of its entries, which the codes now
// stand for (read from the vector file when needed; a store in memory only
// keeps them). The caller holds wsem and mu.
func (s *Store) leaveExact() {
	s.dense.exact = false
	if c, err := newCollection(); err == nil {
		s.coll = c
	}
	if s.disk == nil || s.vf == nil {
		return
	}
	for _, e := range s.docs {
		e.vecs = nil
	}
}

// unlink takes a replaced or deleted document out of the collection, the
// keyword index and the counts; the caller holds wsem and mu.
func (s *Store) unlink(old *entry) error {
	s.dense.unlink(old)
	s.nsegs -= len(old.segs)
	if s.disk != nil {
		s.disk.deadRows += len(old.segs)
	}
	for i := range old.segs {
		if !old.parent[i] {
			s.kw.Remove(old.segs[i].ID)
		}
	}
	if !s.dense.exact {
		return nil
	}
	return s.removeFromCollection(old)
}

// prepare validates a put and turns it into an entry that shares nothing
// with the caller: ids, boxes (store.CheckBoxes) and index rows' parents
// checked (store.Parents),
// vectors copied into one block and normalised, keyword texts analysed. A
// parent's vector is not kept: its row is zeroed, and so committed.
func prepare(p *store.Put, dim int, a *keyword.Analyser) (*entry, error) {
	doc := cloneDoc(p.Document)
	if doc.ID == "" {
		return nil, fmt.Errorf("document has no ID (path %q)", doc.Path)
	}
	if doc.Added == 0 {
		doc.Added = time.Now().Unix()
	}
	doc.Segments = len(p.Segments)
	e := &entry{
		doc:   doc,
		segs:  make([]store.Segment, len(p.Segments)),
		zero:  make([]bool, len(p.Segments)),
		vecs:  make([]float32, len(p.Segments)*dim),
		terms: make([]keyword.Terms, len(p.Segments)),
		sums:  make([]uint32, len(p.Segments)),
	}
	for i, sg := range p.Segments {
		want := doc.ID + ":" + strconv.Itoa(i)
		if sg.ID != want || sg.DocumentID != doc.ID || sg.Index != i {
			return nil, fmt.Errorf("segment %d of document %s has ID %q, document %q, index %d; want %q, %q, %d",
				i, doc.ID, sg.ID, sg.DocumentID, sg.Index, want, doc.ID, i)
		}
		if len(sg.Vector) != dim {
			return nil, fmt.Errorf("%w: segment %s has a vector of dimension %d, the library's is %d",
				store.ErrEmbedderMismatch, sg.ID, len(sg.Vector), dim)
		}
		v := e.vector(i, dim)
		copy(v, sg.Vector)
		zero, err := store.Normalize(v)
		if err != nil {
			return nil, fmt.Errorf("segment %s: %w", sg.ID, err)
		}
		e.zero[i] = zero
		sg.Vector = nil
		if err := store.CheckBoxes(&sg); err != nil {
			return nil, err
		}
		sg.Section = slices.Clone(sg.Section)
		sg.Boxes = store.StoredBoxes(sg.Boxes)
		e.segs[i] = sg
	}
	parent, err := store.Parents(e.segs)
	if err != nil {
		return nil, fmt.Errorf("document %s: %w", doc.ID, err)
	}
	e.parent = parent
	for i := range e.segs {
		if parent[i] {
			clear(e.vector(i, dim))
			e.zero[i] = true
			e.sums[i] = keyword.Sum([]byte(e.segs[i].KeywordText()))
			continue
		}
		e.terms[i] = a.Terms(e.segs[i].KeywordText())
		e.sums[i] = e.terms[i].Sum()
	}
	e.sum = vecSum(e.vecs)
	e.encodeCodes(nil, e.vecs, dim, quant.Stride(dim))
	return e, nil
}

// lockCaughtUp takes the library's lock (for writing between processes),
// catches up with what other processes committed, and refuses to go on
// (releasing the lock) if that found damage. The caller holds wsem and
// calls the returned unlock when done.
func (s *Store) lockCaughtUp(ctx context.Context, d *disk) (unlock func(), err error) {
	unlock, err = d.lockFile(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.catchUp(); err != nil {
		unlock()
		return nil, err
	}
	if err := s.awaitCheck(ctx); err != nil {
		unlock()
		return nil, err
	}
	if d.damage != nil {
		unlock()
		return nil, fmt.Errorf("%w: %w", store.ErrReadOnly, d.damage)
	}
	return unlock, nil
}
