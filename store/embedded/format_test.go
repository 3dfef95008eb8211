package embedded

import (
	"encoding/binary"
	"reflect"
	"testing"
)

// FuzzDecodePayload: whatever the bytes, decoding returns ops or an error,
// never panics, and a payload we encoded decodes to what was encoded.
func FuzzDecodePayload(f *testing.F) {
	doc, segs := makeDoc("fz", 3, 4, 1)
	segs[2].Section = nil
	zero := []bool{false, true, false}
	p := binary.AppendUvarint(nil, 2)
	p, _ = appendPut(p, &doc, segs, zero, 7, 99)
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
		// Re-encoding what was decoded and decoding again is stable.
		q := binary.AppendUvarint(nil, uint64(len(ops)))
		for _, o := range ops {
			switch o.kind {
			case opPut:
				if q, err = appendPut(q, &o.doc, o.segs, o.zero, o.firstRow, o.vecSum); err != nil {
					t.Fatal(err)
				}
			case opDelete:
				q = appendDelete(q, o.id)
			}
		}
		again, err := decodePayload(q, formatVersion, nil)
		if err != nil {
			t.Fatalf("re-encoded payload does not decode: %v", err)
		}
		if !reflect.DeepEqual(ops, again) {
			t.Fatalf("round trip changed ops:\n%+v\n%+v", ops, again)
		}
	})
}

func TestPayloadRoundTrip(t *testing.T) {
	doc, segs := makeDoc("rt", 4, 4, 1)
	doc.Segments = 4
	zero := []bool{false, true, false, false}
	p := binary.AppendUvarint(nil, 2)
	p, err := appendPut(p, &doc, segs, zero, 7, 99)
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
			sg.PageEnd != w.PageEnd || sg.Start != w.Start || sg.End != w.End {
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
	p, _ = appendPut(p, &doc, segs, []bool{false, true, false}, 7, 1)
	p = appendDelete(p, "gone")
	p, _ = appendPut(p, &doc, segs[:1], []bool{false}, 10, 2)
	f.Add(p)
	f.Add([]byte{})
	f.Add([]byte{5, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		ops, lost := salvage(b)
		if lost < 0 || len(ops) > len(b) {
			t.Fatalf("salvage: %d ops, %d lost from %d bytes", len(ops), lost, len(b))
		}
	})
}
