package pdf

import "math"

// rowIndex finds the lines on the same row as a given line (sameRow)
// among the lines added to it, looking only at lines whose vertical
// extent meets the given line's: lines are filed in bands of rowBand
// points, each under every band it covers, so a page's rows cost about
// their own lines, not the page's.
//
// Invariant: every line added is filed under each band its extent
// [y0, y1] meets, or, when it covers more than maxBands bands, in tall,
// which every search reads.
type rowIndex struct {
	bands  map[int32][]*textLine
	lo, hi int32 // the lowest and highest band filed under
	tall   []*textLine
}

const (
	rowBand  = 4 // points: about a line of small type
	maxBands = 64
)

func newRowIndex(lines []*textLine) *rowIndex {
	ix := &rowIndex{bands: map[int32][]*textLine{}, lo: math.MaxInt32, hi: math.MinInt32}
	for _, l := range lines {
		ix.add(l)
	}
	return ix
}

// span is the bands a line's extent meets; ok is false for a line too
// tall (or too far off the page) to file by band.
func span(l *textLine) (lo, hi int32, ok bool) {
	a, b := math.Floor(float64(l.y0)/rowBand), math.Floor(float64(l.y1)/rowBand)
	if !(a >= -1e9 && b <= 1e9 && b-a < maxBands) {
		return 0, 0, false
	}
	return int32(a), int32(b), true
}

func (ix *rowIndex) add(l *textLine) {
	lo, hi, ok := span(l)
	if !ok {
		ix.tall = append(ix.tall, l)
		return
	}
	for k := lo; k <= hi; k++ {
		ix.bands[k] = append(ix.bands[k], l)
	}
	ix.lo, ix.hi = min(ix.lo, lo), max(ix.hi, hi)
}

// any reports whether f holds for some line on l's row, calling f on
// each such line at most once, until it does.
func (ix *rowIndex) any(l *textLine, f func(*textLine) bool) bool {
	on := func(o *textLine) bool { return sameRow(o.y0, o.y1, l.y0, l.y1) && f(o) }
	for _, o := range ix.tall {
		if on(o) {
			return true
		}
	}
	lo, hi, ok := span(l)
	if !ok {
		// A tall line: every band filed, each line once.
		for k := ix.lo; k <= ix.hi; k++ {
			for _, o := range ix.bands[k] {
				if first, _, _ := span(o); first == k && on(o) {
					return true
				}
			}
		}
		return false
	}
	for k := lo; k <= hi; k++ {
		for _, o := range ix.bands[k] {
			// Each line once: in l's first band, or in its own.
			if first, _, _ := span(o); (k == lo || first == k) && on(o) {
				return true
			}
		}
	}
	return false
}
