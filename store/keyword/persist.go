package keyword

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"unsafe"

	"github.com/ibid-dev/ibid/internal/atomicfile"
	"github.com/ibid-dev/ibid/internal/regular"
	"github.com/ibid-dev/ibid/store/internal/wire"
)

// bm25Magic starts a saved BM25 index; the last byte is the format version:
// 2 since each term's postings are preceded by their length in bytes, so
// that a load finds where they end without reading them; 1 (still read)
// before.
const (
	bm25Magic   = "ibid-bm25\x02"
	bm25MagicV1 = "ibid-bm25\x01"
)

// Save writes the index's live postings to path atomically and durably
// (atomicfile: a synced temporary file renamed over the old one), so that Load can
// start from it instead of analysing every text again.
func (x *BM25) Save(path string) error {
	b := x.appendBinary(make([]byte, 0, x.savedSizeHint()))
	if err := atomicfile.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("couldn't save the keyword index: %w", err)
	}
	return nil
}

// savedSizeHint is about the size of the saved index, so that Save
// neither grows its buffer many times nor zeroes a megabyte for a small
// library: a slot's id, length and checksum, and a posting or less per
// token.
func (x *BM25) savedSizeHint() int {
	n := 64
	for _, s := range x.slots {
		n += len(s.seg) + 12
	}
	return n + 3*int(x.totalLen)
}

// appendBinary appends the live part of the index in the saved format:
// magic; live slots (id, length, text checksum); terms with the number and
// byte length of their postings, then the postings (slot deltas and
// frequencies, varints); CRC-32C of all that.
func (x *BM25) appendBinary(b []byte) []byte {
	b = append(b, bm25Magic...)
	renum := make([]int32, len(x.slots))
	b = binary.AppendUvarint(b, uint64(x.live))
	n := int32(0)
	for i, s := range x.slots {
		if s.dead {
			renum[i] = -1
			continue
		}
		renum[i] = n
		n++
		b = wire.AppendString(b, s.seg)
		b = binary.AppendUvarint(b, uint64(s.length))
		b = binary.LittleEndian.AppendUint32(b, s.sum)
	}
	terms := make([]string, len(x.postings))
	live := 0
	for t, id := range x.dict {
		terms[id] = t
	}
	counts := make([]int, len(x.postings))
	for id := range x.postings {
		c := x.postingsOf(int32(id))
		for p, ok := c.next(); ok; p, ok = c.next() {
			if renum[p.slot] >= 0 {
				counts[id]++
			}
		}
		if counts[id] > 0 {
			live++
		}
	}
	b = binary.AppendUvarint(b, uint64(live))
	var ps []byte
	for id := range x.postings {
		if counts[id] == 0 {
			continue
		}
		b = wire.AppendString(b, terms[id])
		b = binary.AppendUvarint(b, uint64(counts[id]))
		ps = ps[:0]
		prev := int32(0)
		c := x.postingsOf(int32(id))
		for p, ok := c.next(); ok; p, ok = c.next() {
			if s := renum[p.slot]; s >= 0 {
				ps = binary.AppendUvarint(ps, uint64(s-prev))
				ps = binary.AppendUvarint(ps, uint64(p.tf))
				prev = s
			}
		}
		b = binary.AppendUvarint(b, uint64(len(ps)))
		b = append(b, ps...)
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// maxSaved bounds what Load reads: an index of millions of segments is a
// few hundred megabytes.
const maxSaved = 8 << 30

// errCorrupt is returned for a saved index that does not decode.
var errCorrupt = errors.New("saved BM25 index is corrupt")

// Load reads a BM25 index saved by Save, with the default parameters. A
// file that does not decode, or whose checksum does not match, is an error
// wrapping errCorrupt: the caller rebuilds the index from its texts.
func Load(path string) (*BM25, error) {
	b, err := regular.ReadFile(path, maxSaved)
	if err != nil {
		return nil, err
	}
	return decodeBM25(b)
}

// LoadUnchecked is Load without the file's checksum, which the returned
// intact computes: for a caller that checks it later (a large library's
// background pass) and meanwhile answers from an index whose structure
// decoded. Until then a flipped byte in the postings can change scores and
// which segments come back, never crash a search (a posting past the last
// slot ends its term's walk), and the slots' ids and text checksums are
// reconciled against the caller's as by Load.
func LoadUnchecked(path string) (x *BM25, intact func() bool, err error) {
	b, err := regular.ReadFile(path, maxSaved)
	if err != nil {
		return nil, nil, err
	}
	if x, err = decodeBM25Unchecked(b); err != nil {
		return nil, nil, err
	}
	return x, func() bool { return sumOK(b) }, nil
}

// sumOK reports whether the saved index b (at least as long as its magic
// and checksum) passes its checksum.
func sumOK(b []byte) bool {
	body := b[:len(b)-4]
	return crc32.Checksum(body, castagnoli) == binary.LittleEndian.Uint32(b[len(b)-4:])
}

// decodeBM25 decodes a saved index.
func decodeBM25(b []byte) (*BM25, error) {
	if len(b) < len(bm25Magic)+4 || !sumOK(b) {
		return nil, errCorrupt
	}
	return decodeBM25Unchecked(b)
}

// decodeBM25Unchecked decodes a saved index without its checksum.
func decodeBM25Unchecked(b []byte) (*BM25, error) {
	if len(b) < len(bm25Magic)+4 {
		return nil, errCorrupt
	}
	v1 := string(b[:len(bm25Magic)]) == bm25MagicV1
	if !v1 && string(b[:len(bm25Magic)]) != bm25Magic {
		return nil, errCorrupt
	}
	body := b[:len(b)-4]
	d := wire.Decoder{B: body[len(bm25Magic):]}
	x := NewBM25()
	x.oldFormat = v1
	x.bySeg = nil // made when first needed (index)
	nslots := d.Count()
	x.slots = make([]slot, 0, nslots)
	for i := 0; i < nslots && d.Err() == nil; i++ {
		s := slot{seg: view(d.Bytes()), length: int32(d.Uvarint()), sum: d.Uint32()}
		x.slots = append(x.slots, s)
		x.totalLen += int64(s.length)
	}
	x.live = len(x.slots)
	nterms := d.Count()
	x.postings = make([][]posting, nterms)
	x.packed = make([]packed, 0, nterms)
	x.dict = make(map[string]int32, nterms)
	for t := 0; t < nterms && d.Err() == nil; t++ {
		term := view(d.Bytes())
		n := d.Count()
		// The postings stay as they are (packed.go): only their length is
		// read (or, in format 1, found), and the file's checksum stands
		// for their values.
		var k int
		if v1 {
			k = skipVarints(d.B, 2*n)
		} else if k = d.Count(); k < 2*n || k > len(d.B) {
			k = -1
		}
		if k < 0 || n > len(x.slots) {
			return nil, errCorrupt
		}
		x.packed = append(x.packed, packed{b: d.B[:k:k], n: n})
		d.B = d.B[k:]
		x.dict[term] = int32(t)
	}
	if d.Err() != nil || len(d.B) != 0 || len(x.slots) != nslots || len(x.packed) != nterms || len(x.dict) != nterms {
		return nil, errCorrupt
	}
	return x, nil
}

// OldFormat reports whether the index was loaded from a file of an older
// format, which a Save would replace with one that loads faster.
func (x *BM25) OldFormat() bool { return x.oldFormat }

// view is b as a string without copying it: the slot ids and terms of a
// loaded index point into the file's bytes, which the packed postings keep
// alive and nothing writes to.
func view(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// ReconcileSums brings a loaded index in step with the segments it should
// hold (ids, and the checksums (Sum) of their texts, parallel): segments
// the store no longer has are removed, new or changed ones analysed, their
// texts read with text(i) only for those. It reports false, leaving the
// work to a full build, when more than half of the segments would need
// analysing.
func (x *BM25) ReconcileSums(ids []string, sums []uint32, text func(i int) string) bool {
	if x.inStep(ids, sums) {
		return true
	}
	keep := make(map[string]bool, len(ids))
	var add []int
	bySeg := x.index()
	for i, id := range ids {
		if s, ok := bySeg[id]; ok && x.slots[s].sum == sums[i] {
			keep[id] = true
			continue
		}
		add = append(add, i)
	}
	if len(add) > len(ids)/2 && len(add) > 1000 {
		return false
	}
	var stale []string
	for _, s := range x.slots {
		if !s.dead && !keep[s.seg] {
			stale = append(stale, s.seg)
		}
	}
	for _, id := range stale {
		x.Remove(id)
	}
	var a analyser
	for _, i := range add {
		t := text(i)
		x.addTerms(ids[i], textSum(t), a.termFreqs(t))
	}
	return true
}

// inStep reports whether the index holds exactly ids with these text
// checksums, slot i for ids[i]: the usual case when a library is opened,
// as its index was saved in the order the library lists its segments.
func (x *BM25) inStep(ids []string, sums []uint32) bool {
	if len(x.slots) != len(ids) || x.live != len(ids) {
		return false
	}
	for i, s := range x.slots {
		if s.dead || s.seg != ids[i] || s.sum != sums[i] {
			return false
		}
	}
	return true
}
