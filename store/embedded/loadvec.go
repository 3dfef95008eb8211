package embedded

import (
	"fmt"
	"hash/crc32"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/ibid-dev/ibid/store/internal/mmap"
	"github.com/ibid-dev/ibid/store/internal/quant"
)

// loadVectors reads every entry's vectors from vf (nil: no vector file),
// a document at a time on all CPUs, and checks them against the checksum
// the log records: a document whose vectors are missing from a short
// file, fail their checksum (format 2 and later) or hold NaN (format 1) is
// damage; it keeps its text, but its vectors count as zeros and Dense
// never finds it. It gives each entry its codes, read from the codes file
// when a block there was computed from the very vectors the log records
// and passes its own checksum, else computed from the vectors (and noted
// in d.codesMissing, for a writer to append); and its vectors when keep is
// set. The codes read from the file are the file itself, mapped, where the
// system allows (else copied); the codes computed lie in one stretch of
// memory outside the heap where the system allows; both are returned. The
// vectors of a large library whose codes the codes file holds are not read
// here, nor the checksums of those codes, but listed in d.unchecked, for
// the background pass (check.go).
func (d *disk) loadVectors(vf *os.File, entries []*entry, keep bool) (codeMemory, error) {
	dim := d.man.Dimension
	stride := quant.Stride(dim)
	haveRows := 0
	if vf != nil {
		st, err := vf.Stat()
		if err != nil {
			return codeMemory{}, fmt.Errorf("couldn't read library vectors: %w", err)
		}
		haveRows = int(st.Size() / int64(dim*4))
	}
	cf := d.openCodes(d.man.Generation)
	if cf != nil {
		defer cf.Close()
	}
	idx := readCodesIndex(cf, dim)
	d.codesEnd, d.codesSeen, d.codesBroken, d.codesMissing = idx.end, nil, !idx.ok && len(entries) > 0, nil
	var cmap []byte
	if cf != nil {
		d.codesSeen, _ = cf.Stat()
		if idx.ok && littleEndian && d.codesSeen != nil {
			cmap = mmap.File(cf, d.codesSeen.Size())
		}
	}

	offs := make([]int, len(entries)+1)
	for j, e := range entries {
		offs[j+1] = offs[j] + codeBody(len(e.segs), stride)
	}
	// With the codes file mapped, most of the arena is never written.
	arena, mapped := mmap.Anon(offs[len(entries)], cmap == nil)
	if !mapped {
		arena = make([]byte, offs[len(entries)])
	}

	// A large library's vectors are checked after the open (check.go)
	// where the codes file holds their codes.
	later := !keep && !d.checkAll && d.man.Format >= 2 && int64(haveRows)*int64(dim)*4 > checkAtOpenMax
	what := make([]string, len(entries))
	missing := make([]bool, len(entries))
	var next atomic.Int64
	workers := max(1, min(runtime.GOMAXPROCS(0), len(entries)))
	errs := make([]error, workers)
	unchecked := make([][]span, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			var buf []float32
			for {
				j := int(next.Add(1) - 1)
				if j >= len(entries) {
					return
				}
				e := entries[j]
				body := arena[offs[j]:offs[j+1]:offs[j+1]]
				if later && e.row >= 0 && e.row+len(e.segs) <= haveRows {
					if ok, b := idx.readCodes(cf, cmap, e, body, stride, false); ok {
						sp := span{row: e.row, n: len(e.segs), sum: e.sum}
						if b != nil {
							sp.codes, sp.codesSum = e.qbody, b.bodySum
						}
						unchecked[w] = append(unchecked[w], sp)
						e.vecs = nil
						continue
					}
				}
				n := len(e.segs) * dim
				var v []float32
				if keep {
					v = make([]float32, n)
				} else {
					if cap(buf) < n {
						buf = make([]float32, n)
					}
					v = buf[:n]
				}
				if e.row >= 0 && e.row+len(e.segs) <= haveRows {
					if err := readVectors(vf, e.row, dim, v); err != nil {
						errs[w] = err
						return
					}
				}
				if what[j] = d.vectorFault(e, v, haveRows); what[j] != "" {
					e.markLost()
					clear(v)
					e.setCodes(body, stride) // zeros: never found
				} else if ok, _ := idx.readCodes(cf, cmap, e, body, stride, true); !ok {
					e.encodeCodes(body, v, dim, stride)
					missing[j] = true
				}
				if keep {
					e.vecs = v
				} else {
					e.vecs = nil
				}
			}
		})
	}
	wg.Wait()
	if !mapped {
		arena = nil // on the heap: nothing to release
	}
	mem := codeMemory{anon: arena, file: cmap}
	for _, err := range errs {
		if err != nil {
			mem.release()
			return codeMemory{}, err
		}
	}
	d.unchecked = slices.Concat(unchecked...)
	for j, e := range entries {
		if what[j] != "" {
			d.reportLost(e, what[j])
		}
		if missing[j] {
			d.codesMissing = append(d.codesMissing, e)
		}
	}
	return mem, nil
}

// vectorFault says what is wrong with e's vectors v, read from a vector
// file of haveRows rows ("" when nothing is): rows the file does not hold
// (then v is not looked at), a checksum that fails (format 2 and later),
// values that are not numbers (format 1, which has no checksums).
func (d *disk) vectorFault(e *entry, v []float32, haveRows int) string {
	switch {
	case e.row < 0 || e.row+len(e.segs) > haveRows:
		return "are missing: the file is shorter than the log says"
	case d.man.Format >= 2 && vecSum(v) != e.sum:
		return "fail their checksum"
	case d.man.Format == 1 && hasNaN(v):
		return "hold values that are not numbers"
	}
	return ""
}

// markLost records that e's vectors were lost: e keeps its text, its
// vectors count as zeros, and Dense never finds it.
func (e *entry) markLost() {
	e.lost = true
	for i := range e.zero {
		e.zero[i] = true
	}
}

// reportLost reports e's lost vectors as damage, what saying why.
func (d *disk) reportLost(e *entry, what string) {
	dim := d.man.Dimension
	d.addDamage(Problem{File: vectorName(d.man.Generation), Offset: vecOffset(e.row, dim), Length: int64(len(e.segs)) * int64(dim) * 4,
		What: fmt.Sprintf("the vectors of document %s (%s) %s; its segments are kept but dense search skips them", e.doc.ID, e.doc.Path, what)})
}

// readCodes gives e its codes from a block of the codes file cf that was
// computed from the vectors the log records for e (the newest such block,
// should there be several): with cmap, the file mapped, the mapped bytes
// themselves, else a copy in body. With check, the block must pass its
// checksum; without, it returns the block whose checksum is left to the
// caller (nil when the codes were copied, and so checked).
func (x *codesIndex) readCodes(cf *os.File, cmap []byte, e *entry, body []byte, stride int, check bool) (bool, *codesBlock) {
	bs := x.blocks[e.row]
	for i := len(bs) - 1; i >= 0; i-- {
		b := &bs[i]
		if b.rows != len(e.segs) || b.vecSum != e.sum {
			continue
		}
		if end := b.off + int64(len(body)); cmap != nil && end <= int64(len(cmap)) {
			m := cmap[b.off:end:end]
			if !check {
				e.setCodes(m, stride)
				return true, b
			}
			if crc32.Checksum(m, crcTable) == b.bodySum {
				e.setCodes(m, stride)
				return true, nil
			}
			continue
		}
		if readBlock(cf, *b, body) {
			e.setCodes(body, stride)
			return true, nil
		}
	}
	return false, nil
}
