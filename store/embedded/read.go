package embedded

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ibid-dev/ibid/store"
)

// rlock prepares a read: it catches up with what another process
// committed (see refresh) and takes the read lock, which the caller
// releases with s.mu.RUnlock.
func (s *Store) rlock(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.refresh()
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return store.ErrClosed
	}
	return nil
}

// Documents returns the library's documents ordered by path, then ID.
func (s *Store) Documents(ctx context.Context) ([]store.Document, error) {
	if err := s.rlock(ctx); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	out := make([]store.Document, 0, len(s.docs))
	for _, e := range s.docs {
		out = append(out, cloneDoc(e.doc))
	}
	slices.SortFunc(out, func(a, b store.Document) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// Document returns the document with the given ID.
func (s *Store) Document(ctx context.Context, id string) (store.Document, error) {
	if err := s.rlock(ctx); err != nil {
		return store.Document{}, err
	}
	defer s.mu.RUnlock()
	e, ok := s.docs[id]
	if !ok {
		return store.Document{}, fmt.Errorf("document %s: %w", id, store.ErrNotFound)
	}
	return cloneDoc(e.doc), nil
}

// Segment returns the segment with the given ID (without its vector) and
// its document.
func (s *Store) Segment(ctx context.Context, id string) (store.Segment, store.Document, error) {
	if err := s.rlock(ctx); err != nil {
		return store.Segment{}, store.Document{}, err
	}
	defer s.mu.RUnlock()
	e, i, ok := s.lookup(id)
	if !ok {
		return store.Segment{}, store.Document{}, fmt.Errorf("segment %s: %w", id, store.ErrNotFound)
	}
	sg, err := s.segment(e, i)
	if err != nil {
		return store.Segment{}, store.Document{}, err
	}
	return sg, cloneDoc(e.doc), nil
}

// Segments returns a document's segments with Index in [from, to), in
// order (without vectors); the range is clipped, to < 0 meaning the end.
func (s *Store) Segments(ctx context.Context, docID string, from, to int) ([]store.Segment, error) {
	if err := s.rlock(ctx); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	e, ok := s.docs[docID]
	if !ok {
		return nil, fmt.Errorf("document %s: %w", docID, store.ErrNotFound)
	}
	n := len(e.segs)
	if to < 0 || to > n {
		to = n
	}
	from = max(from, 0)
	if from >= to {
		return []store.Segment{}, nil
	}
	return s.segments(e, from, to)
}

// Vectors returns copies of a document's stored (normalised) vectors, row i
// for segment i.
func (s *Store) Vectors(ctx context.Context, docID string) ([][]float32, error) {
	if err := s.rlock(ctx); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	e, ok := s.docs[docID]
	if !ok {
		return nil, fmt.Errorf("document %s: %w", docID, store.ErrNotFound)
	}
	dim := s.info.Dimension
	all, err := s.entryVectors(e)
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(e.segs))
	for i := range out {
		out[i] = all[i*dim : (i+1)*dim : (i+1)*dim]
	}
	return out, nil
}

// DocumentCount is the number of documents in the library
// (store.DocumentCounter): the size of the index it keeps, nothing read.
func (s *Store) DocumentCount(ctx context.Context) (int, error) {
	if err := s.rlock(ctx); err != nil {
		return 0, err
	}
	defer s.mu.RUnlock()
	return len(s.docs), nil
}

// Len is the number of segments in the library.
func (s *Store) Len(ctx context.Context) (int, error) {
	if err := s.rlock(ctx); err != nil {
		return 0, err
	}
	defer s.mu.RUnlock()
	return s.nsegs, nil
}

// cloneSeg copies what a caller could modify of a stored segment.
func cloneSeg(sg store.Segment) store.Segment {
	sg.Section = slices.Clone(sg.Section)
	sg.Boxes = slices.Clone(sg.Boxes)
	return sg
}

func cloneDoc(d store.Document) store.Document {
	if d.Meta != nil {
		m := make(map[string]string, len(d.Meta))
		for k, v := range d.Meta {
			m[k] = v
		}
		d.Meta = m
	}
	return d
}
