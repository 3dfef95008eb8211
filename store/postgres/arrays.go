package postgres

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/jackc/pgx/v5/pgtype"
)

// A chunk row's terms and term frequencies go to COPY as textArray and
// int4Array, which a connection encodes straight into PostgreSQL's binary
// array format. pgx's own array encoding turns every element into an
// interface value first (an allocation a term) and looks up its plan: a
// tenth of a bulk load's client time, for thirty-odd terms a segment.
type (
	textArray []string
	int4Array []int32
)

// registerArrays makes a connection's type map encode textArray and
// int4Array with their own plans; every other value of text[] and
// integer[] keeps pgx's codec.
func registerArrays(m *pgtype.Map) {
	for _, oid := range []uint32{pgtype.TextArrayOID, pgtype.Int4ArrayOID} {
		if t, ok := m.TypeForOID(oid); ok {
			m.RegisterType(&pgtype.Type{Name: t.Name, OID: t.OID, Codec: arrayCodec{t.Codec}})
		}
	}
}

// arrayCodec is pgx's codec of an array type with the plans of textArray
// and int4Array in front.
type arrayCodec struct{ pgtype.Codec }

func (c arrayCodec) PlanEncode(m *pgtype.Map, oid uint32, format int16, value any) pgtype.EncodePlan {
	if format == pgtype.BinaryFormatCode {
		switch value.(type) {
		case textArray:
			if oid == pgtype.TextArrayOID {
				return textArrayPlan{}
			}
		case int4Array:
			if oid == pgtype.Int4ArrayOID {
				return int4ArrayPlan{}
			}
		}
	}
	return c.Codec.PlanEncode(m, oid, format, value)
}

// arrayHeader appends the header of a one-dimensional array of n elements
// of type elem without NULLs, as pgx writes it (an empty array too has one
// dimension, of length 0). A nil slice is sent as NULL, as pgx sends it.
func arrayHeader(buf []byte, n int, elem uint32) []byte {
	buf = binary.BigEndian.AppendUint32(buf, 1) // dimensions
	buf = binary.BigEndian.AppendUint32(buf, 0) // no NULLs
	buf = binary.BigEndian.AppendUint32(buf, elem)
	buf = binary.BigEndian.AppendUint32(buf, uint32(n))
	return binary.BigEndian.AppendUint32(buf, 1) // lower bound
}

type textArrayPlan struct{}

func (textArrayPlan) Encode(value any, buf []byte) ([]byte, error) {
	a := value.(textArray)
	if a == nil {
		return nil, nil
	}
	buf = arrayHeader(buf, len(a), pgtype.TextOID)
	for _, s := range a {
		if len(s) > math.MaxInt32 {
			return nil, fmt.Errorf("term of %d bytes is too long", len(s))
		}
		buf = binary.BigEndian.AppendUint32(buf, uint32(len(s)))
		buf = append(buf, s...)
	}
	return buf, nil
}

type int4ArrayPlan struct{}

func (int4ArrayPlan) Encode(value any, buf []byte) ([]byte, error) {
	a := value.(int4Array)
	if a == nil {
		return nil, nil
	}
	buf = arrayHeader(buf, len(a), pgtype.Int4OID)
	for _, v := range a {
		buf = binary.BigEndian.AppendUint32(buf, 4)
		buf = binary.BigEndian.AppendUint32(buf, uint32(v))
	}
	return buf, nil
}
