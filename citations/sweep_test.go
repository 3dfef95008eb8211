package citations

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/internal/figures"
)

// sweepPieces is the alphabet of tricky pieces the sweep builds strings
// from.
var sweepPieces = []string{"[", "]", "【", "】", "source_", "1", ",", "`", "\n", "x"}

// TestSweep feeds every string of up to N pieces, in every mode's inline
// path, whole, one byte at a time and cut at every piece boundary, and
// compares with Render. N is 4 by default (11,111 strings, seconds), 5
// with IBID_FIGURES=1 as CI runs it (111,111 strings, a minute under
// -race on a loaded machine), 3 with -short; set IBID_SWEEP=8 for the
// full sweep of 111,111,111 strings (minutes).
func TestSweep(t *testing.T) {
	t.Parallel()
	n := 4
	if figures.Enabled() {
		n = 5
	} else if testing.Short() {
		n = 3
	}
	if s := os.Getenv("IBID_SWEEP"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("IBID_SWEEP=%q: want a number", s)
		}
		n = v
	}
	opt := Options{Offered: offered(1)}
	idx := make([]int, 0, n)
	var b strings.Builder
	count := 0
	var rec func()
	rec = func() {
		b.Reset()
		cuts := make([]int, 0, len(idx))
		for _, i := range idx {
			b.WriteString(sweepPieces[i])
			cuts = append(cuts, b.Len())
		}
		text := b.String()
		count++
		want := show(Render(ModeInline, text, opt))
		if got := show(stream(t, ModeInline, text, opt, bytewise(len(text)))); got != want {
			t.Fatalf("%q byte by byte:\n got %s\nwant %s", text, got, want)
		}
		if got := show(stream(t, ModeInline, text, opt, at(cuts...))); got != want {
			t.Fatalf("%q by pieces:\n got %s\nwant %s", text, got, want)
		}
		if len(idx) == n {
			return
		}
		for i := range sweepPieces {
			idx = append(idx, i)
			rec()
			idx = idx[:len(idx)-1]
		}
	}
	rec()
	t.Logf("%d strings of up to %d pieces", count, n)
}
