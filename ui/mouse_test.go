package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// find returns the cell where s first appears on the screen (after skip
// lines), the way a user would aim the pointer.
func find(t *testing.T, scr, s string, skip int) (x, y int) {
	t.Helper()
	for i, l := range strings.Split(scr, "\n") {
		if i < skip {
			continue
		}
		if j := strings.Index(l, s); j >= 0 {
			return ansi.StringWidth(l[:j]), i
		}
	}
	t.Fatalf("%q not on screen:\n%s", s, scr)
	return 0, 0
}

func click(x, y int) tea.MouseClickMsg {
	return tea.MouseClickMsg{X: x, Y: y, Button: tea.MouseLeft}
}

// TestMouse: a click on a chip selects it and a second opens its source; a
// click on a Sources entry does the same; the wheel scrolls the pane under
// the pointer.
func TestMouse(t *testing.T) {
	t.Parallel()
	d := newDrive(t, newFakeBackend(sampleAnswer), 160, 48)
	d.typeText("does the effect hold?")
	d.send(press("enter"))
	x, y := find(t, d.screen(), "[2]", 0)
	d.send(click(x+1, y))
	if _, nd, ok := d.m.tr.selected(); !ok || nd.num != 2 || d.m.focus != focusTranscript {
		t.Fatalf("click on [2]: selected %v %+v, focus %d", ok, nd, d.m.focus)
	}
	d.send(click(x, y))
	if !d.m.vw.IsOpen() || d.m.vw.Source().Number != 2 {
		t.Fatalf("second click did not open [2] in the viewer:\n%s", d.screen())
	}
	d.send(press("esc"))
	x, y = find(t, d.screen(), "[3] Paper 3", 0)
	d.send(click(x+5, y))
	if d.m.focus != focusSources || d.m.src.cursor != 2 || d.m.vw.IsOpen() {
		t.Fatalf("click on the third source: focus %d cursor %d viewer %v", d.m.focus, d.m.src.cursor, d.m.vw.IsOpen())
	}
	d.send(click(x+5, y+1)) // the entry's second line
	if !d.m.vw.IsOpen() || d.m.vw.Source().Number != 3 {
		t.Fatalf("second click did not open source 3:\n%s", d.screen())
	}

	d = threeAnswers(t, 80, 24)
	before := d.m.tr.offset
	d.send(tea.MouseWheelMsg{X: 10, Y: 5, Button: tea.MouseWheelUp})
	if d.m.tr.offset != before-wheelLines || d.m.tr.follow {
		t.Errorf("wheel up: offset %d → %d, follow %v", before, d.m.tr.offset, d.m.tr.follow)
	}
	d.send(tea.MouseWheelMsg{X: 10, Y: 22, Button: tea.MouseWheelUp}) // over the status line: nothing
	if d.m.tr.offset != before-wheelLines {
		t.Errorf("wheel outside the body scrolled the transcript")
	}
}

// TestTooltip: a selected chip shows its source's title, page and snippet
// next to it, below the chip.
func TestTooltip(t *testing.T) {
	t.Parallel()
	d := newDrive(t, newFakeBackend(sampleAnswer), 160, 48)
	d.typeText("q")
	d.send(press("enter"))
	d.send(press("tab"))
	d.send(press("]"))
	scr := d.screen()
	x, y := find(t, scr, "[1] and replicates", 0)
	tx, ty := find(t, scr, "[1] Paper 2 · p. 4", 0)
	if ty != y+1 || tx < x || tx > x+2 {
		t.Errorf("tooltip at %d,%d, chip at %d,%d:\n%s", tx, ty, x, y, scr)
	}
	if !strings.Contains(scr, "Passage 3 of paper 2") {
		t.Errorf("tooltip lacks the snippet:\n%s", scr)
	}
	d.send(press("shift+tab")) // focus leaves the transcript: no tooltip
	if strings.Contains(d.screen(), "[1] Paper 2 · p. 4") {
		t.Error("tooltip shown without focus on the transcript")
	}
}

// TestQuotedAdd: /add takes quoted and backslash-escaped paths.
func TestQuotedAdd(t *testing.T) {
	t.Parallel()
	b := newFakeBackend(sampleAnswer)
	d := newDrive(t, b, 100, 30)
	d.typeText(`/add "my papers/a b.pdf" notes\ 2024.md 'it''s'`)
	d.send(press("enter"))
	if len(b.added) != 1 || strings.Join(b.added[0], "|") != "my papers/a b.pdf|notes 2024.md|its" {
		t.Errorf("added %q", b.added)
	}
	d.typeText(`/add "unclosed`)
	d.send(press("enter"))
	if scr := d.screen(); !strings.Contains(scr, "a quote is not closed") || d.m.in.Value() != `/add "unclosed` {
		t.Errorf("unclosed quote: input %q, screen:\n%s", d.m.in.Value(), scr)
	}
}

func TestSplitArgs(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`/add a b`:              "/add|a|b",
		`/add  "a b"  c`:        "/add|a b|c",
		`/add a\ b`:             "/add|a b",
		`/add 'a "b" \c'`:       `/add|a "b" \c`,
		`/add "a \"q\" b"`:      `/add|a "q" b`,
		`/add ""`:               "/add|",
		`/add C:\\x`:            `/add|C:\x`,
		`/export ~/out file.md`: "/export|~/out|file.md",
	} {
		got, err := splitArgs(in)
		if err != nil || strings.Join(got, "|") != want {
			t.Errorf("%s: %q %v, want %q", in, got, err, want)
		}
	}
}

// TestCommandHeldWhileStreaming: a slash command or a question sent while
// an answer streams stays in the input with a note; the note clears when
// the answer ends and the command then runs with enter.
func TestCommandHeldWhileStreaming(t *testing.T) {
	t.Parallel()
	b := newFakeBackend(sampleAnswer)
	b.gate = make(chan int)
	tm := newTM(t, b, 120, 30)
	tm.Type("q")
	tm.Send(press("enter"))
	b.gate <- 1
	waitScreen(t, tm, "answering")
	tm.Type("/new")
	tm.Send(press("enter"))
	waitScreen(t, tm, "┃ /new", "/new waits for the answer to end")
	close(b.gate) // let the rest of the answer through
	scr := waitScreen(t, tm, "In short", "┃ /new")
	for i := 0; strings.Contains(scr, "answering"); i++ {
		if i == 100 {
			t.Fatalf("the answer never ended:\n%s", scr)
		}
		time.Sleep(20 * time.Millisecond)
		scr = waitScreen(t, tm, "In short")
	}
	if strings.Contains(scr, "waits for the answer") {
		t.Errorf("the note did not clear when the answer ended:\n%s", scr)
	}
	tm.Send(press("enter"))
	waitScreen(t, tm, "new conversation")
	tm.Send(press("ctrl+c"))
	fm := final(t, tm)
	if len(fm.tr.turns) != 0 {
		t.Errorf("/new did not run after the answer: %d turns", len(fm.tr.turns))
	}
}

// TestViewerScrolls: the viewer opens at the cited segment; the wheel
// and ↑ reach the context above it, and down comes back.
func TestViewerScrolls(t *testing.T) {
	t.Parallel()
	b := newFakeBackend(sampleAnswer)
	for i := range b.segs["doc2"] {
		b.segs["doc2"][i].Text = fmt.Sprintf("Passage %d of paper 2. ", i) + strings.Repeat("More words of this long passage. ", 30)
	}
	d := newDrive(t, b, 80, 24)
	d.openFirstSource()
	if scr := d.screen(); !strings.Contains(scr, "▌ Passage 3 of paper 2") || strings.Contains(scr, "Passage 2 of paper 2") {
		t.Fatalf("viewer does not open at the cited segment:\n%s", scr)
	}
	for range 4 {
		d.send(tea.MouseWheelMsg{X: 5, Y: 8, Button: tea.MouseWheelUp})
	}
	// 4 header lines, then the segment's page marker, then its text
	if _, y := find(t, d.screen(), "Passage 3 of", 0); y != 5+4*wheelLines {
		t.Errorf("after 4 notches up the cited segment starts on line %d, want %d", y, 5+4*wheelLines)
	}
	d.sendUntilStill(press("up"), 200)
	if scr := d.screen(); !strings.Contains(scr, "Passage 0 of paper 2") {
		t.Errorf("↑ did not reach the first context segment:\n%s", scr)
	}
	d.sendUntilStill(press("down"), 200)
	if scr := d.screen(); strings.Contains(scr, "Passage 3 of") || !strings.Contains(scr, "passage.\n── source viewer") || !strings.Contains(scr, "esc back") {
		t.Errorf("↓ did not scroll past the segment to the end:\n%s", scr)
	}
}
