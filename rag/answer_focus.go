package rag

import (
	"github.com/ibid-dev/ibid/rag/retrieve"
	"github.com/ibid-dev/ibid/store"
)

// focus is the place inside parent that matched best, as byte offsets
// [start, end) into parent.Text, from hits (a passage's Hits, best first):
// the first hit that is a child of parent (an index row whose Parent is
// parent.ID, with text of its own shorter than parent's). Its offsets in
// the document's text, taken relative to parent.Start, must fall inside
// parent.Text and select exactly the child's text; otherwise, or when no
// hit is a child of parent (plain neighbours absorbed by window merging,
// generated questions, a row mirroring the whole parent), there is no
// focus and both are 0.
func focus(parent store.Segment, hits []retrieve.Hit) (start, end int) {
	for _, h := range hits {
		c := h.Segment
		if c.Parent == "" || c.Parent != parent.ID || c.Text == "" || len(c.Text) >= len(parent.Text) {
			continue
		}
		a, b := c.Start-parent.Start, c.End-parent.Start
		if a < 0 || b <= a || b > len(parent.Text) || parent.Text[a:b] != c.Text {
			return 0, 0
		}
		return a, b
	}
	return 0, 0
}
