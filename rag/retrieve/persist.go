package retrieve

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"

	"github.com/ibid-dev/ibid/store"
)

// BM25File is the name of the saved BM25 index in a library's folder.
const BM25File = "bm25.idx"

// bm25Magic starts a saved BM25 index; the last byte is the format version.
const bm25Magic = "ibid-bm25\x01"

// NewIndexDir is NewIndex that starts from the BM25 index saved in dir by
// Save, if there is one, instead of analysing every segment: it checks the
// saved index against the store segment by segment (id and a checksum of
// the text), drops what the store no longer has, and analyses only what is
// new or changed. A missing, unreadable or corrupt file is not an error:
// the index is then built from the store. dir == "" is NewIndex.
func NewIndexDir(st store.Store, emb Embedder, dir string) (*Index, error) {
	ix, ids, texts, err := newIndex(st, emb)
	if err != nil {
		return nil, err
	}
	if dir != "" {
		if x, err := LoadBM25(filepath.Join(dir, BM25File)); err == nil {
			if x.reconcile(ids, texts) {
				ix.bm25 = x
				return ix, nil
			}
		}
	}
	ix.bm25 = BuildBM25(ids, texts)
	return ix, nil
}

// Save writes the index's BM25 postings to dir/BM25File, atomically
// (a temporary file renamed over the old one), so that NewIndexDir opens
// the library without analysing its text again.
func (ix *Index) Save(dir string) error {
	ix.mu.RLock()
	b := ix.bm25.appendBinary(make([]byte, 0, 1<<20))
	ix.mu.RUnlock()
	path := filepath.Join(dir, BM25File)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("couldn't save the BM25 index: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("couldn't save the BM25 index: %w", err)
	}
	return nil
}

// appendBinary appends the live part of the index in the saved format:
// magic; live slots (id, length, text checksum); terms with their postings
// (slot deltas and frequencies, varints); CRC-32C of all that.
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
		b = appendStr(b, s.seg)
		b = binary.AppendUvarint(b, uint64(s.length))
		b = binary.LittleEndian.AppendUint32(b, s.sum)
	}
	terms := make([]string, len(x.postings))
	live := 0
	for t, id := range x.dict {
		terms[id] = t
	}
	for _, ps := range x.postings {
		for _, p := range ps {
			if renum[p.slot] >= 0 {
				live++
				break
			}
		}
	}
	b = binary.AppendUvarint(b, uint64(live))
	for id, ps := range x.postings {
		count := 0
		for _, p := range ps {
			if renum[p.slot] >= 0 {
				count++
			}
		}
		if count == 0 {
			continue
		}
		b = appendStr(b, terms[id])
		b = binary.AppendUvarint(b, uint64(count))
		prev := int32(0)
		for _, p := range ps {
			if s := renum[p.slot]; s >= 0 {
				b = binary.AppendUvarint(b, uint64(s-prev))
				b = binary.AppendUvarint(b, uint64(p.tf))
				prev = s
			}
		}
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// errCorrupt is returned for a saved index that does not decode.
var errCorrupt = errors.New("saved BM25 index is corrupt")

// LoadBM25 reads a BM25 index saved by Index.Save, with the default
// parameters.
func LoadBM25(path string) (*BM25, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return decodeBM25(b)
}

// decodeBM25 decodes a saved index.
func decodeBM25(b []byte) (*BM25, error) {
	if len(b) < len(bm25Magic)+4 || string(b[:len(bm25Magic)]) != bm25Magic {
		return nil, errCorrupt
	}
	body := b[:len(b)-4]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return nil, errCorrupt
	}
	d := decoder{b: body[len(bm25Magic):]}
	x := NewBM25()
	nslots := d.count()
	x.slots = make([]slot, 0, nslots)
	for i := 0; i < nslots && d.ok(); i++ {
		s := slot{seg: d.str(), length: int32(d.uvarint()), sum: d.uint32()}
		x.bySeg[s.seg] = int32(i)
		x.slots = append(x.slots, s)
		x.totalLen += int64(s.length)
	}
	x.live = len(x.slots)
	nterms := d.count()
	x.postings = make([][]posting, 0, nterms)
	x.dict = make(map[string]int32, nterms)
	for t := 0; t < nterms && d.ok(); t++ {
		term := d.str()
		n := d.count()
		ps := make([]posting, n)
		s := int32(0)
		for j := range ps {
			s += int32(d.uvarint())
			ps[j] = posting{s, int32(d.uvarint())}
			if s < 0 || int(s) >= len(x.slots) {
				return nil, errCorrupt
			}
		}
		x.dict[term] = int32(t)
		x.postings = append(x.postings, ps)
	}
	if !d.ok() || len(d.b) != 0 || len(x.slots) != nslots || len(x.postings) != nterms {
		return nil, errCorrupt
	}
	return x, nil
}

// decoder reads the saved format; after the first error every read
// returns zero and ok reports false.
type decoder struct {
	b   []byte
	bad bool
}

func (d *decoder) ok() bool { return !d.bad }

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.bad = true
		d.b = nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count is a length that must fit what is left of the input.
func (d *decoder) count() int {
	v := d.uvarint()
	if v > uint64(len(d.b)) {
		d.bad = true
		d.b = nil
		return 0
	}
	return int(v)
}

func (d *decoder) str() string {
	n := d.count()
	if d.bad {
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) uint32() uint32 {
	if len(d.b) < 4 {
		d.bad = true
		d.b = nil
		return 0
	}
	v := binary.LittleEndian.Uint32(d.b)
	d.b = d.b[4:]
	return v
}

// reconcile brings a loaded index in step with the store's segments (ids
// and texts, parallel): segments the store no longer has are removed,
// new or changed ones analysed. It reports false, leaving the work to a
// full build, when more than half of the segments would need analysing.
func (x *BM25) reconcile(ids, texts []string) bool {
	keep := make(map[string]bool, len(ids))
	var addIDs, addTexts []string
	for i, id := range ids {
		if s, ok := x.bySeg[id]; ok && x.slots[s].sum == textSum(texts[i]) {
			keep[id] = true
			continue
		}
		addIDs = append(addIDs, id)
		addTexts = append(addTexts, texts[i])
	}
	if len(addIDs) > len(ids)/2 && len(addIDs) > 1000 {
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
	for i, id := range addIDs {
		x.addTerms(id, textSum(addTexts[i]), a.termFreqs(addTexts[i]))
	}
	return true
}
