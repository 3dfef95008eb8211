package embedded

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"os"
	"slices"
	"strconv"

	"github.com/ibid-dev/ibid/internal/regular"
	"github.com/ibid-dev/ibid/store"
)

// replay reads the committed records of the log from byte from to its end
// and applies them to live (a nil entry marks a deletion, for catching
// up). A damaged stretch followed by intact records is damage: it is
// reported in d.damage and skipped, and replay goes on with the next intact
// record. A bad stretch with no intact record after it is an uncommitted
// tail, unless it is a whole record (intact header, every byte its length
// claims present): then it was committed and damaged since, and is
// reported. Replay stops before an uncommitted tail. It returns the offset
// past the last intact
// record and the number of vector rows the applied puts reach.
func (d *disk) replay(from int64, rows int, live map[string]*entry) (end int64, rowsEnd int, err error) {
	name := logName(d.man.Generation)
	f, st, err := regular.Open(d.path(name))
	if errors.Is(err, fs.ErrNotExist) {
		return from, rows, nil
	}
	if errors.Is(err, regular.ErrNotRegular) {
		d.addDamage(Problem{File: name, Offset: -1, What: fmt.Sprintf("it cannot be read: %v", err)})
		d.cut = true
		return from, rows, nil
	}
	if err != nil {
		return from, rows, fmt.Errorf("couldn't open library log: %w", err)
	}
	defer f.Close()
	size := st.Size()
	format := d.man.Format
	hsize := recordHeader
	if format == 1 {
		hsize = recordHeaderV1
	}
	var (
		off     = from
		r       = bufio.NewReaderSize(io.NewSectionReader(f, off, size-off), fileBuffer(size-off))
		hdr     = make([]byte, hsize)
		payload []byte
		ops     []op
	)
	end, rowsEnd = from, rows
	for off < size {
		bad := func() bool {
			if _, err := io.ReadFull(r, hdr); err != nil {
				return true
			}
			h, ok := parseHeader(hdr, format)
			if !ok || off+int64(hsize)+int64(h.n) > size {
				return true
			}
			if cap(payload) < int(h.n) {
				payload = make([]byte, h.n)
			}
			payload = payload[:h.n]
			if _, err := io.ReadFull(r, payload); err != nil || crc32.Checksum(payload, crcTable) != h.sum {
				return true
			}
			return false
		}()
		if bad {
			next, found := d.resync(f, off, size, format)
			if !found {
				if !wholeRecordAt(f, off, size, format) {
					return end, rowsEnd, nil // an uncommitted tail: the write never finished
				}
				// The last record is all there, its header intact, yet it
				// fails its checksum: committed and damaged since, not torn.
				next = size
			}
			// Intact records follow, so the bad one had been committed:
			// keep what of it is intact, whole documents only.
			stretch := make([]byte, next-off)
			f.ReadAt(stretch, off)
			var got []op
			lost := 1
			if len(stretch) > recordHeader {
				got, lost = salvageAt(stretch[recordHeader:], format, off+recordHeader)
			}
			what := fmt.Sprintf("a record of %d bytes fails its checksum", next-off)
			switch {
			case len(got) > 0 && lost > 0:
				what += fmt.Sprintf("; %d of its changes were read, %d are lost (the documents they put are missing)", len(got), lost)
			case len(got) > 0:
				what += fmt.Sprintf("; all %d of its changes were read from their own checksums", len(got))
			default:
				what += " and was skipped (the documents committed there are lost)"
			}
			d.addDamage(Problem{File: name, Offset: off, Length: next - off, What: what})
			d.lostOps += lost
			for i := range got {
				rowsEnd = d.apply(name, off, &got[i], rowsEnd, live)
			}
			off = next
			r.Reset(io.NewSectionReader(f, off, size-off))
			continue
		}
		var derr error
		ops, derr = decodePayloadAt(payload, format, ops[:0], off+int64(hsize), true)
		recEnd := off + int64(hsize) + int64(len(payload))
		if derr != nil {
			// The checksum matched, so this is not a torn write.
			d.addDamage(Problem{File: name, Offset: off, Length: recEnd - off,
				What: fmt.Sprintf("a record does not decode (%v) and was skipped", derr)})
			d.lostOps++
		}
		for i := range ops {
			rowsEnd = d.apply(name, off, &ops[i], rowsEnd, live)
		}
		off = recEnd
		end = off
	}
	return end, rowsEnd, nil
}

// walkLog follows the records of a log of format 2 or later in r from its
// start to end by their headers. With payloads it also reads each record
// and checks its checksum. It fails when a header or payload is not
// intact, or the records do not end exactly at end.
func walkLog(r io.ReaderAt, end int64, payloads bool) (logMark, error) {
	var (
		m   logMark
		hdr [recordHeader]byte
		buf []byte
		win []byte // payloads: the log from winAt on
		at  int64
	)
	read := func(off int64, n int) ([]byte, error) {
		if !payloads {
			b := hdr[:n]
			_, err := r.ReadAt(b, off)
			return b, err
		}
		if off < at || off+int64(n) > at+int64(len(win)) {
			size := max(n, 4<<20)
			size = int(min(int64(size), end-off))
			if size < n {
				return nil, io.ErrUnexpectedEOF
			}
			if cap(buf) < size {
				buf = make([]byte, size)
			}
			k, err := r.ReadAt(buf[:size], off)
			if k < n {
				if err == nil {
					err = io.ErrUnexpectedEOF
				}
				return nil, err
			}
			win, at = buf[:k], off
		}
		return win[off-at : off-at+int64(n)], nil
	}
	for off := int64(0); off < end; {
		b, err := read(off, recordHeader)
		if err != nil {
			return m, fmt.Errorf("no record header at byte %d: %w", off, err)
		}
		h, ok := parseHeader(b, formatVersion)
		if !ok {
			return m, fmt.Errorf("the record header at byte %d is not intact", off)
		}
		next := off + recordHeader + int64(h.n)
		if next > end {
			return m, fmt.Errorf("the record at byte %d ends past byte %d", off, end)
		}
		m.last = off
		copy(m.header[:], b)
		m.digest = crc32.Update(m.digest, crcTable, b[8:12])
		m.records++
		if payloads {
			p, err := read(off+recordHeader, int(h.n))
			if err != nil {
				return m, fmt.Errorf("the record at byte %d cannot be read: %w", off, err)
			}
			if crc32.Checksum(p, crcTable) != h.sum {
				return m, fmt.Errorf("the record at byte %d fails its checksum", off)
			}
		}
		off = next
	}
	m.end = end
	return m, nil
}

// resync looks for the next intact record after a bad one at off; found is
// false when none follows (the bad stretch is an uncommitted tail).
func (d *disk) resync(f *os.File, off, size int64, format int) (next int64, found bool) {
	if format == 1 {
		// Format 1 has no magic to find a record by. A bad record that
		// does not reach the end of the file is damage, but what follows
		// cannot be trusted: stop here, and say so unless it is the tail.
		var hdr [recordHeaderV1]byte
		if _, err := f.ReadAt(hdr[:], off); err == nil {
			if h, ok := parseHeader(hdr[:], 1); ok && off+recordHeaderV1+int64(h.n) < size {
				d.addDamage(Problem{File: logName(d.man.Generation), Offset: off, Length: size - off,
					What: "a record fails its checksum; the records after it (old format) were not read"})
			}
		}
		return 0, false
	}
	chunk := int64(fileBuffer(size - off))
	buf := make([]byte, chunk+recordHeader)
	for pos := off + 1; pos < size; pos += chunk {
		n, _ := f.ReadAt(buf, pos)
		b := buf[:n]
		for i := 0; ; {
			j := bytes.Index(b[i:], []byte(recordMagic))
			if j < 0 || int64(i+j) >= chunk {
				break
			}
			at := pos + int64(i+j)
			if intactAt(f, at, size) {
				return at, true
			}
			i += j + 1
		}
	}
	return 0, false
}

// intactAt reports whether a whole format-2 record with matching checksums
// starts at off.
func intactAt(f *os.File, off, size int64) bool {
	var hdr [recordHeader]byte
	if _, err := f.ReadAt(hdr[:], off); err != nil {
		return false
	}
	h, ok := parseHeader(hdr[:], 2)
	if !ok || off+recordHeader+int64(h.n) > size {
		return false
	}
	p := make([]byte, h.n)
	if _, err := f.ReadAt(p, off+recordHeader); err != nil {
		return false
	}
	return crc32.Checksum(p, crcTable) == h.sum
}

// apply replays one committed op of the record at off into live and
// returns the rows the vector file must hold.
func (d *disk) apply(name string, off int64, o *op, rows int, live map[string]*entry) int {
	switch o.kind {
	case opInfo:
		d.hasInfo, d.info = true, o.info
		if o.info.info() != d.man.info() || o.info.Generation != d.man.Generation {
			d.addDamage(Problem{File: name, Offset: off, What: fmt.Sprintf(
				"its header says embedder %q (dimension %d), generation %d, but the manifest says %q (dimension %d), generation %d",
				o.info.Embedder, o.info.Dimension, o.info.Generation, d.man.Embedder, d.man.Dimension, d.man.Generation)})
		}
	case opDelete:
		live[o.id] = nil
	case opPut:
		if o.firstRow != rows && (d.damage == nil || o.firstRow < rows) {
			d.addDamage(Problem{File: name, Offset: off,
				What: fmt.Sprintf("document %s starts at vector row %d, expected %d", o.doc.ID, o.firstRow, rows)})
		}
		e := newEntry(o.doc, o.segs, o.zero, o.firstRow, o.vecSum, o.unembedded, o.texts, o.sums)
		live[e.doc.ID] = e
		rows = max(rows, o.firstRow+len(e.segs))
	}
	return rows
}

// openVectors opens the current generation's vector file, nil if there is
// none. Readers open it before they replay the log, so that a compaction
// by another process, which removes the generation's files once the new
// one is committed, cannot take the vectors from under a replay that read
// the old generation's log: the open file keeps them.
func (d *disk) openVectors() (*os.File, error) {
	f, _, err := regular.Open(d.path(vectorName(d.man.Generation)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if errors.Is(err, regular.ErrNotRegular) {
		d.addDamage(Problem{File: vectorName(d.man.Generation), Offset: -1, What: fmt.Sprintf("it cannot be read: %v", err)})
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("couldn't read library vectors: %w", err)
	}
	return f, nil
}

// readRows reads vector rows [from, to) of f, the current generation's
// vector file (nil: none), into one block; rows the file does not hold
// are left zero and counted in missing.
func (d *disk) readRows(f *os.File, from, to int) (block []float32, missing int, err error) {
	dim := d.man.Dimension
	block = make([]float32, (to-from)*dim)
	if to <= from {
		return block, 0, nil
	}
	if f == nil {
		return block, to - from, nil
	}
	n, err := f.ReadAt(floatView(block), int64(from)*int64(dim)*4)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, 0, fmt.Errorf("couldn't read library vectors: %w", err)
	}
	have := n / 4 / dim
	clear(block[have*dim:])
	fromFileOrder(block[:have*dim])
	return block, (to - from) - have, nil
}

// attach gives each put entry of live its vectors from block (which starts
// at row base) and checks them: vectors the file does not hold, that fail
// their checksum (format 2) or hold NaN (format 1) are damage; such a
// document keeps its text but its vectors are zeroed and never match.
func (d *disk) attach(live map[string]*entry, block []float32, base, haveRows int) {
	dim := d.man.Dimension
	for _, e := range live {
		if e == nil {
			continue
		}
		lo, hi := (e.row-base)*dim, (e.row-base+len(e.segs))*dim
		var what string
		if lo < 0 || hi > len(block) {
			// Rows outside what this replay read: only a damaged log
			// says so (apply reported it).
			e.vecs = make([]float32, len(e.segs)*dim)
			what = "lie outside the rows the log commits"
		} else {
			e.vecs = block[lo:hi:hi]
			what = d.vectorFault(e, e.vecs, haveRows)
		}
		if what == "" {
			continue
		}
		d.reportLost(e, what)
		e.vecs = make([]float32, len(e.segs)*dim) // not clear: the rows may be another's too
		e.markLost()
	}
}

// newEntry is the entry of a document put (replayed from the log or read
// from a snapshot): its segments get their ids, document and index, and
// its parents are found.
func newEntry(doc store.Document, segs []store.Segment, zero []bool, row int, sum uint32, unembedded bool, texts []textRef, sums []uint32) *entry {
	e := &entry{doc: doc, segs: segs, zero: zero, row: row, sum: sum, unembedded: unembedded, texts: texts, sums: sums}
	if e.unembedded {
		for i := range e.zero {
			e.zero[i] = true
		}
	}
	e.doc.Segments = len(e.segs)
	ids := segmentIDs(e.doc.ID, len(e.segs))
	for i := range e.segs {
		s := &e.segs[i]
		s.DocumentID = e.doc.ID
		s.Index = i
		s.ID = ids[i]
	}
	// Update let no bad parent through; should the log hold one all the
	// same, the index rows that resolve are kept.
	e.parent, _ = store.Parents(e.segs)
	return e
}

// segmentIDs returns the ids "doc:0" to "doc:n-1", cut from one string.
func segmentIDs(doc string, n int) []string {
	b := make([]byte, 0, n*(len(doc)+4))
	ends := make([]int, n)
	for i := range n {
		b = append(b, doc...)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(i), 10)
		ends[i] = len(b)
	}
	all := string(b)
	ids := make([]string, n)
	from := 0
	for i, end := range ends {
		ids[i] = all[from:end]
		from = end
	}
	return ids
}

func hasNaN(v []float32) bool {
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return true
		}
	}
	return false
}

// loadAll replays the whole current generation and returns its live
// entries, ordered by row, each with where its texts lie in the log, its
// codes (read from the codes file, or computed from the vectors) and, when
// keep says so for the number of segments Dense can find, its vectors;
// every entry's vectors are read and checked against their checksum
// either way (loadVectors). It also returns the vector file and the log,
// open (nil when there is none), and the memory outside the heap that
// holds the codes: the view of the entries.
func (d *disk) loadAll(keep func(dense int) bool) ([]*entry, view, error) {
	// The commit file first: it never claims more than the log holds when
	// it is read, whatever a writer appends meanwhile.
	d.seen, d.seenErr = readMark(d.dir, d.man.Generation)
	d.hasInfo, d.cut, d.lostOps = false, false, 0
	vf, err := d.openVectors()
	if err != nil {
		return nil, view{}, err
	}
	vsize := int64(-1)
	if vf != nil {
		if fi, err := vf.Stat(); err == nil {
			vsize = fi.Size()
		}
	}
	// Opened before the replay, as the vector file: the texts are read
	// from this very file later, whatever another process's compaction
	// removes meanwhile.
	lf, _, _ := regular.Open(d.path(logName(d.man.Generation)))
	fail := func(err error) ([]*entry, view, error) {
		view{vf: vf, lf: lf}.release()
		return nil, view{}, err
	}
	// A snapshot spares replaying the log up to where it reaches; the
	// records there are checked by the background pass (snapshot.go).
	var (
		live     = map[string]*entry{}
		from     int64
		fromRows int
	)
	d.snapEnd, d.logUnchecked = 0, nil
	if lf != nil {
		if st, err := lf.Stat(); err == nil {
			if sn := d.readSnapshot(lf, st.Size()); sn != nil {
				live, from, fromRows = sn.live, sn.mark.end, sn.rows
				d.hasInfo, d.info = sn.hasInfo, sn.info
				d.snapEnd, d.logUnchecked = sn.mark.end, &sn.mark
			}
		}
	}
	end, rows, err := d.replay(from, fromRows, live)
	if err != nil {
		return fail(err)
	}
	// The log was missing when replay looked (a library never written, a
	// generation removed by a compaction since the manifest was read, or
	// damage): judged on what replay saw, so that a compaction between a
	// check and the replay cannot pass for an empty library.
	if _, err := os.Stat(d.path(logName(d.man.Generation))); end == 0 && errors.Is(err, fs.ErrNotExist) {
		if gens := generations(d.dir); len(gens) > 0 {
			d.addDamage(Problem{File: manifestName, Offset: -1, What: fmt.Sprintf(
				"it names generation %d, whose files are missing, but the folder holds generation %d", d.man.Generation, gens[len(gens)-1])})
		}
		switch {
		case vsize > 0:
			d.addDamage(Problem{File: logName(d.man.Generation), Offset: -1,
				What: fmt.Sprintf("the log is missing, but %s holds %d bytes of vectors", vectorName(d.man.Generation), vsize)})
			d.cut = true
		case d.seenErr == nil && d.seen.logEnd > 0:
			d.addDamage(Problem{File: logName(d.man.Generation), Offset: -1,
				What: fmt.Sprintf("the log is missing, but %s records commits up to byte %d", markName(d.man.Generation), d.seen.logEnd)})
			d.cut = true
		}
	}
	if !d.cut {
		d.checkCommitted(d.seen, d.seenErr, end, rows)
	}
	d.checkVectorTail(d.seen, d.seenErr, rows, vsize)
	d.logEnd, d.rows = end, rows
	entries := make([]*entry, 0, len(live))
	liveRows, dense := 0, 0
	for _, e := range live {
		if e != nil {
			entries = append(entries, e)
			liveRows += len(e.segs)
			for i := range e.segs {
				if e.dense(i) {
					dense++
				}
			}
		}
	}
	slices.SortFunc(entries, func(a, b *entry) int { return a.row - b.row })
	d.deadRows = rows - liveRows
	mem, err := d.loadVectors(vf, entries, keep(dense))
	if err != nil {
		return fail(err)
	}
	return entries, view{vf: vf, lf: lf, codes: mem}, nil
}

// closeFile closes f unless it is nil.
func closeFile(f *os.File) {
	if f != nil {
		f.Close()
	}
}

// catchUpEntries replays what was committed after d.logEnd (by another
// process) and returns the changes: an entry per document put, nil per
// document deleted.
func (d *disk) catchUpEntries() (map[string]*entry, error) {
	vf, err := d.openVectors()
	if err != nil {
		return nil, err
	}
	if vf != nil {
		defer vf.Close()
	}
	m, merr := readMark(d.dir, d.man.Generation)
	delta := map[string]*entry{}
	end, rows, err := d.replay(d.logEnd, d.rows, delta)
	if err != nil {
		return nil, err
	}
	if !d.cut {
		d.checkCommitted(m, merr, end, rows)
	}
	block, missing, err := d.readRows(vf, d.rows, rows)
	if err != nil {
		return nil, err
	}
	d.attach(delta, block, d.rows, rows-missing)
	d.logEnd, d.rows = end, rows
	return delta, nil
}

// entriesOf lists the non-nil entries of a delta.
func entriesOf(m map[string]*entry) []*entry {
	out := make([]*entry, 0, len(m))
	for _, e := range m {
		if e != nil {
			out = append(out, e)
		}
	}
	return out
}

// wholeRecordAt reports whether a record of format 2 with an intact header
// starts at off and all the bytes its header claims are in the file: a
// record that cannot be a write cut short, whatever its payload holds.
func wholeRecordAt(f *os.File, off, size int64, format int) bool {
	if format == 1 {
		return false
	}
	var hdr [recordHeader]byte
	if _, err := f.ReadAt(hdr[:], off); err != nil {
		return false
	}
	h, ok := parseHeader(hdr[:], format)
	return ok && off+int64(recordHeader)+int64(h.n) <= size
}
