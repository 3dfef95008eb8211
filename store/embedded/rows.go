package embedded

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
)

// vecOffset is where vector row row starts in a vector file of vectors of
// dimension dim.
func vecOffset(row, dim int) int64 { return int64(row) * int64(dim) * 4 }

// rowVector is segment i of e's vector: from memory when e holds its
// vectors, else read from the vector file into sc.vec. The caller holds
// mu (shared at least), so that e's rows and s.vf agree.
func (s *Store) rowVector(e *entry, i int, sc *scratch) ([]float32, error) {
	dim := s.info.Dimension
	if e.vecs != nil {
		return e.vector(i, dim), nil
	}
	if cap(sc.vec) < dim {
		sc.vec = make([]float32, dim)
	}
	v := sc.vec[:dim]
	if err := readVectors(s.vf, e.row+i, dim, v); err != nil {
		return nil, err
	}
	return v, nil
}

// entryVectors is a copy of all of e's vectors (zeros for a document whose
// vectors were lost). The caller holds mu, or wsem (writers alone change
// the rows and s.vf, under mu).
func (s *Store) entryVectors(e *entry) ([]float32, error) {
	if e.vecs != nil {
		return slices.Clone(e.vecs), nil
	}
	dim := s.info.Dimension
	v := make([]float32, len(e.segs)*dim)
	if e.lost || len(v) == 0 {
		return v, nil
	}
	if err := readVectors(s.vf, e.row, dim, v); err != nil {
		return nil, err
	}
	return v, nil
}

// readVectors reads rows from row on of vector file vf (of vectors of
// dimension dim) into dst, a whole number of rows.
func readVectors(vf *os.File, row, dim int, dst []float32) error {
	if vf == nil {
		return errors.New("store is inconsistent: no vector file to read vectors from")
	}
	n, err := vf.ReadAt(floatView(dst), vecOffset(row, dim))
	if n != len(dst)*4 {
		if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return fmt.Errorf("couldn't read vectors at row %d: %w", row, err)
	}
	fromFileOrder(dst)
	return nil
}
