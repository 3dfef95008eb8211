package embedded

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"

	"github.com/ibid-dev/ibid/store"
	"github.com/ibid-dev/ibid/store/internal/wire"
)

// A library kept in a folder does not hold its segments' texts in memory:
// they are read from the log, where each commit record put them, when a
// segment is read or returned by a search. Only what filters and the
// keyword index need stays in memory (sections, pages, parents, boxes).

// textRef is where a segment's texts lie in the current generation's log:
// n bytes at off, the segment's encoding from its flags byte through its
// index text (format.go).
type textRef struct {
	off int64
	n   int32
}

// readTexts reads the texts of e's segments [from, to) from log file lf
// into segs (parallel to that range), with one read: a document's
// segments lie together in one record.
func readTexts(lf *os.File, e *entry, from, to int, segs []store.Segment) error {
	if e.texts == nil || from >= to {
		for i := from; i < to; i++ {
			segs[i-from].Text, segs[i-from].IndexText = e.segs[i].Text, e.segs[i].IndexText
		}
		return nil
	}
	if lf == nil {
		return errors.New("store is inconsistent: no log to read texts from")
	}
	first, last := e.texts[from], e.texts[to-1]
	buf := make([]byte, last.off+int64(last.n)-first.off)
	if n, err := lf.ReadAt(buf, first.off); n != len(buf) {
		if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return fmt.Errorf("couldn't read the text of segment %s: %w", e.segs[from].ID, err)
	}
	for i := from; i < to; i++ {
		r := e.texts[i]
		lo := r.off - first.off
		if lo < 0 || lo+int64(r.n) > int64(len(buf)) {
			return fmt.Errorf("store is inconsistent: segment %s's text lies outside its document's", e.segs[i].ID)
		}
		d := wire.Decoder{B: buf[lo : lo+int64(r.n)]}
		d.Byte()
		seg := &segs[i-from]
		seg.Text = d.String()
		if len(d.B) > 0 {
			seg.IndexText = d.String()
		}
		if d.Err() != nil || len(d.B) != 0 {
			return fmt.Errorf("couldn't read the text of segment %s: the log changed under it (run `ibid doctor`)", e.segs[i].ID)
		}
	}
	return nil
}

// segment is segment i of e, with its texts, for a caller to keep. The
// caller holds mu (shared at least), or wsem.
func (s *Store) segment(e *entry, i int) (store.Segment, error) {
	out := []store.Segment{cloneSeg(e.segs[i])}
	if err := readTexts(s.lf, e, i, i+1, out); err != nil {
		return store.Segment{}, err
	}
	return out[0], nil
}

// segments is e's segments [from, to), with their texts, for a caller to
// keep. The caller holds mu (shared at least), or wsem.
func (s *Store) segments(e *entry, from, to int) ([]store.Segment, error) {
	out := make([]store.Segment, to-from)
	for i := range out {
		out[i] = cloneSeg(e.segs[from+i])
	}
	if err := readTexts(s.lf, e, from, to, out); err != nil {
		return nil, err
	}
	return out, nil
}

// fullSegments is all of e's segments with their texts (compaction and
// repair write them out again).
func (s *Store) fullSegments(e *entry) ([]store.Segment, error) {
	return s.segments(e, 0, len(e.segs))
}

// keywordText is the keyword text of segment i of e. The caller holds mu
// or wsem.
func (s *Store) keywordText(e *entry, i int) (string, error) {
	if e.texts == nil {
		return e.segs[i].KeywordText(), nil
	}
	sg, err := s.segment(e, i)
	if err != nil {
		return "", err
	}
	return sg.KeywordText(), nil
}

// keywordTexts returns text(i), the keyword text of segment at[i][1] of
// entries[at[i][0]], for a build of the keyword index, which asks for each
// i of at once, from several goroutines: a document's texts are read with
// one read when the first of them is asked for, and forgotten when the
// last has been. A text that cannot be read is "" (reading the segment
// then reports the damage). The caller holds wsem, or is s's only user.
func (s *Store) keywordTexts(entries []*entry, at [][2]int) func(i int) string {
	type doc struct {
		once  sync.Once
		texts []string
		left  atomic.Int32 // texts not asked for yet
	}
	docs := make([]doc, len(entries))
	for _, a := range at {
		docs[a[0]].left.Add(1)
	}
	return func(i int) string {
		j, k := at[i][0], at[i][1]
		dc := &docs[j]
		dc.once.Do(func() {
			e := entries[j]
			segs := make([]store.Segment, len(e.segs))
			err := readTexts(s.lf, e, 0, len(e.segs), segs)
			dc.texts = make([]string, len(e.segs))
			for n := range segs {
				if err == nil {
					dc.texts[n] = segs[n].KeywordText()
				} else {
					dc.texts[n], _ = s.keywordText(e, n) // the others of a damaged document
				}
			}
		})
		t := dc.texts[k]
		if dc.left.Add(-1) == 0 {
			dc.texts = nil // every goroutine that read it has counted down before
		}
		return t
	}
}
