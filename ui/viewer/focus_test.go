package viewer

import (
	"reflect"
	"strings"
	"testing"
)

// TestLineSpans: each reflowed line is found in the source text, words in
// order, whatever reflow joined, wrapped, hyphen-broke or cut.
func TestLineSpans(t *testing.T) {
	text := "  Retrieval-augmented models cite\nthe passages they\nused, well-known\r\nfacts.\n\n\n" +
		"Anextraordinarilylongwordthatmustbecut here.\n\n```go\nx :=  1\n\ny := 2\n```\n- one\n- two\ncontinued\n\n    indented\n    code"
	for _, w := range []int{8, 12, 20, 80} {
		lines := reflow(text, w)
		spans := lineSpans(text, lines)
		prev := 0
		for i, l := range lines {
			sp := spans[i]
			if strings.TrimSpace(l) == "" {
				if sp != [2]int{-1, -1} {
					t.Errorf("width %d: blank line %d placed at %v", w, i, sp)
				}
				continue
			}
			if sp[0] < prev || sp[1] <= sp[0] {
				t.Errorf("width %d: line %d %q at %v, after %d", w, i, l, sp, prev)
				continue
			}
			if got := strings.Fields(text[sp[0]:sp[1]]); !reflect.DeepEqual(got, strings.Fields(l)) {
				t.Errorf("width %d: line %d %q placed on %q", w, i, l, text[sp[0]:sp[1]])
			}
			prev = sp[1]
		}
	}
}

// TestFocusLines: the lines showing a byte of the focus are marked, a
// blank line inside it too, and nothing else.
func TestFocusLines(t *testing.T) {
	text := "one two three four five six\n\nseven eight nine ten eleven twelve"
	lines := reflow(text, 12) // "one two", "three four", "five six", "", "seven eight", "nine ten", "eleven", "twelve"
	at := func(w string) int { return strings.Index(text, w) }
	for _, c := range []struct {
		a, b int
		want []bool
	}{
		{at("four"), at("four") + 4, []bool{false, true, false, false, false, false, false, false}},
		{at("ree"), at("five") + 1, []bool{false, true, true, false, false, false, false, false}},
		{at("six"), at("eight"), []bool{false, false, true, true, true, false, false, false}},
		{at("six") + 3, at("seven"), []bool{false, false, false, false, false, false, false, false}},
		{0, len(text), []bool{true, true, true, true, true, true, true, true}},
	} {
		if got := focusLines(text, lines, c.a, c.b); !reflect.DeepEqual(got, c.want) {
			t.Errorf("focus %q on %q: %v, want %v", text[c.a:c.b], lines, got, c.want)
		}
	}
}

// TestFocusRow: the focus begins a third down the view, higher when it
// would not fit below, never on the first row of a view of some height.
func TestFocusRow(t *testing.T) {
	for _, c := range []struct{ n, h, want int }{{3, 18, 6}, {12, 18, 6}, {14, 18, 4}, {40, 18, 1}, {1, 2, 0}} {
		if got := focusRow(c.n, c.h); got != c.want {
			t.Errorf("focusRow(%d, %d) = %d, want %d", c.n, c.h, got, c.want)
		}
	}
}

// TestFocusSpan: the focus is drawn to the byte, not to the line: a
// sentence that ends inside a line (Chinese text has no spaces to wrap
// at) stops where it ends, and one that starts inside a line starts there.
func TestFocusSpan(t *testing.T) {
	for _, c := range []struct {
		text, focus string
		width       int
	}{
		{"蜂蜜在春天采集。蜂螨传播病毒，危害蜂群。蜂王在夏天更替。", "蜂螨传播病毒，危害蜂群。", 80},
		{"蜂蜜在春天采集。蜂螨传播病毒，危害蜂群。蜂王在夏天更替。", "蜂螨传播病毒，危害蜂群。", 12},
		{"Bees forage in spring. Varroa mites spread\ndeformed wing virus. Queens are replaced.", "Varroa mites spread\ndeformed wing virus.", 30},
		{"Brain–derived factor (BDNF) – a review. We show that ζ rises.", "We show that ζ rises.", 80},
	} {
		a := strings.Index(c.text, c.focus)
		b := a + len(c.focus)
		lines := reflow(c.text, c.width)
		spans := lineSpans(c.text, lines)
		var got []string
		for i, l := range lines {
			if x0, x1 := focusSpan(c.text, l, spans[i][0], a, b); x0 < x1 {
				got = append(got, l[x0:x1])
			}
		}
		if strings.Join(strings.Fields(strings.Join(got, "")), "") != strings.Join(strings.Fields(c.focus), "") {
			t.Errorf("width %d: focus drawn %q, want %q (lines %q)", c.width, got, c.focus, lines)
		}
	}
}
