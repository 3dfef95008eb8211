package embedded

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/ibid-dev/ibid/internal/regular"
	"github.com/ibid-dev/ibid/store"
	"github.com/ibid-dev/ibid/store/internal/wire"
)

// The snapshot: what an open rebuilds from a generation's log, saved.
//
// Replaying the log of a large library is most of its open: a million
// segments are 1.5 GB of records whose checksums must be computed and
// whose every segment is decoded, only to learn each document, each
// segment's metadata and where its texts lie. snapshot-N holds exactly
// that for a prefix of generation N's log (the entries in row order, with
// their textRefs and the checksums of their keyword texts), so that an
// open reads the snapshot and replays only the log after it.
//
// The snapshot is a cache, like the codes file and the keyword index, and
// is never trusted:
//   - It is written whole to a temporary file, synced, renamed over the
//     old one and the folder synced (replaceFile), by a process holding the
//     library's lock, from a view with no damage whose background pass
//     (check.go) has ended, and only for a library of the current format.
//   - Its body carries a CRC-32C and its length in a trailer, and says
//     which library and generation it describes (format, embedder,
//     dimension, generation), how far into the log it reaches (end) and
//     the 16 bytes of the header of the last record before end, with the
//     digest of every record's payload checksum up to end. An open uses it
//     only when the trailer and checksum match, the facts are the
//     manifest's, the log is at least end bytes long and holds that very
//     header at that very place. Otherwise (missing, torn, flipped, of
//     another generation, or stale: the log was cut or replaced) the open
//     replays the whole log, as if there were none, and the next write of
//     a snapshot replaces it.
//   - An open that used it leaves the log's own checks to the background
//     pass, as it leaves a large library's vectors: the pass reads the log
//     up to end, checks every record's checksums and that the records' chain
//     lands on end with the snapshot's digest. When anything fails, the
//     library is loaded again with every record and vector checked (a full
//     replay, which reports damage if the log is damaged): until then a
//     query may be answered from a snapshot that disagrees with the log.
//   - Writers wait for that pass before they write (awaitCheck), so no
//     write, cut or compaction ever acts on a view the log has not vouched
//     for.
//   - Only libraries whose log reaches snapshotMin use and write one: below
//     that the replay is fast, and every record is checked at open.
//
// Format:
//
//	"ibS1" | body | uint64 LE body length | uint32 LE CRC-32C(body) | "ibS1"
//	body:    uvarint format | str embedder | uvarint dimension | uvarint generation |
//	         uvarint end | uvarint rows | uvarint records | uint32 LE digest |
//	         uvarint offset of the last record | its 16 header bytes |
//	         byte has info | [uvarint format | str embedder | uvarint dimension | uvarint generation] |
//	         uvarint entries | chunks of the entries, in row order
//	chunk:   uvarint bytes | uvarint entries | uvarint segments | entries
//	         (decoded on all cores)
//	entry:   str document JSON | uvarint first row | uint32 LE vector CRC-32C |
//	         byte (1: unembedded) | uvarint n | uvarint p | p × path | n × segment
//	path:    uvarint m | m × str heading
//	segment: flags (segZeroVector, segBoxes) | uvarint text offset |
//	         uvarint text length | uint32 LE keyword text checksum | str parent |
//	         uvarint path number | varint page start, page end, start, end |
//	         [boxes, if segBoxes]
//
// where digest is the CRC-32C of the payload checksums (bytes 8 to 12 of
// each header) of the log's records from its start to end, in order, and
// the paths are the document's distinct section paths (segments that share
// one share its slice in memory).

const (
	snapshotMagic   = "ibS1"
	snapshotTrailer = 8 + 4 + len(snapshotMagic)
	snapshotMax     = 4 << 30

	// A chunk of a snapshot holds at most so many entries, or not many
	// more bytes than so many.
	snapChunkEntries = 256
	snapChunkBytes   = 1 << 20
)

// snapshotMin is the length of log from which an open uses a snapshot and
// a writer keeps one; a variable for tests.
var snapshotMin int64 = 64 << 20

// snapshotSlack: a writer replaces the snapshot once the log has grown by
// more than 1/snapshotSlack past what it covers.
const snapshotSlack = 8

func snapshotName(gen int) string { return fmt.Sprintf("snapshot-%06d", gen) }

// logMark is where a snapshot ends in its log: end, the number of records
// before it, their digest, and the last one's header and offset.
type logMark struct {
	end     int64
	records int
	digest  uint32
	last    int64
	header  [recordHeader]byte
}

// encodeSnapshot writes the snapshot of entries (the live documents, in
// row order) for d's current state, whose log up to d.logEnd is mark, to w
// (buffered, unless w is a bufio.Writer already, as replaceFile's is).
func (d *disk) encodeSnapshot(w io.Writer, entries []*entry, lm logMark) error {
	bw, ok := w.(*bufio.Writer)
	if !ok {
		bw = bufio.NewWriterSize(w, 64<<10)
	}
	crc := crc32.New(crcTable)
	body := io.MultiWriter(bw, crc)
	var n int64
	put := func(b []byte) error {
		n += int64(len(b))
		_, err := body.Write(b)
		return err
	}
	if _, err := bw.WriteString(snapshotMagic); err != nil {
		return err
	}
	b := appendFacts(nil, d.man)
	b = binary.AppendUvarint(b, uint64(lm.end))
	b = binary.AppendUvarint(b, uint64(d.rows))
	b = binary.AppendUvarint(b, uint64(lm.records))
	b = binary.LittleEndian.AppendUint32(b, lm.digest)
	b = binary.AppendUvarint(b, uint64(lm.last))
	b = append(b, lm.header[:]...)
	if d.hasInfo {
		b = append(b, 1)
		b = appendFacts(b, d.info)
	} else {
		b = append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(entries)))
	if err := put(b); err != nil {
		return err
	}
	// In chunks, which an open decodes on all cores.
	var chunk []byte
	for i := 0; i < len(entries); {
		chunk, b = chunk[:0], b[:0]
		j, segs := i, 0
		for ; j < len(entries) && j-i < snapChunkEntries && len(chunk) < snapChunkBytes; j++ {
			var err error
			if chunk, err = appendSnapEntry(chunk, entries[j]); err != nil {
				return err
			}
			segs += len(entries[j].segs)
		}
		b = binary.AppendUvarint(b, uint64(len(chunk)))
		b = binary.AppendUvarint(b, uint64(j-i))
		b = binary.AppendUvarint(b, uint64(segs))
		if err := put(b); err != nil {
			return err
		}
		if err := put(chunk); err != nil {
			return err
		}
		i = j
	}
	b = binary.LittleEndian.AppendUint64(b[:0], uint64(n))
	b = binary.LittleEndian.AppendUint32(b, crc.Sum32())
	b = append(b, snapshotMagic...)
	if _, err := bw.Write(b); err != nil {
		return err
	}
	return bw.Flush()
}

// appendFacts encodes a manifest's facts.
func appendFacts(b []byte, m manifest) []byte {
	b = binary.AppendUvarint(b, uint64(m.Format))
	b = wire.AppendString(b, m.Embedder)
	b = binary.AppendUvarint(b, uint64(m.Dimension))
	return binary.AppendUvarint(b, uint64(m.Generation))
}

func decodeFacts(d *wire.Decoder) manifest {
	var m manifest
	m.Format = small(d)
	m.Embedder = d.String()
	m.Dimension = small(d)
	m.Generation = small(d)
	return m
}

// appendSnapEntry encodes one entry of a snapshot.
func appendSnapEntry(b []byte, e *entry) ([]byte, error) {
	if len(e.texts) != len(e.segs) || len(e.sums) != len(e.segs) || e.lost {
		return nil, fmt.Errorf("document %s: no texts in the log to note", e.doc.ID)
	}
	js, err := json.Marshal(&e.doc)
	if err != nil {
		return nil, fmt.Errorf("couldn't encode document %s: %w", e.doc.ID, err)
	}
	b = wire.AppendBytes(b, js)
	b = binary.AppendUvarint(b, uint64(e.row))
	b = binary.LittleEndian.AppendUint32(b, e.sum)
	if e.unembedded {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(e.segs)))
	// The document's distinct section paths, each once; segments name
	// theirs by number.
	paths := map[string]int{}
	at := make([]int, len(e.segs))
	var table []byte
	for i := range e.segs {
		key := sectionKey(e.segs[i].Section)
		k, ok := paths[key]
		if !ok {
			k = len(paths)
			paths[key] = k
			table = binary.AppendUvarint(table, uint64(len(e.segs[i].Section)))
			for _, h := range e.segs[i].Section {
				table = wire.AppendString(table, h)
			}
		}
		at[i] = k
	}
	b = binary.AppendUvarint(b, uint64(len(paths)))
	b = append(b, table...)
	for i := range e.segs {
		s := &e.segs[i]
		var flags byte
		if e.zero[i] {
			flags |= segZeroVector
		}
		if len(s.Boxes) > 0 {
			flags |= segBoxes
		}
		b = append(b, flags)
		b = binary.AppendUvarint(b, uint64(e.texts[i].off))
		b = binary.AppendUvarint(b, uint64(e.texts[i].n))
		b = binary.LittleEndian.AppendUint32(b, e.sums[i])
		b = wire.AppendString(b, s.Parent)
		b = binary.AppendUvarint(b, uint64(at[i]))
		b = appendPlace(b, s)
	}
	return b, nil
}

// sectionKey is a section path as one string (its headings' lengths and
// bytes), to tell paths apart.
func sectionKey(path []string) string {
	var b []byte
	for _, h := range path {
		b = wire.AppendString(b, h)
	}
	return string(b)
}

// snapFile is a decoded snapshot file.
type snapFile struct {
	man     manifest // the facts it was written for
	mark    logMark
	rows    int
	hasInfo bool
	info    manifest
	live    map[string]*entry
}

var errSnapshot = errors.New("the snapshot does not decode")

// decodeSnapshot decodes a whole snapshot file.
func decodeSnapshot(b []byte) (*snapFile, error) {
	if len(b) < len(snapshotMagic)+snapshotTrailer || string(b[:len(snapshotMagic)]) != snapshotMagic ||
		string(b[len(b)-len(snapshotMagic):]) != snapshotMagic {
		return nil, errSnapshot
	}
	tr := b[len(b)-snapshotTrailer:]
	body := b[len(snapshotMagic) : len(b)-snapshotTrailer]
	if binary.LittleEndian.Uint64(tr) != uint64(len(body)) || crc32.Checksum(body, crcTable) != binary.LittleEndian.Uint32(tr[8:]) {
		return nil, errSnapshot
	}
	d := wire.Decoder{B: body}
	sn := &snapFile{man: decodeFacts(&d)}
	sn.mark.end = int64(d.Uvarint())
	sn.rows = small(&d)
	sn.mark.records = small(&d)
	sn.mark.digest = d.Uint32()
	sn.mark.last = int64(d.Uvarint())
	if len(d.B) < recordHeader {
		return nil, errSnapshot
	}
	copy(sn.mark.header[:], d.B)
	d.B = d.B[recordHeader:]
	if sn.hasInfo = d.Byte() == 1; sn.hasInfo {
		sn.info = decodeFacts(&d)
	}
	n := d.Count()
	if d.Err() != nil || sn.mark.end < 0 || sn.mark.last < 0 {
		return nil, errSnapshot
	}
	type chunk struct {
		b       []byte
		n, segs int
		entries []*entry
		err     error
	}
	var chunks []chunk
	for total := 0; total < n; {
		size, k, segs := d.Count(), d.Count(), d.Count()
		if d.Err() != nil || size > len(d.B) || k == 0 || k > n-total || segs > size {
			return nil, errSnapshot
		}
		chunks = append(chunks, chunk{b: d.B[:size:size], n: k, segs: segs})
		d.B = d.B[size:]
		total += k
	}
	if d.Err() != nil || len(d.B) != 0 {
		return nil, errSnapshot
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(chunks)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(chunks) {
					return
				}
				c := &chunks[i]
				cd := wire.Decoder{B: c.b}
				c.entries = make([]*entry, c.n)
				a := newSnapArena(c.segs)
				for j := range c.entries {
					if c.entries[j], c.err = decodeSnapEntry(&cd, &a); c.err != nil {
						break
					}
				}
				if c.err == nil && (cd.Err() != nil || len(cd.B) != 0 || a.left() != 0) {
					c.err = errSnapshot
				}
			}
		})
	}
	wg.Wait()
	sn.live = make(map[string]*entry, n)
	for _, c := range chunks {
		if c.err != nil {
			return nil, c.err
		}
		for _, e := range c.entries {
			if sn.live[e.doc.ID] != nil {
				return nil, errSnapshot
			}
			sn.live[e.doc.ID] = e
		}
	}
	return sn, nil
}

// snapArena holds the per-segment slices of a chunk's entries, allocated
// once for the chunk (a few large allocations instead of several per
// document). An entry's slices are cut from it with their capacity
// capped, and nothing appends to them; a replaced or deleted document's
// part stays allocated while another entry of the chunk lives.
type snapArena struct {
	segs  []store.Segment
	zero  []bool
	texts []textRef
	sums  []uint32
}

func newSnapArena(n int) snapArena {
	return snapArena{segs: make([]store.Segment, n), zero: make([]bool, n), texts: make([]textRef, n), sums: make([]uint32, n)}
}

// take cuts the slices of n segments; ok is false when fewer are left.
func (a *snapArena) take(n int) (segs []store.Segment, zero []bool, texts []textRef, sums []uint32, ok bool) {
	if n > len(a.segs) {
		return nil, nil, nil, nil, false
	}
	segs, a.segs = a.segs[:n:n], a.segs[n:]
	zero, a.zero = a.zero[:n:n], a.zero[n:]
	texts, a.texts = a.texts[:n:n], a.texts[n:]
	sums, a.sums = a.sums[:n:n], a.sums[n:]
	return segs, zero, texts, sums, true
}

func (a *snapArena) left() int { return len(a.segs) }

// decodeSnapEntry decodes one entry of a snapshot, its per-segment slices
// cut from a.
func decodeSnapEntry(d *wire.Decoder, a *snapArena) (*entry, error) {
	var doc store.Document
	if err := json.Unmarshal(d.Bytes(), &doc); err != nil || d.Err() != nil {
		return nil, errSnapshot
	}
	row := small(d)
	sum := d.Uint32()
	unembedded := d.Byte() == 1
	ns := d.Count()
	if d.Err() != nil {
		return nil, errSnapshot
	}
	np := d.Count()
	if d.Err() != nil || np > ns || (np == 0 && ns > 0) {
		return nil, errSnapshot
	}
	paths := make([][]string, np)
	for k := range paths {
		if m := d.Count(); m > 0 {
			paths[k] = make([]string, m)
			for j := range paths[k] {
				paths[k][j] = d.String()
			}
		}
	}
	segs, zero, texts, sums, ok := a.take(ns)
	if !ok {
		return nil, errSnapshot
	}
	for i := range segs {
		s := &segs[i]
		flags := d.Byte()
		if flags&^(segZeroVector|segBoxes) != 0 {
			return nil, errSnapshot
		}
		zero[i] = flags&segZeroVector != 0
		off := d.Uvarint()
		n := d.Uvarint()
		if off > 1<<62 || n > maxRecordSize {
			return nil, errSnapshot
		}
		texts[i] = textRef{off: int64(off), n: int32(n)}
		sums[i] = d.Uint32()
		s.Parent = d.String()
		k := d.Uvarint()
		if k >= uint64(np) {
			return nil, errSnapshot
		}
		s.Section = paths[k] // shared: segments' sections are never changed in place
		decodePlace(d, s, flags)
		if d.Err() != nil {
			return nil, errSnapshot
		}
	}
	return newEntry(doc, segs, zero, row, sum, unembedded, texts, sums), nil
}

// readSnapshot reads generation gen's snapshot and checks it against the
// manifest and the log lf (size bytes long): nil when there is none, or it
// cannot vouch for the log's first records (see the top of this file).
func (d *disk) readSnapshot(lf *os.File, size int64) *snapFile {
	if d.man.Format != formatVersion || lf == nil || size < snapshotMin || d.checkAll {
		return nil
	}
	b, err := regular.ReadFile(d.path(snapshotName(d.man.Generation)), snapshotMax)
	if err != nil {
		return nil
	}
	sn, err := decodeSnapshot(b)
	if err != nil || sn.man != d.man || sn.mark.end > size || sn.mark.end < recordHeader ||
		sn.mark.last+recordHeader > sn.mark.end {
		return nil
	}
	var hdr [recordHeader]byte
	if _, err := lf.ReadAt(hdr[:], sn.mark.last); err != nil || hdr != sn.mark.header {
		return nil
	}
	h, ok := parseHeader(hdr[:], formatVersion)
	if !ok || sn.mark.last+recordHeader+int64(h.n) != sn.mark.end {
		return nil
	}
	return sn
}

// snapshotDue reports whether d's log has grown enough past its snapshot
// to write another.
func (d *disk) snapshotDue() bool {
	return d.writable() && d.damage == nil && d.man.Format == formatVersion &&
		d.logEnd >= snapshotMin && (d.snapEnd == 0 || d.logEnd-d.snapEnd > d.logEnd/snapshotSlack)
}

// saveSnapshot writes the snapshot of s's current view when it is due and
// the background pass found the view sound; the caller holds wsem and the
// library's lock, and s is caught up. A failure only costs the next open
// a longer replay.
func (s *Store) saveSnapshot() error {
	d := s.disk
	if d == nil || !d.snapshotDue() || !s.checked() || s.lf == nil {
		return nil
	}
	// The view is written out, not the log replayed: the commit file must
	// say the view is what the log holds up to logEnd.
	if m, err := readMark(d.dir, d.man.Generation); err != nil || m.logEnd != d.logEnd || m.rows != d.rows ||
		m.docs != len(s.docs) || m.segs != s.nsegs {
		return nil
	}
	entries := make([]*entry, 0, len(s.docs))
	for _, e := range s.docs {
		entries = append(entries, e)
	}
	slices.SortFunc(entries, func(a, b *entry) int { return a.row - b.row })
	lm, err := walkLog(s.lf, d.logEnd, false)
	if err != nil {
		return err
	}
	path := d.path(snapshotName(d.man.Generation))
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		os.Remove(path) // a pipe, a link, an empty folder: nothing a rename can replace or anyone should read
	}
	if err := d.replaceFile(snapshotName(d.man.Generation), func(w io.Writer) error {
		return d.encodeSnapshot(w, entries, lm)
	}); err != nil {
		return fmt.Errorf("couldn't write the snapshot: %w", err)
	}
	d.snapEnd = d.logEnd
	return nil
}

// saveSnapshotNow writes the snapshot when it is due and the library's
// lock is free (a writer busy elsewhere will write it), having checked that
// the library is still the one this store loaded: at the open of a library
// whose snapshot could not be used, and at Close. The caller holds wsem.
func (s *Store) saveSnapshotNow() {
	d := s.disk
	if d == nil || !d.snapshotDue() || !s.checked() {
		return
	}
	if ok, err := d.flk.TryLock(); err != nil || !ok {
		return
	}
	defer d.flk.Unlock()
	mfi, err := os.Stat(d.path(manifestName))
	if err != nil || d.manSeen == nil || !os.SameFile(mfi, d.manSeen) || !mfi.ModTime().Equal(d.manSeen.ModTime()) {
		return // compacted, repaired or dropped since: not this view's to describe
	}
	if fi, err := os.Stat(d.dir); err != nil || d.dirSeen == nil || !os.SameFile(fi, d.dirSeen) {
		return
	}
	_ = s.saveSnapshot()
}

// checked reports whether the log of the current view is known sound:
// read whole at its load, or checked since by its background pass, which
// found nothing wrong so far. A snapshot is written only from such a view,
// so that one never vouches for what another took unchecked. The caller
// holds wsem.
func (s *Store) checked() bool {
	c := s.check
	return c == nil || (c.logOK.Load() && !c.bad.Load())
}
