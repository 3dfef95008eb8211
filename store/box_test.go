package store

import (
	"math"
	"strings"
	"testing"
)

func TestCheckBoxes(t *testing.T) {
	good := Segment{ID: "d:0", PageStart: 2, PageEnd: 3, Boxes: []Box{
		{Page: 2, X0: 0, Y0: 0, X1: 0, Y1: 0}, {Page: 3, X0: 72.125, Y0: 1e-3, X1: 611.99, Y1: 700}}}
	if err := CheckBoxes(&good); err != nil {
		t.Fatal(err)
	}
	none := Segment{ID: "d:1"}
	if err := CheckBoxes(&none); err != nil {
		t.Fatalf("a segment without boxes (or pages): %v", err)
	}
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	cases := map[string]Box{
		"NaN":        {Page: 2, X1: nan},
		"infinity":   {Page: 2, Y0: -inf},
		"x0 > x1":    {Page: 2, X0: 2, X1: 1},
		"y0 > y1":    {Page: 2, Y0: 2, Y1: 1},
		"page 0":     {Page: 0},
		"page below": {Page: 1},
		"page above": {Page: 4},
	}
	for name, b := range cases {
		sg := good
		sg.Boxes = []Box{good.Boxes[0], b}
		err := CheckBoxes(&sg)
		if err == nil || !strings.Contains(err.Error(), "d:0: box 1") {
			t.Errorf("%s: error = %v", name, err)
		}
	}
	noPages := Segment{ID: "d:2", Boxes: []Box{{Page: 1}}}
	if err := CheckBoxes(&noPages); err == nil {
		t.Error("boxes on a segment without pages were accepted")
	}
}

func TestStoredBoxes(t *testing.T) {
	if StoredBoxes(nil) != nil || StoredBoxes([]Box{}) != nil {
		t.Fatal("no boxes must be nil")
	}
	neg := float32(math.Copysign(0, -1))
	in := []Box{{Page: 1, X0: neg, Y0: neg, X1: 1e-3, Y1: math.SmallestNonzeroFloat32}}
	out := StoredBoxes(in)
	if math.Float32bits(out[0].X0) != 0 || math.Float32bits(out[0].Y0) != 0 {
		t.Fatalf("-0 stored as %v (bits %x)", out[0].X0, math.Float32bits(out[0].X0))
	}
	if math.Float32bits(out[0].X1) != math.Float32bits(1e-3) || out[0].Y1 != math.SmallestNonzeroFloat32 {
		t.Fatalf("values changed: %+v", out[0])
	}
	if math.Float32bits(in[0].X0) != 1<<31 {
		t.Fatal("the input was changed")
	}
	out[0].X1 = 5
	if in[0].X1 == 5 {
		t.Fatal("the result shares the input's memory")
	}
}
