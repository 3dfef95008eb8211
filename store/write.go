package store

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"
)

// Put is one document with its segments, for PutDocuments.
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
	return s.PutDocuments(ctx, []Put{{Document: doc, Segments: segs}})
}

// PutDocuments stores several documents in one commit: after a crash the
// library holds all of them or none. Committing many small documents at once
// is much faster than one by one (each commit syncs the disk twice).
func (s *Chromem) PutDocuments(ctx context.Context, puts []Put) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(puts) == 0 {
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
	if d := s.disk; d != nil {
		payload := binary.AppendUvarint(nil, uint64(len(entries)))
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
			return fmt.Errorf("couldn't store documents: %w", err)
		}
	}

	if err := s.link(entries); err != nil {
		return err
	}
	s.maybeCompact()
	return nil
}

// link makes committed entries visible, replacing documents of the same
// IDs; the caller holds wmu.
func (s *Chromem) link(entries []*entry) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range entries {
		if old, ok := s.docs[e.doc.ID]; ok {
			if err := s.unlink(old); err != nil {
				return err
			}
		}
		s.docs[e.doc.ID] = e
		s.nsegs += len(e.segs)
		if err := s.addToCollection(e); err != nil {
			return err
		}
	}
	return nil
}

// DeleteDocument removes a document and its segments; a missing document
// is an error wrapping ErrNotFound.
func (s *Chromem) DeleteDocument(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.closed {
		return ErrClosed
	}
	old, ok := s.docs[id] // only writers change docs, and we are the writer
	if !ok {
		return fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if d := s.disk; d != nil {
		payload := binary.AppendUvarint(nil, 1)
		payload = appendDelete(payload, id)
		if err := d.commit(payload, nil); err != nil {
			return fmt.Errorf("couldn't delete document %s: %w", id, err)
		}
	}
	s.mu.Lock()
	err := s.unlink(old)
	delete(s.docs, id)
	s.mu.Unlock()
	if err != nil {
		return err
	}
	s.maybeCompact()
	return nil
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
