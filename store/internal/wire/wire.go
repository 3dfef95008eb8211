// Package wire reads the varint-framed binary formats of the store's files
// (the embedded store's log and the saved keyword index): one Decoder whose
// first error sticks, so that a caller reads every field and checks once.
package wire

import (
	"encoding/binary"
	"errors"
	"math"
)

// ErrCorrupt is the error of a Decoder that ran out of input or met a
// value out of range.
var ErrCorrupt = errors.New("corrupt data")

// Decoder reads fields from B. After the first failure every read returns
// the zero value, B is empty and Err returns ErrCorrupt.
type Decoder struct {
	B   []byte
	err error
}

// Err is nil while every read succeeded, else ErrCorrupt.
func (d *Decoder) Err() error { return d.err }

// Fail marks the input corrupt (for checks the caller makes itself).
func (d *Decoder) Fail() {
	if d.err == nil {
		d.err = ErrCorrupt
	}
	d.B = nil
}

// Byte reads one byte.
func (d *Decoder) Byte() byte {
	if len(d.B) < 1 {
		d.Fail()
		return 0
	}
	c := d.B[0]
	d.B = d.B[1:]
	return c
}

// Uvarint reads an unsigned varint.
func (d *Decoder) Uvarint() uint64 {
	v, n := binary.Uvarint(d.B)
	if n <= 0 {
		d.Fail()
		return 0
	}
	d.B = d.B[n:]
	return v
}

// Int reads a signed varint that must fit in an int32.
func (d *Decoder) Int() int {
	v, n := binary.Varint(d.B)
	if n <= 0 || v > math.MaxInt32 || v < math.MinInt32 {
		d.Fail()
		return 0
	}
	d.B = d.B[n:]
	return int(v)
}

// Count reads a length or count that must not exceed what is left of the
// input (every counted item takes at least a byte), so that a corrupt count
// cannot make the caller allocate more than the input's size.
func (d *Decoder) Count() int {
	v := d.Uvarint()
	if v > uint64(len(d.B)) {
		d.Fail()
		return 0
	}
	return int(v)
}

// Bytes reads a length-prefixed byte string, sharing the input's memory.
func (d *Decoder) Bytes() []byte {
	n := d.Count()
	if d.err != nil {
		return nil
	}
	s := d.B[:n:n]
	d.B = d.B[n:]
	return s
}

// String reads a length-prefixed string.
func (d *Decoder) String() string { return string(d.Bytes()) }

// Uint32 reads a little-endian uint32.
func (d *Decoder) Uint32() uint32 {
	if len(d.B) < 4 {
		d.Fail()
		return 0
	}
	v := binary.LittleEndian.Uint32(d.B)
	d.B = d.B[4:]
	return v
}

// AppendString appends s with its uvarint length.
func AppendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// AppendBytes appends s with its uvarint length.
func AppendBytes(b, s []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}
