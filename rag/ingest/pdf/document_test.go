package pdf

import (
	"testing"

	"github.com/ibid-dev/ibid/store"
)

func TestPDFBoxFlipsAndClamps(t *testing.T) {
	// A line with its baseline 100 points up a Letter page, glyphs from
	// 98 to 110, on the third page.
	got := box(2, 612, 792, 72, 98, 300, 110)
	if want := (store.Box{Page: 3, X0: 72, Y0: 682, X1: 300, Y1: 694}); got != want {
		t.Errorf("box = %+v, want %+v", got, want)
	}
	// Glyphs that poke out of the page are cut at its edges.
	got = box(0, 612, 792, -3, -2, 615, 800)
	if want := (store.Box{Page: 1, X0: 0, Y0: 0, X1: 612, Y1: 792}); got != want {
		t.Errorf("box = %+v, want %+v", got, want)
	}
}
