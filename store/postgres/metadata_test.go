package postgres

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/store"
)

// TestMetadataBoxesExact: rag_chunks.metadata keeps boxes' float32 values
// bit for bit through encoding/json (PostgreSQL's jsonb keeps the decimal
// it is given: the conformance suite's Boxes case checks that part), and
// leaves "boxes" out when a segment has none.
func TestMetadataBoxesExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	finite := func() float32 {
		for {
			if v := math.Float32frombits(r.Uint32()); !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) && v != 0 {
				return v
			}
		}
	}
	boxes := make([]store.Box, 50000)
	for i := range boxes {
		boxes[i] = store.Box{Page: i + 1, X0: finite(), Y0: finite(), X1: finite(), Y1: finite()}
	}
	boxes = append(boxes, store.Box{Page: 1, X0: math.SmallestNonzeroFloat32, Y0: math.MaxFloat32, X1: 72.125, Y1: 611.99},
		store.Box{Page: 2, X0: 1e-3, Y0: -math.MaxFloat32, X1: 0x1p-140, Y1: 0.1})
	b, err := json.Marshal(metadata{Start: 1, End: 2, Boxes: boxes})
	if err != nil {
		t.Fatal(err)
	}
	var m metadata
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Boxes) != len(boxes) {
		t.Fatalf("%d boxes read back, want %d", len(m.Boxes), len(boxes))
	}
	for i, w := range boxes {
		g := m.Boxes[i]
		for k, pair := range [][2]float32{{g.X0, w.X0}, {g.Y0, w.Y0}, {g.X1, w.X1}, {g.Y1, w.Y1}} {
			if math.Float32bits(pair[0]) != math.Float32bits(pair[1]) || g.Page != w.Page {
				t.Fatalf("box %d coordinate %d: %v (page %d) read back as %v (page %d)", i, k, pair[1], w.Page, pair[0], g.Page)
			}
		}
	}
	none, err := json.Marshal(metadata{Start: 1, End: 2})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(none), "boxes") {
		t.Fatalf("metadata without boxes is %s", none)
	}
}
