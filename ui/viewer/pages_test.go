package viewer

import (
	"reflect"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/ibid-dev/ibid/store"
)

// TestReflow: a source's hard line breaks inside a paragraph go, the
// paragraph is wrapped at the width, blank lines between paragraphs and
// code stay as they are, list items keep their own lines.
func TestReflow(t *testing.T) {
	text := "Retrieval-augmented models cite\nthe passages they\nused.\n\n\n\nA second\nparagraph.\n\n```go\nx :=  1\n\ny := 2\n```\n- one\n- two\ncontinued\n\n    indented\n    code"
	got := reflow(text, 20)
	want := []string{
		"Retrieval-augmented",
		"models cite the",
		"passages they used.",
		"",
		"A second paragraph.",
		"",
		"```go",
		"x :=  1",
		"",
		"y := 2",
		"```",
		"",
		"- one",
		"- two continued",
		"",
		"    indented",
		"    code",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("reflow:\n%q\nwant\n%q", got, want)
	}
	for _, w := range []int{10, 33, 80} {
		for _, l := range reflow(strings.Repeat("word ", 50)+"\nnext line", w) {
			if ansi.StringWidth(l) > w {
				t.Errorf("at %d: %q is wider", w, l)
			}
		}
	}
}

// TestPageMarker: a marker where a page begins at a segment, one naming
// the pages a spanning passage runs into, none inside a page.
func TestPageMarker(t *testing.T) {
	seg := func(s, e int) store.Segment { return store.Segment{PageStart: s, PageEnd: e} }
	p := func(s store.Segment) *store.Segment { return &s }
	for _, c := range []struct {
		s    store.Segment
		prev *store.Segment
		want string
	}{
		{seg(1, 1), nil, "p. 1"},
		{seg(3, 3), p(seg(2, 2)), "p. 3"},
		{seg(3, 4), p(seg(2, 2)), "pp. 3–4"},
		{seg(3, 4), p(seg(2, 3)), "into p. 4"},
		{seg(3, 3), p(seg(2, 3)), ""},
		{seg(3, 3), p(seg(3, 3)), ""},
		{seg(0, 0), nil, ""},
	} {
		if got := pageMarker(c.s, c.prev); got != c.want {
			t.Errorf("%v after %v: %q, want %q", c.s, c.prev, got, c.want)
		}
	}
}
