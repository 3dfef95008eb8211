package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// threeAnswers is a chat at w×h with three answered questions.
func threeAnswers(t *testing.T, w, h int) *drive {
	d := newDrive(t, newFakeBackend(sampleAnswer), w, h)
	for _, q := range []string{"first?", "second?", "third?"} {
		d.typeText(q)
		d.send(press("enter"))
	}
	if len(d.m.tr.turns) != 3 || d.m.tr.totalNodes() != 18 {
		t.Fatalf("%d turns, %d nodes", len(d.m.tr.turns), d.m.tr.totalNodes())
	}
	return d
}

// TestBracketsStartOnScreen: ] and [ start from the answer on screen, go
// on from a selection that is on screen, and never jump to the top.
func TestBracketsStartOnScreen(t *testing.T) {
	t.Parallel()
	d := threeAnswers(t, 80, 24)
	tr := d.m.tr
	d.send(press("tab"))
	bottom := tr.offset
	if bottom == 0 {
		t.Fatal("the conversation fits the screen: the test needs it to scroll")
	}
	d.send(press("]"))
	if tr.sel != 12 {
		t.Errorf("] at the bottom selected node %d, want 12 (the last answer's first)", tr.sel)
	}
	if tr.offset == 0 {
		t.Error("] jumped the view to the top")
	}
	d.send(press("]"))
	if tr.sel != 13 {
		t.Errorf("second ] selected %d, want 13", tr.sel)
	}
	d.send(press("g"))
	d.send(press("]"))
	if tr.sel != 0 || tr.offset != 0 {
		t.Errorf("] at the top selected %d (offset %d), want the first answer's first node", tr.sel, tr.offset)
	}
	d.send(press("G"))
	d.send(press("]"))
	if tr.sel != 12 {
		t.Errorf("] after G selected %d, want 12", tr.sel)
	}
	d.send(press("["))
	if tr.sel != 11 {
		t.Errorf("[ from the selection on screen selected %d, want 11", tr.sel)
	}

	d = threeAnswers(t, 80, 24)
	d.send(press("tab"))
	d.send(press("["))
	if d.m.tr.sel != 17 {
		t.Errorf("[ at the bottom selected %d, want 17 (the last answer's last node)", d.m.tr.sel)
	}
}

// TestDigitOnScreen: a digit picks footnote n of the answer on screen and
// says so when there is none.
func TestDigitOnScreen(t *testing.T) {
	t.Parallel()
	d := threeAnswers(t, 80, 24)
	d.send(press("tab"))
	d.send(press("2"))
	if r, _ := d.m.tr.refOf(d.m.tr.sel); r.turn != 2 || d.m.tr.turns[2].doc.nodes[r.node].num != 2 {
		t.Errorf("2 selected %+v, want footnote 2 of the last answer", r)
	}
	d.send(press("7"))
	if scr := d.screen(); !strings.Contains(scr, "no footnote [7]: this answer has [1] to [3]") {
		t.Errorf("no note about the missing footnote:\n%s", scr)
	}
	d.send(press("g"))
	d.send(press("3"))
	if r, _ := d.m.tr.refOf(d.m.tr.sel); r.turn != 0 {
		t.Errorf("3 at the top selected in turn %d, want 0", r.turn)
	}
}

// TestHelpAnywhere: ? opens the help outside the input and on an empty
// input, and is text otherwise; f1 opens it while typing, keeping the text.
func TestHelpAnywhere(t *testing.T) {
	t.Parallel()
	d := newDrive(t, newFakeBackend(sampleAnswer), 100, 30)
	d.send(press("?"))
	if !d.m.showHelp {
		t.Fatal("? on the empty input did not open the help")
	}
	d.send(press("x")) // closes
	d.typeText("why?")
	if d.m.showHelp || d.m.in.Value() != "xwhy?" && d.m.in.Value() != "why?" {
		t.Fatalf("? while typing: help %v, input %q", d.m.showHelp, d.m.in.Value())
	}
	d.send(press("f1"))
	if !d.m.showHelp || !strings.Contains(d.m.in.Value(), "why?") {
		t.Fatalf("f1 while typing: help %v, input %q", d.m.showHelp, d.m.in.Value())
	}
	d.send(press("esc"))
	for _, f := range []string{"tab", "tab"} { // transcript, then sources
		d.send(press(f))
		d.send(press("?"))
		if !d.m.showHelp {
			t.Errorf("? in focus %d did not open the help", d.m.focus)
		}
		d.send(press("esc"))
	}
}

// TestHelpScrolls: at 80×24 the ? screen does not fit; the scrolling keys
// reach its end, and any other key closes it.
func TestHelpScrolls(t *testing.T) {
	t.Parallel()
	d := newDrive(t, newFakeBackend(sampleAnswer), 80, 24)
	d.send(press("?"))
	scr := d.screen()
	if strings.Contains(scr, "/library NAME") || !strings.Contains(scr, "more lines") {
		t.Fatalf("80x24 help fits or does not say there is more:\n%s", scr)
	}
	d.send(tea.KeyPressMsg{Code: tea.KeyPgDown})
	d.send(tea.KeyPressMsg{Code: tea.KeyPgDown})
	if scr := d.screen(); !strings.Contains(scr, "/library NAME") || strings.Contains(scr, "more lines") {
		t.Errorf("pgdn did not reach the end of the help:\n%s", scr)
	}
	d.send(press("x"))
	if d.m.showHelp {
		t.Error("another key did not close the help")
	}
}
