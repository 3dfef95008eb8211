package embedded

import (
	"bytes"
	"encoding/binary"
	"math"
	"reflect"
	"testing"

	"github.com/ibid-dev/ibid/store"
)

// FuzzDecodePayload: whatever the bytes, decoding returns ops or an error,
// never panics, and a payload we encoded decodes to what was encoded.
func FuzzDecodePayload(f *testing.F) {
	doc, segs := makeDoc("fz", 3, 4, 1)
	segs[2].Section = nil
	segs[1].Boxes = []store.Box{{Page: 2, X0: 1.5, Y0: 2, X1: 3, Y1: 4}, {Page: 3, X1: 1e-3, Y1: 611.99}}
	zero := []bool{false, true, false}
	p := binary.AppendUvarint(nil, 2)
	p, _ = appendPut(p, &doc, segs, zero, 7, 99, false)
	p = appendDelete(p, "gone")
	f.Add(p)
	f.Add([]byte{})
	f.Add([]byte{1, 1})
	f.Add([]byte{1, 2, 2, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		ops, err := decodePayload(b, formatVersion, nil)
		if err != nil {
			return
		}
		// Re-encoding what was decoded and decoding again is stable (as
		// bytes: boxes may hold NaN bits, which no == can compare).
		q := encodeOps(t, ops)
		again, err := decodePayload(q, formatVersion, nil)
		if err != nil {
			t.Fatalf("re-encoded payload does not decode: %v", err)
		}
		if r := encodeOps(t, again); !bytes.Equal(q, r) {
			t.Fatalf("round trip changed ops:\n%+v\n%+v", ops, again)
		}
	})
}

// encodeOps encodes ops as a payload.
func encodeOps(t *testing.T, ops []op) []byte {
	q := binary.AppendUvarint(nil, uint64(len(ops)))
	for _, o := range ops {
		switch o.kind {
		case opPut:
			var err error
			if q, err = appendPut(q, &o.doc, o.segs, o.zero, o.firstRow, o.vecSum, o.unembedded); err != nil {
				t.Fatal(err)
			}
		case opDelete:
			q = appendDelete(q, o.id)
		}
	}
	return q
}

func TestPayloadRoundTrip(t *testing.T) {
	t.Parallel()
	doc, segs := makeDoc("rt", 4, 4, 1)
	doc.Segments = 4
	segs[1].Boxes = []store.Box{{Page: 2, X0: 72.125, Y0: 1e-3, X1: 611.99, Y1: 700}, {Page: 3, X0: -1, Y0: math.SmallestNonzeroFloat32, X1: 0, Y1: math.MaxFloat32}}
	zero := []bool{false, true, false, false}
	p := binary.AppendUvarint(nil, 2)
	p, err := appendPut(p, &doc, segs, zero, 7, 99, false)
	if err != nil {
		t.Fatal(err)
	}
	p = appendDelete(p, "gone")
	ops, err := decodePayload(p, formatVersion, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != 2 || ops[0].kind != opPut || ops[1].kind != opDelete || ops[1].id != "gone" {
		t.Fatalf("ops = %+v", ops)
	}
	o := ops[0]
	if !reflect.DeepEqual(o.doc, doc) || o.firstRow != 7 || o.vecSum != 99 || !reflect.DeepEqual(o.zero, zero) {
		t.Fatalf("put = %+v", o)
	}
	for i, sg := range o.segs {
		w := segs[i]
		if sg.Text != w.Text || sg.IndexText != w.IndexText || sg.Parent != w.Parent || !reflect.DeepEqual(sg.Section, w.Section) || sg.PageStart != w.PageStart ||
			sg.PageEnd != w.PageEnd || sg.Start != w.Start || sg.End != w.End || !reflect.DeepEqual(sg.Boxes, w.Boxes) {
			t.Fatalf("segment %d = %+v, want %+v", i, sg, w)
		}
	}
	// Every truncation is an error, never a panic or a shorter success.
	for n := range len(p) {
		if _, err := decodePayload(p[:n], formatVersion, nil); err == nil {
			t.Fatalf("payload cut to %d bytes decoded", n)
		}
	}
}

// FuzzSalvage: reading what is intact of a damaged payload never panics,
// and never returns an op whose frame checksum failed.
func FuzzSalvage(f *testing.F) {
	doc, segs := makeDoc("fz", 3, 4, 1)
	p := binary.AppendUvarint(nil, 3)
	p, _ = appendPut(p, &doc, segs, []bool{false, true, false}, 7, 1, false)
	p = appendDelete(p, "gone")
	p, _ = appendPut(p, &doc, segs[:1], []bool{false}, 10, 2, false)
	f.Add(p)
	f.Add([]byte{})
	f.Add([]byte{5, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		ops, lost := salvage(b, formatVersion)
		if lost < 0 || len(ops) > len(b) {
			t.Fatalf("salvage: %d ops, %d lost from %d bytes", len(ops), lost, len(b))
		}
	})
}
