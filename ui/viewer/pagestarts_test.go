package viewer

import (
	"reflect"
	"testing"

	"github.com/ibid-dev/ibid/store"
)

// TestPageBreaks: a page that begins inside a passage breaks it at the
// word where the page's text begins, or at the next word when it begins
// inside one; pages without text that begin at the same place are named
// together; a CJK character is a word of its own; a page beginning in the
// last word, or outside the passage, is no break.
func TestPageBreaks(t *testing.T) {
	seg := func(text string, start, ps, pe int) store.Segment {
		return store.Segment{Text: text, Start: start, End: start + len(text), PageStart: ps, PageEnd: pe}
	}
	starts := func(s ...int) []int { return append(make([]int, 3), s...) } // pages 1–3 begin at 0
	for _, c := range []struct {
		name   string
		s      store.Segment
		starts []int
		want   []pageBreak
	}{
		{"at a word", seg("alpha beta gamma", 100, 4, 5), starts(100, 106), []pageBreak{{6, 5, 5}}},
		{"after white space", seg("alpha\n\nbeta gamma", 100, 4, 5), starts(100, 105), []pageBreak{{7, 5, 5}}},
		{"inside a word", seg("alpha beta gamma", 100, 4, 5), starts(100, 108), []pageBreak{{11, 5, 5}}},
		{"two pages", seg("alpha beta gamma delta", 100, 4, 6), starts(100, 106, 111), []pageBreak{{6, 5, 5}, {11, 6, 6}}},
		{"an empty page", seg("alpha beta gamma", 100, 4, 6), starts(100, 106, 106), []pageBreak{{6, 5, 6}}},
		{"in the last word", seg("alpha beta gamma", 100, 4, 5), starts(100, 113), nil},
		{"CJK", seg("写作而设计的工具", 100, 4, 5), starts(100, 106), []pageBreak{{6, 5, 5}}},
		{"one page", seg("alpha beta", 100, 4, 4), starts(100), nil},
		{"no starts", seg("alpha beta", 100, 4, 5), nil, nil},
		{"too few starts", seg("alpha beta", 100, 4, 5), starts(100), nil},
	} {
		if got := pageBreaks(c.s, c.starts); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
