package embedded

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"
)

// Put is one document with its segments, for PutDocuments and Update.
type Put struct {
	Document Document
	Segments []Segment
}

// PutDocument stores doc and its segments (with vectors), replacing any
// document of the same ID. It commits before it returns: after a crash the
// library holds the whole document or, if the commit had not finished, what
// it held before. The vectors are copied and normalised; an all-zero vector
// is kept but such a segment never matches a query.
func (s *Chromem) PutDocument(ctx context.Context, doc Document, segs []Segment) error {
	return s.Update(ctx, []Put{{Document: doc, Segments: segs}}, nil)
}

// PutDocuments stores several documents in one commit: after a crash the
// library holds all of them or none. Committing many small documents at once
// is much faster than one by one (each commit syncs the disk twice).
func (s *Chromem) PutDocuments(ctx context.Context, puts []Put) error {
	return s.Update(ctx, puts, nil)
}

// DeleteDocument removes a document and its segments; a missing document
// is an error wrapping ErrNotFound.
func (s *Chromem) DeleteDocument(ctx context.Context, id string) error {
	return s.Update(ctx, nil, []string{id})
}

// Update deletes the documents named in deletes, then stores puts, all in
// one commit: after a crash the library shows all of it or none. Replacing
// a changed file (whose new content hash gives a new document ID) is
// Update(ctx, []Put{newDoc}, []string{oldID}). A delete of a document that
// is not there is an error wrapping ErrNotFound, and nothing is changed.
func (s *Chromem) Update(ctx context.Context, puts []Put, deletes []string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(puts) == 0 && len(deletes) == 0 {
		return nil
	}
	dim := s.info.Dimension
	entries := make([]*entry, len(puts))
	for i := range puts {
		e, err := prepare(&puts[i], dim)
		if err != nil {
			return err
		}
		entries[i] = e
	}

	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.closed {
		return ErrClosed
	}
	for _, id := range deletes {
		if _, ok := s.docs[id]; !ok { // only writers change docs, and we are the writer
			return fmt.Errorf("%w: %s", ErrNotFound, id)
		}
	}
	if d := s.disk; d != nil {
		payload := binary.AppendUvarint(nil, uint64(len(deletes)+len(entries)))
		for _, id := range deletes {
			payload = appendDelete(payload, id)
		}
		vecs := make([][]float32, 0, len(entries))
		row := d.rows
		var err error
		for _, e := range entries {
			e.row = row
			payload, err = appendPut(payload, &e.doc, e.segs, e.zero, row)
			if err != nil {
				return err
			}
			vecs = append(vecs, e.vecs)
			row += len(e.segs)
		}
		if err := d.commit(payload, vecs); err != nil {
			return fmt.Errorf("couldn't update library: %w", err)
		}
	}

	if err := s.link(deletes, entries); err != nil {
		return err
	}
	s.maybeCompact()
	return nil
}

// link makes a committed update visible: deletes first, then puts, which
// replace documents of the same IDs. The caller holds wmu.
func (s *Chromem) link(deletes []string, entries []*entry) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for _, id := range deletes {
		if old, ok := s.docs[id]; ok {
			errs = append(errs, s.unlink(old))
			delete(s.docs, id)
		}
	}
	for _, e := range entries {
		if old, ok := s.docs[e.doc.ID]; ok {
			errs = append(errs, s.unlink(old))
		}
		s.docs[e.doc.ID] = e
		s.nsegs += len(e.segs)
		errs = append(errs, s.addToCollection(e))
	}
	return errors.Join(errs...)
}

// unlink takes a replaced or deleted document out of the collection and
// the counts; the caller holds wmu and mu.
func (s *Chromem) unlink(old *entry) error {
	s.nsegs -= len(old.segs)
	if s.disk != nil {
		s.disk.deadRows += len(old.segs)
	}
	return s.removeFromCollection(old)
}

// prepare validates a put and turns it into an entry that shares nothing
// with the caller: ids checked, vectors copied into one block and
// normalised.
func prepare(p *Put, dim int) (*entry, error) {
	doc := p.Document
	if doc.ID == "" {
		return nil, fmt.Errorf("document has no ID (path %q)", doc.Path)
	}
	if doc.Added == 0 {
		doc.Added = time.Now().Unix()
	}
	doc.Segments = len(p.Segments)
	e := &entry{
		doc:  doc,
		segs: make([]Segment, len(p.Segments)),
		zero: make([]bool, len(p.Segments)),
		vecs: make([]float32, len(p.Segments)*dim),
	}
	for i, sg := range p.Segments {
		want := doc.ID + ":" + strconv.Itoa(i)
		if sg.ID != want || sg.DocumentID != doc.ID || sg.Index != i {
			return nil, fmt.Errorf("segment %d of document %s has ID %q, document %q, index %d; want %q, %q, %d",
				i, doc.ID, sg.ID, sg.DocumentID, sg.Index, want, doc.ID, i)
		}
		if len(sg.Vector) != dim {
			return nil, fmt.Errorf("%w: segment %s has a vector of dimension %d, the library's is %d",
				ErrEmbedderMismatch, sg.ID, len(sg.Vector), dim)
		}
		v := e.vector(i, dim)
		var sum float64
		for j, x := range sg.Vector {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("segment %s has a vector with %v at %d", sg.ID, x, j)
			}
			v[j] = x
			sum += float64(x) * float64(x)
		}
		if sum == 0 {
			e.zero[i] = true
		} else if math.Abs(math.Sqrt(sum)-1) >= 1e-7 {
			norm := float32(math.Sqrt(sum))
			for j := range v {
				v[j] /= norm
			}
		}
		sg.Vector = nil
		sg.Section = slices.Clone(sg.Section)
		e.segs[i] = sg
	}
	return e, nil
}
