package ui

import (
	"slices"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/ibid-dev/ibid/rag"
)

// TestTranscriptRedrawsOnlyWhatChanged: a transcript kept up to date
// incrementally (a new turn, an answer's end, a cancel, a selection, a
// resize redraw only the turns they change) shows exactly what a
// transcript drawing the same turns from scratch shows, and a new
// question does not draw the turns before it again.
func TestTranscriptRedrawsOnlyWhatChanged(t *testing.T) {
	t.Parallel()
	c := &common{Styles: newStyles(true), Keys: defaultKeyMap()}
	tr := newTranscript(c)
	tr.SetSize(90, 20)
	check := func(step string) {
		t.Helper()
		_ = tr.View()
		// drawn from scratch: blocks without their caches, glamour's renders
		// from tr's renderer (RenderBlock: by the blocks' text as they are
		// now, TestRenderBlockMemo), so that only glamour is not run again
		fresh := newTranscript(c)
		fresh.SetSize(tr.width, tr.height)
		fresh.sel = tr.sel
		fresh.r, fresh.rDark = tr.r, tr.rDark
		for _, tu := range tr.turns {
			var blocks []block
			for _, b := range tu.doc.blocks {
				blocks = append(blocks, block{start: b.start, end: b.end, firstNode: b.firstNode, nodes: b.nodes, sel: -2})
			}
			cp := &turn{question: tu.question, doc: answerDoc{src: tu.doc.src, nodes: tu.doc.nodes, blocks: blocks},
				streaming: tu.streaming, interrupted: tu.interrupted, err: tu.err, note: tu.note}
			cp.doc.text.WriteString(tu.doc.text.String())
			fresh.turns = append(fresh.turns, cp)
		}
		fresh.sync()
		if !slices.Equal(tr.stable, fresh.stable) {
			t.Fatalf("%s: %d lines drawn; from scratch %d, or they differ", step, len(tr.stable), len(fresh.stable))
		}
		if !slices.Equal(tr.nodes, fresh.nodes) || !slices.Equal(tr.turnLine, fresh.turnLine) {
			t.Fatalf("%s: nodes or turn lines differ from a drawing from scratch", step)
		}
	}
	stream := func(words int, end bool) {
		for i, e := range benchAnswer(words) {
			if e.Type == rag.EventDone {
				break
			}
			tr.apply(e)
			if i%97 == 0 {
				_ = tr.View() // frames while it streams
			}
		}
		if end {
			tr.end(nil)
		}
	}
	ask := func(q string, words int, end bool) { tr.begin(q, 0); stream(words, end) }
	ask("first question", 300, true)
	check("one answer")
	ask("second question", 250, true)
	check("two answers")

	tr.selectNode(2) // in the first answer
	check("a node of the first answer selected")
	tr.selectNode(tr.totalNodes() - 1) // in the second
	check("a node of the second answer selected")
	first := tr.turns[0].doc.blocks[0].fitted

	tr.begin("a third question, long enough to wrap at ninety columns: does the effect hold across sites and samples?", 0)
	if tr.redrawFrom != 1 {
		t.Errorf("a new question redraws from turn %d; want 1 (the one whose node was selected)", tr.redrawFrom)
	}
	stream(200, false)
	check("a third answer streaming")
	tr.interrupt()
	check("the third answer cancelled")
	if got := tr.turns[0].doc.blocks[0].fitted; &got[0] != &first[0] {
		t.Error("the first answer's lines were fitted again though nothing in it changed")
	}
	tr.begin("fourth", 0)
	if tr.redrawFrom != 3 {
		t.Errorf("with nothing selected, a new question redraws from turn %d; want 3 (itself)", tr.redrawFrom)
	}
	tr.end(nil)
	check("an empty fourth answer")

	for ti, tu := range tr.turns {
		for bi, b := range tu.doc.blocks {
			if b.lines != nil || b.fitted == nil && len(b.raw) > 0 {
				t.Fatalf("turn %d block %d keeps its chip lines beside its fitted ones", ti, bi)
			}
		}
	}

	tr.SetSize(70, 20)
	check("resized")
	// below 12 columns answers wrap at 10 whatever the width: the blocks
	// are fitted again from lines the transcript had dropped
	tr.SetSize(8, 20)
	check("resized to 8")
	tr.SetSize(11, 20)
	check("resized to 11")
	for _, l := range tr.stable {
		if w := ansi.StringWidth(l); w != 11 {
			t.Fatalf("a line %d wide at width 11: %q", w, l)
		}
	}
}
