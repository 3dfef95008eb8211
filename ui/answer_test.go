package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/ui/render"
)

// drawAll finishes a copy of the document's drawing: every block and the
// tail, ANSI stripped.
// drawAll draws d's blocks and tail with r, as the transcript does.
func drawAll(d *answerDoc, r *render.Renderer) string {
	st := newStyles(true)
	width := r.Width()
	var out []string
	for i := range d.blocks {
		out = append(out, d.drawBlock(i, r, st, -1).lines...)
	}
	tl, _ := d.drawTail(width, "", st, -1, r)
	for _, l := range tl {
		out = append(out, strings.TrimRight(l, " "))
	}
	return ansi.Strip(strings.Join(out, "\n"))
}

// TestChunkingDoesNotMatter: an answer fed whole and split at every
// position into two chunks draws the same, streaming and finished.
func TestChunkingDoesNotMatter(t *testing.T) {
	t.Parallel()
	src := "## Head\n\nA para with ⟦1⟧ and more text that wraps around the width.\n\n```\ncode\n\nstill code\n```\n\n- a\n- b\n\n| x | y |\n|---|---|\n| 1 | 2 |\n\nend"
	whole := &answerDoc{}
	whole.addText(src)
	wantStream := drawAll(whole, render.NewRenderer(30, darkTheme.palette()))
	whole.finish()
	wantDone := drawAll(whole, render.NewRenderer(30, darkTheme.palette()))
	// one renderer for all the splits, as the transcript keeps one: a
	// block whose source is the whole answer's comes from its memo, one
	// split differently is rendered and compared
	r := render.NewRenderer(30, darkTheme.palette())
	for i := 1; i < len(src); i++ {
		if !utfStart(src, i) {
			continue
		}
		d := &answerDoc{}
		d.addText(src[:i])
		_ = drawAll(d, r) // a frame in between
		d.addText(src[i:])
		if got := drawAll(d, r); got != wantStream {
			t.Fatalf("split at %d: streaming draw differs:\n%s\n--- want\n%s", i, got, wantStream)
		}
		d.finish()
		if got := drawAll(d, r); got != wantDone {
			t.Fatalf("split at %d: finished draw differs", i)
		}
	}
	if len(whole.blocks) != 6 {
		t.Errorf("%d blocks, want 6 (heading, para, fence with a blank line, list, table, end)", len(whole.blocks))
	}
}

func utfStart(s string, i int) bool { return i == len(s) || s[i]&0xC0 != 0x80 }

func TestInferredNodePlacedAtParagraphEnd(t *testing.T) {
	t.Parallel()
	var d answerDoc
	d.applyEvent(rag.Event{Type: rag.EventText, Text: "First para.\n\nSecond para."})
	d.applyEvent(rag.Event{Type: rag.EventRef, Number: 1, Inferred: true, Offset: len("First para.\n\n")})
	d.applyEvent(rag.Event{Type: rag.EventRef, Number: 2, Inferred: true, Offset: len("First para.\n\nSecond para.")})
	d.finish()
	if got, want := string(d.src), "First para.⦃1⦄\n\nSecond para.⦃2⦄"; got != want {
		t.Errorf("source %q, want %q", got, want)
	}
	st := newStyles(true)
	lines := d.drawBlock(0, render.NewRenderer(40, darkTheme.palette()), st, -1).lines
	// the chip's closing reset may merge with the codes after it (compactSGR)
	chip := strings.TrimSuffix(st.Chip(render.Inferred, 1, false), "\x1b[m")
	if !strings.Contains(strings.Join(lines, ""), chip) {
		t.Errorf("inferred chip not drawn in its style: %q", lines)
	}
}

// TestInferredRedrawsItsBlock: an inferred footnote placed in a finished
// answer rebuilds it; the block that holds the footnote is rendered again
// and shows its chip, the others come from the renderer's memo (no
// glamour) and draw as before.
func TestInferredRedrawsItsBlock(t *testing.T) {
	t.Parallel()
	text := "## First\n\nOne para with **bold**.\n\nSecond para.\n\n- a list\n- of two"
	var d answerDoc
	d.applyEvent(rag.Event{Type: rag.EventText, Text: text})
	d.finish()
	r := render.NewRenderer(40, darkTheme.palette())
	before := drawAll(&d, r)
	d.applyEvent(rag.Event{Type: rag.EventRef, Number: 1, Inferred: true, Offset: len("## First\n\nOne para with **bold**.\n\nSecond para.")})
	bytes := r.Bytes
	after := drawAll(&d, r)
	if want := int64(len("Second para.") + len(render.Placeholder(render.Inferred, 1)) + len("\n\n")); r.Bytes-bytes != want {
		t.Errorf("rendered %d bytes after the footnote came, want %d (its block only)", r.Bytes-bytes, want)
	}
	if want := strings.Replace(before, "Second para.", "Second para."+render.ChipText(render.Inferred, 1), 1); after != want {
		t.Errorf("drawn after the footnote:\n%s\nwant\n%s", after, want)
	}
	if fresh := drawAll(&d, render.NewRenderer(40, darkTheme.palette())); after != fresh {
		t.Errorf("drawn from the memo:\n%s\nfrom scratch:\n%s", after, fresh)
	}
}

// TestStreamingMarkdownSteady: the open block is drawn as Markdown while
// it grows (bold shown without its markers, a heading styled before its
// block closes), and from one frame to the next no line but the last
// changes: words stay where they were drawn.
func TestStreamingMarkdownSteady(t *testing.T) {
	t.Parallel()
	text := "A long paragraph that streams in small chunks, with **bold words** and `inline code` in it, " +
		"and a reference ⟦1⟧ that should stay put while the words wrap around the narrow width of the pane, " +
		"then more **strong text** and plain words until the paragraph is long enough to render several times over."
	st := newStyles(true)
	r := render.NewRenderer(40, darkTheme.palette())
	d := &answerDoc{}
	var prev []string
	renders := 0
	for i := 0; i < len(text); i += 5 {
		d.addText(text[i:min(i+5, len(text))])
		before := r.Bytes
		tl, nl := d.drawTail(40, "", st, -1, r)
		if r.Bytes != before {
			renders++
		}
		cur := make([]string, len(tl))
		for j, l := range tl {
			// a code span's backticks become padding of the same width
			cur[j] = strings.TrimRight(strings.NewReplacer("`", " ", "\u00a0", " ").Replace(ansi.Strip(l)), " ")
			if ansi.StringWidth(l) != 40 {
				t.Fatalf("frame at %d: line %d is %d wide, want 40", i, j, ansi.StringWidth(l))
			}
		}
		for j := 0; j+1 < len(prev); j++ {
			if j >= len(cur) || cur[j] != prev[j] {
				t.Fatalf("frame at byte %d: line %d changed from %q to %q", i, j, prev[j], cur[min(j, len(cur)-1)])
			}
		}
		if strings.Contains(text[:min(i+5, len(text))], "⟦1⟧") && len(nl) != 1 {
			t.Fatalf("frame at %d: %d nodes placed, want 1", i, len(nl))
		}
		prev = cur
	}
	joined := strings.Join(prev, "\n")
	if strings.Contains(joined, "**bold") || !strings.Contains(joined, "bold words") {
		t.Errorf("bold not rendered while streaming:\n%s", joined)
	}
	if renders < 2 || r.Bytes > int64(4*len(text)) {
		t.Errorf("%d renders, %d bytes through glamour for a %d-byte block: want a few renders and at most 4×", renders, r.Bytes, len(text))
	}

	h := &answerDoc{}
	h.addText("## A heading still open\nand text under it that goes on for a while past the first render step")
	tl, _ := h.drawTail(40, "", st, -1, r)
	if tl[0] == ansi.Strip(tl[0]) {
		t.Errorf("heading drawn unstyled while its block is open: %q", tl[0])
	}
}

// TestStreamingListBullets: a list item still streaming shows the bullet
// the finished list will show, at the same place.
func TestStreamingListBullets(t *testing.T) {
	t.Parallel()
	st := newStyles(true)
	d := &answerDoc{}
	d.addText("- first item\n- sec")
	tl, _ := d.drawTail(40, "", st, -1, nil)
	got := ansi.Strip(strings.Join(tl, "\n"))
	if !strings.Contains(got, "• first item") || !strings.Contains(got, "• sec") || strings.Contains(got, "- ") {
		t.Errorf("streaming list drawn as %q", got)
	}
	d.addText("ond - not a bullet\n\n")
	d.finish()
	r := render.NewRenderer(40, darkTheme.palette())
	var done []string
	for i := range d.blocks {
		done = append(done, d.drawBlock(i, r, st, -1).lines...)
	}
	if fin := ansi.Strip(strings.Join(done, "\n")); !strings.Contains(fin, "• first item") || !strings.Contains(fin, "second - not a bullet") {
		t.Errorf("finished list drawn as %q", fin)
	}
}
