package render

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ibid-dev/ibid/internal/synthtext"
)

// testPalette is the chat's dark palette (any would do: no test here
// depends on a colour).
var testPalette = Palette{
	Dark: true, Text: lipgloss.Color("#E6E6E6"), Dim: lipgloss.Color("#A8A8A8"), Accent: lipgloss.Color("#7CBBFF"),
	SelFg: lipgloss.Color("#0B1520"), SelBg: lipgloss.Color("#7CBBFF"), CodeBg: lipgloss.Color("#333333"),
}

// testChips draws chips as the chat does: coloured, bold when selected.
type testChips struct{}

func (testChips) Chip(k NodeKind, n int, selected bool) string {
	st := lipgloss.NewStyle().Foreground(lipgloss.Color("#7CBBFF")).Background(lipgloss.Color("#1B2F47"))
	if selected {
		st = st.Bold(true)
	}
	return st.Render(ChipText(k, n))
}

// answerSource is an answer's Markdown of about words words, nodes in
// (placeholders): a heading, then paragraphs of synthetic prose and short
// lists, blocks one blank line apart. The same words give the same text.
func answerSource(words int) string {
	r := rand.New(rand.NewPCG(uint64(words), 7))
	paras := synthtext.Segments(words/60+1, 60)
	var b strings.Builder
	b.WriteString("## Findings\n\n")
	n := 0
	node := func() string {
		n++
		if r.IntN(5) == 0 {
			return Placeholder(Inferred, 1+r.IntN(n))
		}
		return Placeholder(Cited, 1+r.IntN(n))
	}
	for i, p := range paras {
		ws := strings.Fields(p)
		for j := 11; j < len(ws); j += 12 {
			ws[j] += " " + node()
		}
		b.WriteString(strings.Join(ws, " ") + "\n\n")
		if i%3 == 1 {
			for k := range 3 {
				fmt.Fprintf(&b, "- %s %s %s\n", ws[k], ws[k+3], node())
			}
			b.WriteString("\n")
		}
	}
	return strings.TrimSuffix(b.String(), "\n\n")
}

func TestTailWrapMatchesGreedy(t *testing.T) {
	text := "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau"
	for w := 10; w < 40; w += 7 {
		var tw tailWrap
		tw.reset(w)
		for i := 0; i < len(text); i += 3 {
			tw.feed([]byte(text[i:min(i+3, len(text))]))
		}
		got, widths := tw.view()
		want := strings.Split(ansi.Wordwrap(text, w, ""), "\n")
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("width %d:\n%q\nwant\n%q", w, got, want)
		}
		for i, l := range got {
			if ansi.StringWidth(l) != widths[i] || widths[i] > w {
				t.Errorf("width %d line %d: width %d recorded %d", w, i, ansi.StringWidth(l), widths[i])
			}
		}
	}
}

func TestPlaceholdersKeepWidth(t *testing.T) {
	for _, k := range []NodeKind{Cited, Inferred, Unknown, Unsupported} {
		for _, n := range []int{1, 9, 10, 123} {
			p, c := Placeholder(k, n), ChipText(k, n)
			if ansi.StringWidth(p) != ansi.StringWidth(c) {
				t.Errorf("%v %d: placeholder %q width %d, chip %q width %d", k, n, p, ansi.StringWidth(p), c, ansi.StringWidth(c))
			}
			if gk, gn, size := parsePlaceholder(p); size != len(p) || gk != k || (k != Unknown && gn != n) {
				t.Errorf("parse %q: %v %d %d", p, gk, gn, size)
			}
		}
	}
}

// TestChipsSurviveGlamour: placeholders come through headings, lists and
// tables whole, so every node gets its chip.
func TestChipsSurviveGlamour(t *testing.T) {
	src := "# Title ⟦1⟧\n\n- item ⟦2✗⟧\n- *emph* ⟦?⟧\n\n| a | b |\n|---|---|\n| x ⟦3⟧ | ⦃4⦄ |\n"
	lines := NewRenderer(60, testPalette).Render(src)
	joined := strings.Join(lines, "\n")
	if got := CountPlaceholders(joined); got != 5 {
		t.Errorf("%d placeholders survived, want 5:\n%s", got, joined)
	}
}

// TestChipKeepsStyleAfter: the text after a chip gets the colour codes
// that were in force before it again.
func TestChipKeepsStyleAfter(t *testing.T) {
	line := "\x1b[38;5;252mbefore ⟦1⟧ after\x1b[0m"
	got := SwapChips(line, func(NodeKind, int) string { return "\x1b[1m[1]\x1b[0m" })
	want := "\x1b[38;5;252mbefore \x1b[1m[1]\x1b[0m\x1b[38;5;252m after\x1b[0m"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// TestTailWrapWaitsForWholeRunes: a rune split across chunks is drawn
// whole once its end arrives, never as replacement characters.
func TestTailWrapWaitsForWholeRunes(t *testing.T) {
	text := "naïve café ⟦1⟧ über"
	var tw tailWrap
	tw.reset(40)
	src := []byte(text)
	for i := 1; i <= len(src); i++ {
		tw.feed(src[tw.consumed:i])
	}
	got, _ := tw.view()
	if strings.Join(got, "|") != text {
		t.Errorf("got %q, want %q", got, text)
	}
}

// TestRenderNeverOverflows: glamour's output is wrapped again where it
// overflows its width (a list item's bullet), so no word is cut.
func TestRenderNeverOverflows(t *testing.T) {
	src := "- 827,526 (2024 estimate, consistent across Wikipedia, California Demographics, and World Population Review)\n"
	lines := NewRenderer(78, testPalette).Render(src)
	for _, l := range lines {
		if w := ansi.StringWidth(l); w > 78 {
			t.Errorf("line %d wide: %q", w, ansi.Strip(l))
		}
	}
	if got := strings.Join(strings.Fields(ansi.Strip(strings.Join(lines, " "))), " "); !strings.Contains(got, "Demographics, and World") {
		t.Errorf("words lost: %q", got)
	}
}

// TestRenderBlockMemo: RenderBlock gives what a fresh renderer gives for
// every source, asked in any order and again, sources that differ only
// at their end or by one byte included; a source asked again costs no
// glamour while it is among the last blockMemo, and is rendered again
// (and the same) once more than that came after it.
func TestRenderBlockMemo(t *testing.T) {
	t.Parallel()
	srcs := []string{
		"A paragraph of words.\n\n",
		"A paragraph of words!\n\n",
		"A paragraph of words. And more of them.\n\n",
		"## A heading\n\n",
		"- an item\n- another **bold** one\n",
		"| a | b |\n|---|---|\n| 1 | 2 |\n",
		"A paragraph of words.\n",
	}
	r := NewRenderer(30, testPalette)
	check := func(src string, cost bool) {
		t.Helper()
		before := r.Bytes
		got := r.RenderBlock(src)
		if want := PackLines(NewRenderer(30, testPalette).Render(src)); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%q: drawn %q, want %q", src, got, want)
		}
		if spent := r.Bytes != before; spent != cost {
			t.Errorf("%q: glamour ran %v, want %v", src, spent, cost)
		}
	}
	for _, s := range srcs {
		check(s, true)
	}
	for i := len(srcs) - 1; i >= 0; i-- {
		check(srcs[i], false)
	}
	for i := range blockMemo {
		r.RenderBlock(fmt.Sprintf("Filler %d.\n", i))
	}
	check(srcs[0], true)
	check(srcs[0], false)
}

// TestRenderBreaksLongWords: no rendered line is wider than the width,
// a word longer than a line (in a heading, after its margin; in a list
// item; in a link) included.
func TestRenderBreaksLongWords(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("g", 200)
	for _, w := range []int{30, 60, 104} {
		r := NewRenderer(w, testPalette)
		for _, src := range []string{"# Heading" + long + " **x** and more\n", "## " + long + "\n", "- item " + long + " end\n", "See [a link](http://example.org/" + long + ") here.\n"} {
			for i, l := range r.Render(src) {
				if lw := ansi.StringWidth(l); lw > w {
					t.Errorf("width %d, %.20q: line %d is %d wide", w, src, i, lw)
				}
			}
		}
	}
}
