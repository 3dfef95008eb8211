package embedded

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"unsafe"
)

// On-disk format of a library folder (see docs/storage.md):
//
//	manifest.json         format, embedder, dimension, generation N
//	segments-N.log        append-only log of commit records
//	vectors-N.f32         append-only little-endian float32 rows, dim per row
//	lock                  advisory lock taken by writers
//
// A commit record is
//
//	uint32 LE payload length | uint32 LE CRC-32C(payload) | payload
//
// and its payload is uvarint(number of ops) followed by the ops. An op is
// opPut or opDelete. A record is committed when it is complete and its CRC
// matches; replay stops at the first record that is not, and everything from
// there on (in the log and in the vector file) was never committed.
//
// opPut:    kind | uvarint len, document JSON | uvarint first row | uvarint n |
//           n × segment
// segment:  flags | str text | uvarint m, m × str section |
//           varint page start, page end, start, end
// opDelete: kind | str document id
//
// where str is uvarint length followed by the bytes. A segment's ID,
// DocumentID and Index are not stored: they follow from the document and the
// segment's position. Its vector is row (first row + i) of the vector file.

const (
	formatVersion = 1
	manifestName  = "manifest.json"
	lockName      = "lock"

	opPut    byte = 1
	opDelete byte = 2

	segZeroVector byte = 1 // the segment's vector is all zeros

	recordHeader  = 8
	maxRecordSize = 1 << 30
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

func logName(gen int) string    { return fmt.Sprintf("segments-%06d.log", gen) }
func vectorName(gen int) string { return fmt.Sprintf("vectors-%06d.f32", gen) }
func manifestTmp() string       { return manifestName + ".tmp" }

// manifest is the small file that names a library's embedder and the
// generation of its data files. It is replaced atomically, never edited.
type manifest struct {
	Format     int    `json:"format"`
	Embedder   string `json:"embedder"`
	Dimension  int    `json:"dimension"`
	Generation int    `json:"generation"`
}

func (m manifest) info() Info { return Info{Embedder: m.Embedder, Dimension: m.Dimension} }

// op is one decoded operation of a commit record.
type op struct {
	kind     byte
	doc      Document  // opPut
	firstRow int       // opPut: the first vector row in the generation's file
	segs     []Segment // opPut: Vector nil; zero flag in zero
	zero     []bool    // opPut: which segments have an all-zero vector
	id       string    // opDelete
}

// appendPut encodes a put op for doc whose segments' vectors start at row.
func appendPut(b []byte, doc *Document, segs []Segment, zero []bool, row int) ([]byte, error) {
	js, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("couldn't encode document %s: %w", doc.ID, err)
	}
	b = append(b, opPut)
	b = appendBytes(b, js)
	b = binary.AppendUvarint(b, uint64(row))
	b = binary.AppendUvarint(b, uint64(len(segs)))
	for i := range segs {
		s := &segs[i]
		var flags byte
		if zero[i] {
			flags |= segZeroVector
		}
		b = append(b, flags)
		b = appendString(b, s.Text)
		b = binary.AppendUvarint(b, uint64(len(s.Section)))
		for _, h := range s.Section {
			b = appendString(b, h)
		}
		b = binary.AppendVarint(b, int64(s.PageStart))
		b = binary.AppendVarint(b, int64(s.PageEnd))
		b = binary.AppendVarint(b, int64(s.Start))
		b = binary.AppendVarint(b, int64(s.End))
	}
	return b, nil
}

func appendDelete(b []byte, id string) []byte {
	b = append(b, opDelete)
	return appendString(b, id)
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendBytes(b []byte, s []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// frame wraps payload into a commit record.
func frame(payload []byte) []byte {
	rec := make([]byte, recordHeader, recordHeader+len(payload))
	binary.LittleEndian.PutUint32(rec[0:4], uint32(len(payload)))
	binary.LittleEndian.PutUint32(rec[4:8], crc32.Checksum(payload, crcTable))
	return append(rec, payload...)
}

var errCorrupt = errors.New("corrupt record")

// decoder reads the fields of one payload; the first error sticks.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errCorrupt
	}
	d.b = nil
}

func (d *decoder) byte() byte {
	if len(d.b) < 1 {
		d.fail()
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) int() int {
	v, n := binary.Varint(d.b)
	if n <= 0 || v > math.MaxInt32 || v < math.MinInt32 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return int(v)
}

// count reads a length that must fit in what is left of the payload.
func (d *decoder) count() int {
	v := d.uvarint()
	if v > uint64(len(d.b)) {
		d.fail()
		return 0
	}
	return int(v)
}

func (d *decoder) bytes() []byte {
	n := d.count()
	if d.err != nil {
		return nil
	}
	s := d.b[:n:n]
	d.b = d.b[n:]
	return s
}

func (d *decoder) string() string { return string(d.bytes()) }

// decodePayload appends the ops of one committed record to ops.
func decodePayload(p []byte, ops []op) ([]op, error) {
	d := decoder{b: p}
	n := d.count()
	for i := 0; i < n && d.err == nil; i++ {
		switch kind := d.byte(); kind {
		case opPut:
			var o op
			o.kind = opPut
			js := d.bytes()
			if d.err != nil {
				break
			}
			if err := json.Unmarshal(js, &o.doc); err != nil {
				return ops, fmt.Errorf("%w: document: %v", errCorrupt, err)
			}
			o.firstRow = int(d.uvarint())
			ns := d.count()
			if d.err != nil {
				break
			}
			o.segs = make([]Segment, ns)
			o.zero = make([]bool, ns)
			for j := range o.segs {
				s := &o.segs[j]
				o.zero[j] = d.byte()&segZeroVector != 0
				s.Text = d.string()
				if m := d.count(); m > 0 {
					s.Section = make([]string, m)
					for k := range s.Section {
						s.Section[k] = d.string()
					}
				}
				s.PageStart = d.int()
				s.PageEnd = d.int()
				s.Start = d.int()
				s.End = d.int()
			}
			ops = append(ops, o)
		case opDelete:
			ops = append(ops, op{kind: opDelete, id: d.string()})
		default:
			d.fail()
		}
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail()
	}
	return ops, d.err
}

// littleEndian reports whether float32s are laid out in memory as the vector
// file stores them, so that rows can be read and written without copying.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// floatView is the memory of f as bytes.
func floatView(f []float32) []byte {
	if len(f) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&f[0])), len(f)*4)
}

// floatBytes returns the bytes of f in the vector file's byte order: a view
// of f itself on little-endian machines, a copy elsewhere.
func floatBytes(f []float32) []byte {
	if len(f) == 0 {
		return nil
	}
	if littleEndian {
		return floatView(f)
	}
	b := make([]byte, len(f)*4)
	for i, v := range f {
		binary.LittleEndian.PutUint32(b[i*4:], math.Float32bits(v))
	}
	return b
}
