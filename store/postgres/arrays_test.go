package postgres

import (
	"bytes"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"
)

// TestArraysEncodeAsPgx checks that textArray and int4Array reach the
// server as the very bytes pgx's own codec makes of []string and []int32,
// NULL (nil) and empty arrays included.
func TestArraysEncodeAsPgx(t *testing.T) {
	m := pgtype.NewMap()
	registerArrays(m)
	plain := pgtype.NewMap() // pgx as it comes
	texts := [][]string{nil, {}, {"a"}, {"cell", "机器", "", "x\x01y"}}
	for _, a := range texts {
		want, err := plain.Encode(pgtype.TextArrayOID, pgtype.BinaryFormatCode, a, []byte("prefix"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := m.Encode(pgtype.TextArrayOID, pgtype.BinaryFormatCode, textArray(a), []byte("prefix"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("textArray(%q) encodes as %x, pgx as %x", a, got, want)
		}
	}
	ints := [][]int32{nil, {}, {1}, {3, -1, 1 << 30}}
	for _, a := range ints {
		want, err := plain.Encode(pgtype.Int4ArrayOID, pgtype.BinaryFormatCode, a, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := m.Encode(pgtype.Int4ArrayOID, pgtype.BinaryFormatCode, int4Array(a), nil)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("int4Array(%v) encodes as %x, pgx as %x", a, got, want)
		}
	}
	// Other values of these types keep pgx's codec.
	if _, err := m.Encode(pgtype.TextArrayOID, pgtype.BinaryFormatCode, []string{"a"}, nil); err != nil {
		t.Fatal(err)
	}
}
