package store

import (
	"fmt"
	"math"
)

// CheckBoxes refuses boxes a segment cannot have (see Box): a coordinate
// that is NaN or infinite, X0 > X1 or Y0 > Y1, or a page outside the
// segment's page range (PageStart..PageEnd; a segment with boxes has
// pages). Backends call it in Update, so that what they store is what
// every backend can store and return exactly.
func CheckBoxes(sg *Segment) error {
	for i, b := range sg.Boxes {
		for _, v := range [...]float32{b.X0, b.Y0, b.X1, b.Y1} {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return fmt.Errorf("segment %s: box %d has coordinate %v", sg.ID, i, v)
			}
		}
		if b.X0 > b.X1 || b.Y0 > b.Y1 {
			return fmt.Errorf("segment %s: box %d is (%v,%v)-(%v,%v); want x0 <= x1 and y0 <= y1", sg.ID, i, b.X0, b.Y0, b.X1, b.Y1)
		}
		if b.Page < 1 || b.Page < sg.PageStart || b.Page > sg.PageEnd {
			return fmt.Errorf("segment %s: box %d is on page %d, outside the segment's pages %d-%d", sg.ID, i, b.Page, sg.PageStart, sg.PageEnd)
		}
	}
	return nil
}

// StoredBoxes is boxes as every backend stores them: a copy, nil when
// there are none, and a coordinate of -0 as 0 (PostgreSQL's JSON numbers do
// not keep the sign of zero, so no backend does). Every other value is kept
// bit for bit.
func StoredBoxes(boxes []Box) []Box {
	if len(boxes) == 0 {
		return nil
	}
	out := make([]Box, len(boxes))
	for i, b := range boxes {
		b.X0, b.Y0, b.X1, b.Y1 = b.X0+0, b.Y0+0, b.X1+0, b.Y1+0 // -0 + 0 == +0
		out[i] = b
	}
	return out
}
