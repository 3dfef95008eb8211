package embedded

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"os"
	"unsafe"

	"github.com/ibid-dev/ibid/internal/regular"
	"github.com/ibid-dev/ibid/store/internal/quant"
)

// The codes file, codes-N.q8, holds the compact copy of generation N's
// vectors that dense search scans (package quant: one int8 code per
// dimension and a scale per vector), so that opening a library does not
// compute it again. It is a cache, derived from the vector file and
// checked against it: a block that is missing, fails its checksum, or was
// computed from other vectors than those the log records is computed
// again from the vectors, never used; the next writer (or an open that
// can take the library's lock) then rewrites the file.
//
//	header: "ibidQ8v1" | uint32 LE dimension | uint32 LE CRC-32C of those 12 bytes
//	block:  "ibQ8" | uint32 LE rows | uint64 LE first row | uint32 LE CRC-32C of the
//	        rows' vectors (as the log records it) | uint32 LE CRC-32C of the body |
//	        uint32 0 | uint32 LE CRC-32C of the 28 bytes before | body
//	body:   rows × float32 LE scale, then rows × Stride(dimension) int8 codes
//
// One block holds one document put's rows. Blocks are appended after the
// commit record that puts the document is on disk (a crash between leaves
// a document without codes: computed on the next open); a compaction
// writes the new generation's file whole. Readers map the file (on
// little-endian Unix systems; elsewhere they copy the blocks), and their
// entries' codes are the mapped bytes; so no writer ever cuts the file in
// place (a mapped file cut shorter faults its readers): a file with a
// torn or damaged tail is written again beside it and renamed over it
// (appendCodes, fixCodes), which leaves every mapping of the old one
// intact. A library whose vectors are checked in the background (check.go)
// leaves the checksums of the codes it mapped to that pass too.
const (
	codesMagic  = "ibidQ8v1"
	codesHeader = 16
	blockMagic  = "ibQ8"
	blockHeader = 32
)

func codesName(gen int) string { return fmt.Sprintf("codes-%06d.q8", gen) }

// codeBody is the size of the body of a block of rows rows.
func codeBody(rows, stride int) int { return rows * (4 + stride) }

// setCodes points e.scales and e.codes into body, laid out as a block's
// body (rows scales, then the codes).
func (e *entry) setCodes(body []byte, stride int) {
	n := len(e.segs)
	e.qbody = body[:codeBody(n, stride):codeBody(n, stride)]
	if n == 0 {
		e.scales, e.codes = nil, nil
		return
	}
	e.scales = unsafe.Slice((*float32)(unsafe.Pointer(&body[0])), n)
	e.codes = unsafe.Slice((*int8)(unsafe.Pointer(&body[4*n])), n*stride)
}

// encodeCodes computes the codes of e's vectors vecs (len(e.segs) rows of
// dim) into body (or a new one when body is nil); rows that Dense cannot
// find keep zero codes.
func (e *entry) encodeCodes(body []byte, vecs []float32, dim, stride int) {
	if body == nil {
		body = make([]byte, codeBody(len(e.segs), stride))
	} else {
		clear(body)
	}
	e.setCodes(body, stride)
	for i := range e.segs {
		if e.dense(i) {
			e.scales[i] = quant.Encode(e.codes[i*stride:(i+1)*stride], vecs[i*dim:(i+1)*dim])
		}
	}
}

// codeRow is segment i's codes.
func (e *entry) codeRow(i, stride int) []int8 { return e.codes[i*stride : (i+1)*stride : (i+1)*stride] }

// codesBlock is a block found in a codes file.
type codesBlock struct {
	off     int64 // of the body
	rows    int
	vecSum  uint32
	bodySum uint32
}

// codesIndex lists the blocks of a codes file by first row; end is the
// offset past the last block whose header is intact and whose body is all
// there (the place to append at). ok is false when the file has no intact
// header for dimension dim (then nothing in it is used).
type codesIndex struct {
	blocks map[int][]codesBlock
	end    int64
	ok     bool
}

// readCodesIndex reads the block headers of f (nil: no file), without the
// bodies; their checksums are checked as each is read.
func readCodesIndex(f *os.File, dim int) codesIndex {
	x := codesIndex{blocks: map[int][]codesBlock{}}
	if f == nil {
		return x
	}
	var h [codesHeader]byte
	if _, err := f.ReadAt(h[:], 0); err != nil || string(h[:8]) != codesMagic ||
		binary.LittleEndian.Uint32(h[8:]) != uint32(dim) ||
		binary.LittleEndian.Uint32(h[12:]) != crc32.Checksum(h[:12], crcTable) {
		return x
	}
	st, err := f.Stat()
	if err != nil {
		return x
	}
	x.ok = true
	x.end = scanBlocks(f, codesHeader, st.Size(), quant.Stride(dim), func(first int, b codesBlock) {
		x.blocks[first] = append(x.blocks[first], b)
	})
	return x
}

// scanBlocks follows the blocks of f from off while their headers are
// intact and their bodies within size, calling fn for each; it returns the
// offset where it stopped. It reads the file a window at a time, skipping
// the bodies that reach past a window.
func scanBlocks(f *os.File, off, size int64, stride int, fn func(first int, b codesBlock)) int64 {
	var buf []byte
	var at int64 // buf holds the file's bytes from at
	for off+blockHeader <= size {
		if off < at || off+blockHeader > at+int64(len(buf)) {
			if buf == nil {
				buf = make([]byte, fileBuffer(size-off))
			}
			n, err := f.ReadAt(buf[:cap(buf)], off)
			if n < blockHeader && err != nil {
				break
			}
			buf, at = buf[:n], off
		}
		h := buf[off-at : off-at+blockHeader]
		rows := int(binary.LittleEndian.Uint32(h[4:]))
		first := binary.LittleEndian.Uint64(h[8:])
		if string(h[:4]) != blockMagic || binary.LittleEndian.Uint32(h[28:]) != crc32.Checksum(h[:28], crcTable) ||
			first > math.MaxInt32*1024 {
			break
		}
		body := int64(codeBody(rows, stride))
		if off+blockHeader+body > size {
			break
		}
		if fn != nil {
			fn(int(first), codesBlock{off: off + blockHeader, rows: rows,
				vecSum: binary.LittleEndian.Uint32(h[16:]), bodySum: binary.LittleEndian.Uint32(h[20:])})
		}
		off += blockHeader + body
	}
	return off
}

// readBlock reads block b's body into body (len codeBody) and checks it.
func readBlock(f *os.File, b codesBlock, body []byte) bool {
	if _, err := f.ReadAt(body, b.off); err != nil {
		return false
	}
	if crc32.Checksum(body, crcTable) != b.bodySum {
		return false
	}
	scalesFromFile(body[:4*b.rows])
	return true
}

// appendBlock appends e's block (header and body, in the file's byte
// order), its rows starting at row, to b.
func appendBlock(b []byte, e *entry, row int) []byte {
	body := scalesToFile(e.qbody, len(e.segs))
	var h [blockHeader]byte
	copy(h[:], blockMagic)
	binary.LittleEndian.PutUint32(h[4:], uint32(len(e.segs)))
	binary.LittleEndian.PutUint64(h[8:], uint64(row))
	binary.LittleEndian.PutUint32(h[16:], e.sum)
	binary.LittleEndian.PutUint32(h[20:], crc32.Checksum(body, crcTable))
	binary.LittleEndian.PutUint32(h[28:], crc32.Checksum(h[:28], crcTable))
	b = append(b, h[:]...)
	return append(b, body...)
}

func codesFileHeader(dim int) []byte {
	h := make([]byte, codesHeader)
	copy(h, codesMagic)
	binary.LittleEndian.PutUint32(h[8:], uint32(dim))
	binary.LittleEndian.PutUint32(h[12:], crc32.Checksum(h[:12], crcTable))
	return h
}

// scalesFromFile turns the scales just read into native floats.
func scalesFromFile(b []byte) {
	if littleEndian {
		return
	}
	for i := 0; i+4 <= len(b); i += 4 {
		binary.NativeEndian.PutUint32(b[i:], binary.LittleEndian.Uint32(b[i:]))
	}
}

// scalesToFile returns body with its first rows scales in the file's
// byte order: body itself on little-endian machines, a copy elsewhere.
func scalesToFile(body []byte, rows int) []byte {
	if littleEndian {
		return body
	}
	c := append([]byte(nil), body...)
	for i := 0; i < 4*rows; i += 4 {
		binary.LittleEndian.PutUint32(c[i:], binary.NativeEndian.Uint32(body[i:]))
	}
	return c
}

// writeCodesFile writes the codes of entries, whose rows in generation gen
// start at rows, as gen's codes file, replacing any (replaceCodes). It
// returns the file's length. The caller holds the library's lock.
func (d *disk) writeCodesFile(gen int, entries []*entry, rows []int) (int64, error) {
	end := int64(codesHeader)
	err := d.replaceCodes(gen, func(w io.Writer) error {
		if _, err := w.Write(codesFileHeader(d.man.Dimension)); err != nil {
			return err
		}
		var buf []byte
		for i, e := range entries {
			buf = appendBlock(buf[:0], e, rows[i])
			if _, err := w.Write(buf); err != nil {
				return err
			}
			end += int64(len(buf))
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("couldn't write the codes file: %w", err)
	}
	return end, nil
}

// replaceCodes writes generation gen's codes file afresh through write: a
// temporary file beside it (buffered), synced, renamed over it, and the
// folder synced. A reader that mapped the old file keeps reading it; the
// file is never cut in place.
func (d *disk) replaceCodes(gen int, write func(w io.Writer) error) error {
	return d.replaceFile(codesName(gen), write)
}

// appendCodes appends the blocks of entries, just committed, to the codes
// file. It first follows the blocks other writers appended since this one
// last looked. What follows the last intact block (a block torn by a
// crash) is never cut in place: readers map the file (a file cut under a
// mapping faults its reader), so the file is then written again whole,
// its intact blocks and the new ones, and renamed over the old one. A
// failure costs only the next open the computing of the missing codes.
// The caller holds the library's lock.
func (d *disk) appendCodes(entries []*entry) {
	if d.codesBroken || len(entries) == 0 {
		return // rewritten whole by the next writer (fixCodes)
	}
	f, _, err := regular.OpenFile(d.path(codesName(d.man.Generation)), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		d.codesBroken = true // a named pipe there too: rewritten whole, by a rename
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		d.codesBroken = true
		return
	}
	end := d.codesEnd
	if d.codesSeen == nil || !os.SameFile(st, d.codesSeen) {
		end = 0 // replaced (rewritten by another process) or new: follow it from its header
	}
	if end < codesHeader {
		if st.Size() > 0 {
			if x := readCodesIndex(f, d.man.Dimension); x.ok {
				end = x.end
			}
		}
	} else {
		end = scanBlocks(f, end, st.Size(), quant.Stride(d.man.Dimension), nil)
	}
	var buf []byte
	for _, e := range entries {
		buf = appendBlock(buf, e, e.row)
	}
	if end < codesHeader || end < st.Size() {
		// No intact header, or something to cut: a new file.
		if err := d.rewriteCodes(f, end, buf); err != nil {
			d.codesBroken = true
		}
		return
	}
	if _, err := f.WriteAt(buf, end); err != nil {
		d.codesBroken = true // what was written is cut by the next writer's rewrite
		return
	}
	d.codesEnd, d.codesSeen = end+int64(len(buf)), st
}

// rewriteCodes replaces the codes file, of which f's bytes up to end are
// intact blocks (end < codesHeader: none are), with those blocks and then
// blocks (replaceCodes).
func (d *disk) rewriteCodes(f *os.File, end int64, blocks []byte) error {
	gen := d.man.Generation
	err := d.replaceCodes(gen, func(w io.Writer) error {
		var err error
		if end < codesHeader {
			_, err = w.Write(codesFileHeader(d.man.Dimension))
			end = codesHeader
		} else {
			_, err = io.Copy(w, io.NewSectionReader(f, 0, end))
		}
		if err == nil {
			_, err = w.Write(blocks)
		}
		return err
	})
	if err != nil {
		return err
	}
	st, err := os.Stat(d.path(codesName(gen)))
	if err != nil {
		return err
	}
	d.codesEnd, d.codesSeen = end+int64(len(blocks)), st
	return nil
}

// openCodes opens generation gen's codes file for reading, nil when there
// is none.
func (d *disk) openCodes(gen int) *os.File {
	f, _, err := regular.Open(d.path(codesName(gen)))
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			d.codesBroken = true
		}
		return nil
	}
	return f
}

// fixCodes writes what the codes file lacks after a load found it
// damaged, stale or short: the whole file when it had no intact header,
// else the blocks of the entries whose codes had to be computed. The
// caller holds the library's lock and is caught up; a failure leaves the
// work to the next writer.
func (s *Store) fixCodes() {
	d := s.disk
	switch {
	case d.codesBroken:
		entries := s.dense.live()
		rows := make([]int, len(entries))
		for i, e := range entries {
			rows[i] = e.row
		}
		end, err := d.writeCodesFile(d.man.Generation, entries, rows)
		if err != nil {
			return
		}
		d.codesEnd, d.codesBroken, d.codesMissing = end, false, nil
		d.codesSeen, _ = os.Stat(d.path(codesName(d.man.Generation)))
	case len(d.codesMissing) > 0:
		var live []*entry
		for _, e := range d.codesMissing {
			if s.docs[e.doc.ID] == e {
				live = append(live, e)
			}
		}
		d.codesMissing = nil
		d.appendCodes(live)
	}
}

// fixCodesNow fixes the codes file at open when the library's lock is
// free (a writer busy elsewhere will do it): so that the next open reads
// the codes instead of computing them again. s is not shared yet.
func (s *Store) fixCodesNow() {
	d := s.disk
	if !d.writable() || d.damage != nil || (!d.codesBroken && len(d.codesMissing) == 0) {
		return
	}
	if ok, err := d.flk.TryLock(); err != nil || !ok {
		return
	}
	defer d.flk.Unlock()
	if err := s.catchUp(); err == nil && d.damage == nil {
		s.fixCodes()
	}
}
