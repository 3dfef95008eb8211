package embedded

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"math"

	"github.com/ibid-dev/ibid/store"
	"github.com/ibid-dev/ibid/store/internal/wire"
	"github.com/ibid-dev/ibid/store/keyword"
)

// On-disk format of a library folder (see docs/storage.md):
//
//	manifest.json         format, embedder, dimension, generation N
//	segments-N.log        append-only log of commit records
//	vectors-N.f32         append-only little-endian float32 rows, dim per row
//	commit-N              what the last commit reached (format 4; commitfile.go)
//	bm25.idx              the saved keyword index (a cache: rebuilt when stale)
//	lock                  the lock writers hold (flock) while they write
//
// A commit record of format 2, 3 and 4 is
//
//	"ibR2" | uint32 LE payload length | uint32 LE CRC-32C(payload) |
//	uint32 LE CRC-32C(the 12 bytes before) | payload
//
// The magic and the header's own checksum let a reader that meets a damaged
// record find the next intact one (see replay); format 1 records have only
// the length and the payload's CRC. A record is committed when it is
// complete and its checksums match.
//
// The payload is uvarint(number of ops) followed by the ops. From format 2
// each op is framed: uint32 LE length | uint32 LE CRC-32C | op, so that
// when a committed record is damaged the intact ops in it (whole
// documents) can still be read; format 1 ops follow each other unframed.
//
//	opPut:    kind | str document JSON | uvarint first row |
//	          uint32 LE CRC-32C of the document's vector rows (format 2) |
//	          uvarint n | n × segment
//	segment:  flags | str text | str index text (2) | str parent (2) |
//	          uvarint m, m × str section | varint page start, page end, start, end |
//	          if flags has segBoxes (3): uvarint n, n × box
//	box:      varint page | x0, y0, x1, y1 as uint32 LE float32 bits
//	opDelete: kind | str document id
//	opInfo:   kind | uvarint format | str embedder | uvarint dimension |
//	          uvarint generation (format 4)
//
// where str is uvarint length followed by the bytes. Format 3 is format 2
// with the segBoxes flag: a segment without boxes sets no flag and writes no
// bytes for them, so every format-2 record is a format-3 record, and format 3
// exists so that an older ibid (which reads formats 1 and 2 only) refuses a
// library that may hold boxes instead of misreading it. A library of format
// 2 is read as it is; its first writable use rewrites the manifest's format
// to 3 (upgradeLocked) before any record is appended. A segment's ID,
// DocumentID and Index are not stored: they follow from the document and the
// segment's position. Its vector is row (first row + i) of the vector file.
//
// Format 4 keeps a second copy of what only the manifest held, so that a
// damaged manifest can be rewritten (recover.go): the first record of each
// generation's log (and a record appended when an older library is
// upgraded) is an opInfo, the manifest's facts; and commit-N records how
// far the log and the vector file reached at the last commit, so that a
// log cut short (at a record boundary or not) is told from an earlier
// state. It also adds the segUnembedded flag: the segment's vector was
// lost and its text waits to be embedded again (kept so by a repair). As
// with format 3, a format-4 library is refused by an older ibid instead of
// misread; formats 2 and 3 are upgraded in place by the first write
// (manifest first, then the opInfo record), format 1 by a compaction.

const (
	formatVersion = 4 // written; formats 1 to 3 are read, and upgraded by the first write
	manifestName  = "manifest.json"
	lockName      = "lock"
	keywordName   = "bm25.idx"

	opPut    byte = 1
	opDelete byte = 2
	opInfo   byte = 3 // the manifest's facts (format 4)

	segZeroVector byte = 1 // the segment's vector is all zeros
	segBoxes      byte = 2 // the segment's boxes follow its offsets (format 3)
	segUnembedded byte = 4 // the vector was lost: the text waits to be embedded again (format 4)
	segFlags           = segZeroVector | segBoxes | segUnembedded

	boxBytesMin = 1 + 4*4 // the smallest encoded box: a one-byte page and four floats

	recordMagic    = "ibR2"
	recordHeader   = 16 // format 2
	recordHeaderV1 = 8
	maxRecordSize  = 1 << 30
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

func logName(gen int) string    { return fmt.Sprintf("segments-%06d.log", gen) }
func vectorName(gen int) string { return fmt.Sprintf("vectors-%06d.f32", gen) }

// manifest is the small file that names a library's embedder, the format
// of its data files and their generation. It is replaced atomically, never
// edited.
type manifest struct {
	Format     int    `json:"format"`
	Embedder   string `json:"embedder"`
	Dimension  int    `json:"dimension"`
	Generation int    `json:"generation"`
}

func (m manifest) info() store.Info { return store.Info{Embedder: m.Embedder, Dimension: m.Dimension} }

// op is one decoded operation of a commit record.
type op struct {
	kind       byte
	doc        store.Document  // opPut
	firstRow   int             // opPut: the first vector row in the generation's file
	vecSum     uint32          // opPut: CRC-32C of the vector rows (format 2)
	segs       []store.Segment // opPut: Vector nil; zero flag in zero
	zero       []bool          // opPut: which segments have an all-zero vector
	unembedded bool            // opPut: the segments wait to be embedded again (segUnembedded)
	texts      []textRef       // opPut decoded in place: where each segment's texts lie (its Text and IndexText empty)
	sums       []uint32        // opPut decoded in place: keyword.Sum of each segment's keyword text
	id         string          // opDelete
	info       manifest        // opInfo
}

// opFrame is the size of an op's frame header in format 2.
const opFrame = 8

// beginOp reserves an op's frame header; endOp fills it in.
func beginOp(b []byte) ([]byte, int) { return append(b, make([]byte, opFrame)...), len(b) }

func endOp(b []byte, start int) []byte {
	body := b[start+opFrame:]
	binary.LittleEndian.PutUint32(b[start:], uint32(len(body)))
	binary.LittleEndian.PutUint32(b[start+4:], crc32.Checksum(body, crcTable))
	return b
}

// appendPutAt encodes a put op for doc whose segments' vectors start at
// row and have the checksum vecSum; unembedded flags every segment as
// waiting for a vector (its row is zeros). It notes in refs (when not nil,
// one per segment) where each segment's texts lie in b: a textRef whose
// offset is relative to b's start.
func appendPutAt(b []byte, doc *store.Document, segs []store.Segment, zero []bool, row int, vecSum uint32, unembedded bool, refs []textRef) ([]byte, error) {
	js, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("couldn't encode document %s: %w", doc.ID, err)
	}
	b, start := beginOp(b)
	b = append(b, opPut)
	b = wire.AppendBytes(b, js)
	b = binary.AppendUvarint(b, uint64(row))
	b = binary.LittleEndian.AppendUint32(b, vecSum)
	b = binary.AppendUvarint(b, uint64(len(segs)))
	for i := range segs {
		s := &segs[i]
		var flags byte
		if zero[i] {
			flags |= segZeroVector
		}
		if unembedded {
			flags |= segUnembedded
		}
		at := len(b)
		b = append(b, flags)
		b = wire.AppendString(b, s.Text)
		b = wire.AppendString(b, s.IndexText)
		if refs != nil {
			refs[i] = textRef{off: int64(at), n: int32(len(b) - at)}
		}
		b = wire.AppendString(b, s.Parent)
		b = binary.AppendUvarint(b, uint64(len(s.Section)))
		for _, h := range s.Section {
			b = wire.AppendString(b, h)
		}
		b = appendPlace(b, s)
		if len(s.Boxes) > 0 {
			b[at] |= segBoxes
		}
	}
	return endOp(b, start), nil
}

// appendPlace encodes where a segment lies in its document: its pages and
// byte offsets, then its boxes when it has any (which the segment's flags
// say with segBoxes). The log's records and the snapshot share it.
func appendPlace(b []byte, s *store.Segment) []byte {
	b = binary.AppendVarint(b, int64(s.PageStart))
	b = binary.AppendVarint(b, int64(s.PageEnd))
	b = binary.AppendVarint(b, int64(s.Start))
	b = binary.AppendVarint(b, int64(s.End))
	if len(s.Boxes) > 0 {
		b = appendBoxes(b, s.Boxes)
	}
	return b
}

// decodePlace reads what appendPlace wrote into s; flags are the
// segment's.
func decodePlace(d *wire.Decoder, s *store.Segment, flags byte) {
	s.PageStart = d.Int()
	s.PageEnd = d.Int()
	s.Start = d.Int()
	s.End = d.Int()
	if flags&segBoxes != 0 {
		s.Boxes = decodeBoxes(d)
	}
}

// appendBoxes encodes boxes: their count, then each box's page and its
// coordinates' exact bits.
func appendBoxes(b []byte, boxes []store.Box) []byte {
	b = binary.AppendUvarint(b, uint64(len(boxes)))
	for _, x := range boxes {
		b = binary.AppendVarint(b, int64(x.Page))
		for _, v := range [...]float32{x.X0, x.Y0, x.X1, x.Y1} {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
		}
	}
	return b
}

// decodeBoxes reads what appendBoxes wrote. A count the rest of the input
// cannot hold is corruption, found before anything is allocated.
func decodeBoxes(d *wire.Decoder) []store.Box {
	n := d.Count()
	if n == 0 || n > len(d.B)/boxBytesMin {
		d.Fail() // a flagged segment has at least one box
		return nil
	}
	boxes := make([]store.Box, n)
	for i := range boxes {
		x := &boxes[i]
		x.Page = d.Int()
		x.X0 = math.Float32frombits(d.Uint32())
		x.Y0 = math.Float32frombits(d.Uint32())
		x.X1 = math.Float32frombits(d.Uint32())
		x.Y1 = math.Float32frombits(d.Uint32())
	}
	if d.Err() != nil {
		return nil
	}
	return boxes
}

// appendInfo encodes an info op: the manifest's facts, kept in the log so
// that a damaged manifest can be rewritten.
func appendInfo(b []byte, m manifest) []byte {
	b, start := beginOp(b)
	b = append(b, opInfo)
	b = binary.AppendUvarint(b, uint64(m.Format))
	b = wire.AppendString(b, m.Embedder)
	b = binary.AppendUvarint(b, uint64(m.Dimension))
	b = binary.AppendUvarint(b, uint64(m.Generation))
	return endOp(b, start)
}

// infoRecord is a whole commit record holding one info op.
func infoRecord(m manifest) []byte {
	return frame(appendInfo(binary.AppendUvarint(nil, 1), m))
}

// small reads a uvarint that must fit in an int32.
func small(d *wire.Decoder) int {
	v := d.Uvarint()
	if v > math.MaxInt32 {
		d.Fail()
		return 0
	}
	return int(v)
}

func appendDelete(b []byte, id string) []byte {
	b, start := beginOp(b)
	b = append(b, opDelete)
	b = wire.AppendString(b, id)
	return endOp(b, start)
}

// frame wraps payload into a commit record of format 2 (and 3: the same
// framing).
func frame(payload []byte) []byte {
	rec := make([]byte, recordHeader, recordHeader+len(payload))
	copy(rec, recordMagic)
	binary.LittleEndian.PutUint32(rec[4:8], uint32(len(payload)))
	binary.LittleEndian.PutUint32(rec[8:12], crc32.Checksum(payload, crcTable))
	binary.LittleEndian.PutUint32(rec[12:16], crc32.Checksum(rec[:12], crcTable))
	return append(rec, payload...)
}

// header is a parsed record header.
type header struct {
	size int    // header bytes
	n    uint32 // payload length
	sum  uint32 // payload CRC
}

// parseHeader reads a record header of format at the start of b; ok is
// false when b is too short or the header is not intact.
func parseHeader(b []byte, format int) (h header, ok bool) {
	if format == 1 {
		if len(b) < recordHeaderV1 {
			return h, false
		}
		h = header{recordHeaderV1, binary.LittleEndian.Uint32(b[0:4]), binary.LittleEndian.Uint32(b[4:8])}
		return h, h.n <= maxRecordSize
	}
	if len(b) < recordHeader || string(b[:4]) != recordMagic ||
		crc32.Checksum(b[:12], crcTable) != binary.LittleEndian.Uint32(b[12:16]) {
		return h, false
	}
	h = header{recordHeader, binary.LittleEndian.Uint32(b[4:8]), binary.LittleEndian.Uint32(b[8:12])}
	return h, h.n <= maxRecordSize
}

// decodePayloadAt appends the ops of one committed record of format to
// ops. With base >= 0, the payload's offset in the log, the segments' texts
// are not copied out of p, but noted as
// textRefs into the log (with the checksums of their keyword texts). A
// base < 0 copies the texts. checked says p passed its record's checksum:
// then the ops' own checksums (which let salvage keep the intact ops of a
// damaged record) are not computed again.
func decodePayloadAt(p []byte, format int, ops []op, base int64, checked bool) ([]op, error) {
	d := wire.Decoder{B: p}
	n := d.Count()
	at := func(skip int) int64 {
		if base < 0 {
			return -1
		}
		return base + int64(len(p)-len(d.B)+skip)
	}
	for i := 0; i < n && d.Err() == nil; i++ {
		if format >= 2 {
			from := at(opFrame)
			body, ok := nextOp(&d, !checked)
			if !ok {
				d.Fail()
				break
			}
			o, err := decodeOp(&wire.Decoder{B: body}, format, true, from)
			if err != nil {
				return ops, err
			}
			ops = append(ops, o)
			continue
		}
		o, err := decodeOp(&d, format, false, at(0))
		if err != nil {
			return ops, err
		}
		ops = append(ops, o)
	}
	if d.Err() == nil && len(d.B) != 0 {
		d.Fail()
	}
	return ops, d.Err()
}

// nextOp reads one framed op (format 2) and, with check, checks its
// checksum.
func nextOp(d *wire.Decoder, check bool) (body []byte, ok bool) {
	if len(d.B) < opFrame {
		return nil, false
	}
	n := binary.LittleEndian.Uint32(d.B)
	sum := binary.LittleEndian.Uint32(d.B[4:])
	if uint64(n) > uint64(len(d.B)-opFrame) {
		return nil, false
	}
	body = d.B[opFrame : opFrame+n : opFrame+n]
	d.B = d.B[opFrame+n:]
	return body, !check || crc32.Checksum(body, crcTable) == sum
}

// salvageAt reads what it can of the payload of a committed record that
// failed its checksum: every framed op whose own checksum matches, until
// the frames can no longer be followed. lost counts the ops it skipped.
// format is the log's (2 or 3). With base >= 0, the payload's offset in
// the log, it notes texts as decodePayloadAt does (else it copies them).
func salvageAt(p []byte, format int, base int64) (ops []op, lost int) {
	d := wire.Decoder{B: p}
	n := int(d.Uvarint())
	if d.Err() != nil {
		return nil, 1
	}
	for i := 0; i < n; i++ {
		if len(d.B) < opFrame {
			return ops, lost + n - i
		}
		size := binary.LittleEndian.Uint32(d.B)
		if uint64(size) > uint64(len(d.B)-opFrame) {
			return ops, lost + n - i // the frame itself is damaged: the rest is out of reach
		}
		from := int64(-1)
		if base >= 0 {
			from = base + int64(len(p)-len(d.B)+opFrame)
		}
		body, ok := nextOp(&d, true)
		if !ok {
			lost++
			continue
		}
		o, err := decodeOp(&wire.Decoder{B: body}, format, true, from)
		if err != nil {
			lost++
			continue
		}
		ops = append(ops, o)
	}
	return ops, lost
}

// decodeOp decodes one op; whole says the decoder holds exactly that op.
// With at >= 0, the offset in the log of the decoder's first byte, the
// segments' texts are noted as textRefs instead of copied.
func decodeOp(d *wire.Decoder, format int, whole bool, at int64) (op, error) {
	var o op
	start := len(d.B)
	switch kind := d.Byte(); kind {
	case opPut:
		o.kind = opPut
		js := d.Bytes()
		if d.Err() != nil {
			break
		}
		if err := json.Unmarshal(js, &o.doc); err != nil {
			return o, fmt.Errorf("%w: document: %v", wire.ErrCorrupt, err)
		}
		o.firstRow = int(d.Uvarint())
		if format >= 2 {
			o.vecSum = d.Uint32()
		}
		ns := d.Count()
		if d.Err() != nil {
			break
		}
		o.segs = make([]store.Segment, ns)
		o.zero = make([]bool, ns)
		if at >= 0 {
			o.texts = make([]textRef, ns)
			o.sums = make([]uint32, ns)
		}
		for j := range o.segs {
			s := &o.segs[j]
			from := len(d.B)
			flags := d.Byte()
			if format >= 3 && flags&^segFlags != 0 {
				d.Fail() // a flag no format defines
			}
			o.zero[j] = flags&segZeroVector != 0
			if flags&segUnembedded != 0 {
				o.unembedded = true
			}
			text := d.Bytes()
			var itext []byte
			if format >= 2 {
				itext = d.Bytes()
			}
			if at >= 0 {
				o.texts[j] = textRef{off: at + int64(start-from), n: int32(from - len(d.B))}
				if len(itext) == 0 {
					o.sums[j] = keyword.Sum(text)
				} else {
					o.sums[j] = keyword.Sum(itext)
				}
			} else {
				s.Text, s.IndexText = string(text), string(itext)
			}
			if format >= 2 {
				s.Parent = d.String()
			}
			if m := d.Count(); m > 0 {
				s.Section = make([]string, m)
				for k := range s.Section {
					s.Section[k] = d.String()
				}
			}
			// Only format-3 writers set segBoxes, but it is read whatever
			// the manifest says: a reader that read the manifest before
			// another process upgraded it may meet such records.
			decodePlace(d, s, flags)
		}
	case opDelete:
		o = op{kind: opDelete, id: d.String()}
	case opInfo:
		// Read whatever the manifest says: a reader that read it before
		// another process upgraded the library may meet one.
		o.kind = opInfo
		o.info.Format = small(d)
		o.info.Embedder = d.String()
		o.info.Dimension = small(d)
		o.info.Generation = small(d)
	default:
		d.Fail()
	}
	if whole && d.Err() == nil && len(d.B) != 0 {
		d.Fail()
	}
	return o, d.Err()
}
