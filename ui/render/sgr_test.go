package render

import (
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// styledCell is a printed byte and the SGR sequences in force for it
// (those since the last reset, in order): two lines that give the same
// cells draw the same thing.
type styledCell struct {
	c     byte
	style string
}

// styledCells decodes a line as a terminal applies SGR: a reset clears the
// style, any other SGR sequence adds to it. Other bytes (other escape
// sequences included) are cells. end is the style in force after the line.
func styledCells(l string) (cells []styledCell, end string) {
	var style string
	for i := 0; i < len(l); {
		if n := sgrLen(l[i:]); n > 0 {
			if seq := l[i : i+n]; seq == "\x1b[m" || seq == "\x1b[0m" {
				style = ""
			} else {
				style += seq
			}
			i += n
			continue
		}
		cells = append(cells, styledCell{l[i], style})
		i++
	}
	return cells, style
}

// sameDrawing fails t when a and b draw different cells or end in
// different states.
func sameDrawing(t *testing.T, a, b string) {
	t.Helper()
	ca, ea := styledCells(a)
	cb, eb := styledCells(b)
	if len(ca) != len(cb) || ea != eb {
		t.Fatalf("%q\ndraws differently from\n%q", b, a)
	}
	for i := range ca {
		if ca[i] != cb[i] {
			t.Fatalf("cell %d %q in %q\nwas %q in %q", i, cb[i], b, ca[i], a)
		}
	}
}

func TestCompactSGRCases(t *testing.T) {
	red, bold, reset, reset0 := "\x1b[31m", "\x1b[1m", "\x1b[m", "\x1b[0m"
	link := "\x1b]8;;https://x.org\x1b\\"
	for _, c := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{red + "a" + reset, red + "a" + reset},
		// dead pairs between words go, the reset stays
		{red + "a" + reset + red + reset + red + reset0 + "  ", red + "a" + reset0 + "  "},
		// the codes a chip writes again after itself, then a reset
		{bold + "[1]" + reset + red + bold + reset + red + " b", bold + "[1]" + reset + red + " b"},
		// a code left in force at the end is kept: the next line may rely on it
		{"a" + red, "a" + red},
		{"a" + reset + red, "a" + reset + red},
		// a reset combined with another attribute is not a reset
		{red + "\x1b[0;1m" + "a", red + "\x1b[0;1m" + "a"},
		// another escape sequence ends a run: the code before it stays
		{red + link + reset + "a", red + link + reset + "a"},
		// a broken sequence is text
		{"\x1b[31" + reset + "a", "\x1b[31" + reset + "a"},
	} {
		got := CompactSGR(c.in)
		if got != c.want {
			t.Errorf("CompactSGR(%q) = %q, want %q", c.in, got, c.want)
		}
		sameDrawing(t, c.in, got)
		if again := CompactSGR(got); again != got {
			t.Errorf("CompactSGR is not idempotent on %q: %q", got, again)
		}
	}
}

// TestCompactSGRRenderedAnswer compacts every line glamour and the chips
// draw for a long answer (headings, lists and paragraphs with nodes): each
// draws the same cells, and the whole is much shorter (glamour's trimmed
// padding leaves runs of dead pairs).
func TestCompactSGRRenderedAnswer(t *testing.T) {
	blocks := strings.Split(answerSource(600), "\n\n")
	for _, width := range []int{40, 98} {
		r := NewRenderer(width, testPalette)
		var before, after int
		first := 0
		for _, b := range blocks {
			for _, raw := range r.Render(b) {
				idx := first
				l := SwapChips(raw, func(k NodeKind, n int) string {
					s := testChips{}.Chip(k, n, idx == first)
					idx++
					return s
				})
				c := CompactSGR(l)
				sameDrawing(t, l, c)
				before, after = before+len(l), after+len(c)
			}
			first += CountPlaceholders(b)
		}
		if after*2 > before {
			t.Errorf("width %d: compacted lines are %d bytes of %d: expected less than half", width, after, before)
		}
		lines, _ := DrawChips(r.Render(blocks[1]), 0, -1, testChips{})
		for _, l := range lines {
			if CompactSGR(l) != l {
				t.Fatalf("width %d: DrawChips drew an uncompacted line %q", width, l)
			}
		}
		if !strings.Contains(strings.Join(lines, ""), "\x1b[") {
			t.Errorf("width %d: the drawn block has no style left", width)
		}
	}
}

// TestPackLines: a block's cached render is compacted and shares nothing
// with glamour's output: one text allocation for all its lines, in a slice
// with nothing hidden beyond its end.
func TestPackLines(t *testing.T) {
	out := "\x1b[31m\x1b[m\x1b[0m\n\x1b[1mtitle\x1b[m\x1b[1m\x1b[m   \nbody\n\x1b[0m"
	in := strings.Split(out, "\n")
	in = in[1:3] // as render drops blank lines at either end
	got := PackLines(in)
	if len(got) != 2 || cap(got) != 2 {
		t.Fatalf("PackLines gave %d lines, capacity %d; want 2, 2", len(got), cap(got))
	}
	if want := []string{"\x1b[1mtitle\x1b[m   ", "body"}; !slices.Equal(got, want) {
		t.Fatalf("PackLines = %q, want %q", got, want)
	}
	if unsafe.StringData(got[1]) != (*byte)(unsafe.Add(unsafe.Pointer(unsafe.StringData(got[0])), len(got[0]))) {
		t.Error("the lines are not one allocation")
	}
	outStart := uintptr(unsafe.Pointer(unsafe.StringData(out)))
	for _, l := range got {
		if p := uintptr(unsafe.Pointer(unsafe.StringData(l))); p >= outStart && p < outStart+uintptr(len(out)) {
			t.Errorf("line %q points into the renderer's output", l)
		}
	}
}
