package storetest

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/store"
)

// The boxes rule (see store.Box): every read returns a segment's boxes as
// Update was given them, float32 values bit for bit (but -0 as 0), none as
// nil; Update refuses a box that breaks Box's rules, changing nothing.

// boxedTexts are the texts of boxed's segments, each with a word of its own
// for keyword search.
var boxedTexts = []string{
	"Attention spans two pages of the paper.",
	"Bibliographies are plain text here.",
	"Corners sit exactly at the origin.",
	"Dense columns need many boxes on three pages.",
}

// boxed is document id with a segment of boxes on two pages with
// fractional coordinates, one with none, one whose box is all zeros and
// one with many boxes on three pages whose coordinates are drawn from
// random float32 bits (extremes and subnormals included).
func boxed(id string) store.Put {
	pages := [][2]int{{1, 2}, {2, 2}, {3, 3}, {3, 5}}
	p := custom(id, "/papers/"+id+".pdf", boxedTexts, nil, pages)
	p.Document.Format, p.Document.Pages = store.FormatPDF, 5
	p.Segments[0].Boxes = []store.Box{
		{Page: 1, X0: 72.125, Y0: 611.99, X1: 540, Y1: 700.5},
		{Page: 2, X0: 1e-3, Y0: 0.1, X1: 72.125, Y1: 96.33333},
	}
	p.Segments[2].Boxes = []store.Box{{Page: 3}}
	r := rand.New(rand.NewPCG(7, 11))
	f := func() float32 {
		for {
			if v := math.Float32frombits(r.Uint32()); !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) {
				return v
			}
		}
	}
	many := []store.Box{
		{Page: 3, X0: math.SmallestNonzeroFloat32, Y0: -math.MaxFloat32, X1: math.MaxFloat32, Y1: 0x1p-140}, // subnormal
		{Page: 4, X0: 0.1, Y0: 0.2, X1: 0.30000001, Y1: 1e-7},
	}
	for i := range 60 {
		x0, x1, y0, y1 := f(), f(), f(), f()
		many = append(many, store.Box{Page: 3 + i*3/60, X0: min(x0, x1), X1: max(x0, x1), Y0: min(y0, y1), Y1: max(y0, y1)})
	}
	many[1].Y0, many[1].Y1 = min(many[1].Y0, many[1].Y1), max(many[1].Y0, many[1].Y1)
	p.Segments[3].Boxes = many
	return p
}

// sameBoxes compares boxes bit for bit, but for -0, which every backend
// returns as 0.
func sameBoxes(got, want []store.Box) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d boxes, want %d", len(got), len(want))
	}
	if len(want) == 0 && got != nil {
		return fmt.Errorf("boxes are %#v, want nil", got)
	}
	bits := func(v float32) uint32 {
		if v == 0 {
			return 0
		}
		return math.Float32bits(v)
	}
	for i, w := range want {
		g := got[i]
		if g.Page != w.Page || math.Float32bits(g.X0) != bits(w.X0) || math.Float32bits(g.Y0) != bits(w.Y0) ||
			math.Float32bits(g.X1) != bits(w.X1) || math.Float32bits(g.Y1) != bits(w.Y1) {
			return fmt.Errorf("box %d = %+v, want %+v", i, g, w)
		}
	}
	return nil
}

// checkBoxes reads every segment of p back through Segment, Segments,
// Dense and Keyword and compares its boxes with p's.
func checkBoxes(t *testing.T, st store.Store, p store.Put, when string) {
	t.Helper()
	ctx := context.Background()
	segs, err := st.Segments(ctx, p.Document.ID, 0, -1)
	if err != nil || len(segs) != len(p.Segments) {
		t.Fatalf("%s: Segments(%s) = %d segments, %v; want %d", when, p.Document.ID, len(segs), err, len(p.Segments))
	}
	for i, w := range p.Segments {
		if err := sameBoxes(segs[i].Boxes, w.Boxes); err != nil {
			t.Errorf("%s: Segments: %s: %v", when, w.ID, err)
		}
		one, _, err := st.Segment(ctx, w.ID)
		if err != nil {
			t.Fatalf("%s: Segment(%s): %v", when, w.ID, err)
		}
		if err := sameBoxes(one.Boxes, w.Boxes); err != nil {
			t.Errorf("%s: Segment: %s: %v", when, w.ID, err)
		}
		only := store.Filter{Documents: []string{w.DocumentID}}
		hits, err := st.Dense(ctx, w.Vector, 1, only)
		if err != nil || len(hits) != 1 || hits[0].Segment.ID != w.ID {
			t.Fatalf("%s: Dense for %s: %v, %v", when, w.ID, hits, err)
		}
		if err := sameBoxes(hits[0].Segment.Boxes, w.Boxes); err != nil {
			t.Errorf("%s: Dense: %s: %v", when, w.ID, err)
		}
		word := strings.Fields(w.Text)[0] // a word of this segment's only
		hits, err = st.Keyword(ctx, word, 1, only)
		if err != nil || len(hits) != 1 || hits[0].Segment.ID != w.ID {
			t.Fatalf("%s: Keyword %q for %s: %v, %v", when, word, w.ID, hits, err)
		}
		if err := sameBoxes(hits[0].Segment.Boxes, w.Boxes); err != nil {
			t.Errorf("%s: Keyword: %s: %v", when, w.ID, err)
		}
	}
}

// compacter is a store that can rewrite its files (the embedded store).
type compacter interface {
	Compact(ctx context.Context) error
}

func testBoxes(t *testing.T, h Harness) {
	ctx := context.Background()
	loc := h.Location(t)
	st := open(t, loc, "lib")
	p, other := boxed("a"), boxed("b")
	other.Segments[0].Boxes[0].X0 = float32(math.Copysign(0, -1)) // read back as 0
	update(t, st, []store.Put{p, other})
	if math.Float32bits(other.Segments[0].Boxes[0].X0) != 1<<31 {
		t.Fatal("Update changed the caller's boxes")
	}
	checkBoxes(t, st, p, "after Update")
	checkBoxes(t, st, other, "after Update")

	// What a read returns is the caller's: changing it changes nothing stored.
	one, _, err := st.Segment(ctx, "a:0")
	if err != nil {
		t.Fatal(err)
	}
	one.Boxes[0].X0 = 999
	checkBoxes(t, st, p, "after a read's boxes were changed")

	st.Close()
	st = open(t, loc, "lib")
	checkBoxes(t, st, p, "after reopening")
	if c, ok := st.(compacter); ok {
		update(t, st, []store.Put{doc("x", 2, 1)}) // something to squeeze out
		update(t, st, nil, "x")
		if err := c.Compact(ctx); err != nil {
			t.Fatal(err)
		}
		checkBoxes(t, st, p, "after compaction")
		st.Close()
		st = open(t, loc, "lib")
		checkBoxes(t, st, p, "after compaction and reopening")
	}

	// Replaced by a version without boxes: none are left.
	plain := boxed("a")
	for i := range plain.Segments {
		plain.Segments[i].Boxes = nil
	}
	update(t, st, []store.Put{plain})
	checkBoxes(t, st, plain, "after replacing")
	checkBoxes(t, st, other, "after replacing another document")
	st.Close()
	st = open(t, loc, "lib")
	checkBoxes(t, st, plain, "after replacing and reopening")
}

func testBadBoxes(t *testing.T, h Harness) {
	ctx := context.Background()
	st, _ := fresh(t, h)
	update(t, st, []store.Put{boxed("keep")})
	before, _ := state(ctx, st)
	nan, inf := float32(math.NaN()), float32(math.Inf(-1))
	cases := map[string]func(b *store.Box){
		"NaN":              func(b *store.Box) { b.Y1 = nan },
		"infinity":         func(b *store.Box) { b.X0 = inf },
		"x0 > x1":          func(b *store.Box) { b.X0, b.X1 = b.X1+1, b.X0 },
		"y0 > y1":          func(b *store.Box) { b.Y0 = b.Y1 + 0.5 },
		"page 0":           func(b *store.Box) { b.Page = 0 },
		"negative page":    func(b *store.Box) { b.Page = -1 },
		"page after range": func(b *store.Box) { b.Page = 3 },
	}
	for name, spoil := range cases {
		bad := boxed("a")
		spoil(&bad.Segments[0].Boxes[1])
		err := st.Update(ctx, []store.Put{doc("good", 1, 1), bad}, []string{"keep"})
		if err == nil {
			t.Errorf("%s: Update accepted it", name)
		} else if want := "box 1"; !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %q does not name the box (%q)", name, err, want)
		}
	}
	if after, _ := state(ctx, st); !reflect.DeepEqual(before, after) {
		t.Fatalf("rejected batches changed the library: %v → %v", before, after)
	}
	checkBoxes(t, st, boxed("keep"), "after refused batches")
}
