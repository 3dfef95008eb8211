package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/ui/render"
)

// events returns the fake backend's events for answer.
func events(t *testing.T, answer string) []rag.Event {
	t.Helper()
	var evs []rag.Event
	if err := newFakeBackend(answer).Ask(context.Background(), "q", func(e rag.Event) { evs = append(evs, e) }); err != nil {
		t.Fatal(err)
	}
	return evs
}

// TestNodesAppearInStep feeds an answer one event a frame and checks after
// every frame that the nodes drawn so far are numbered by first appearance
// and that the sources pane lists exactly the numbers shown so far.
func TestNodesAppearInStep(t *testing.T) {
	t.Parallel()
	for _, w := range []int{80, 160} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			d := newDrive(t, newFakeBackend(sampleAnswer), w, 40)
			m := d.m
			m.req = 7
			m.tr.turns = append(m.tr.turns, &turn{question: "q", streaming: true, req: 7})
			m.stream = &answerStream{req: 7}
			maxSeen := 0
			for i, e := range events(t, sampleAnswer) {
				m.Update(streamMsg{req: 7, events: []rag.Event{e}})
				if e.Type == rag.EventDone {
					m.Update(streamMsg{req: 7, end: true})
				}
				tu := m.tr.turns[0]
				for _, nd := range tu.doc.nodes {
					if nd.kind == render.Unknown {
						continue
					}
					if nd.num > maxSeen+1 {
						t.Fatalf("frame %d: node [%d] before [%d]", i, nd.num, maxSeen+1)
					}
					maxSeen = max(maxSeen, nd.num)
				}
				if got := len(first(m.tr.sources())); got != maxSeen {
					t.Fatalf("frame %d: pane lists %d sources for %d numbers shown", i, got, maxSeen)
				}
				scr := d.look()
				// the chips on screen are numbered 1..maxSeen
				for n := 1; n <= maxSeen; n++ {
					if !strings.Contains(scr, fmt.Sprintf("[%d]", n)) {
						t.Fatalf("frame %d: [%d] not on screen:\n%s", i, n, scr)
					}
				}
				if strings.Contains(scr, fmt.Sprintf("[%d]", maxSeen+1)) {
					t.Fatalf("frame %d: [%d] on screen early", i, maxSeen+1)
				}
				if w >= sideMinWidth && !strings.Contains(scr, fmt.Sprintf("Sources (%d)", maxSeen)) {
					t.Fatalf("frame %d: pane does not show %d sources:\n%s", i, maxSeen, scr)
				}
			}
			if maxSeen != 3 {
				t.Errorf("saw %d numbers, want 3", maxSeen)
			}
		})
	}
}

// TestStragglersDropped: events of an older request change nothing.
func TestStragglersDropped(t *testing.T) {
	t.Parallel()
	d := newDrive(t, newFakeBackend(sampleAnswer), 100, 30)
	m := d.m
	m.req = 2
	m.tr.turns = append(m.tr.turns, &turn{question: "q", streaming: true, req: 2})
	m.stream = &answerStream{req: 2}
	m.Update(streamMsg{req: 1, events: []rag.Event{{Type: rag.EventText, Text: "old"}}})
	if got := m.tr.turns[0].doc.text.String(); got != "" {
		t.Errorf("straggler applied: %q", got)
	}
}

func TestDigitsAndBrackets(t *testing.T) {
	t.Parallel()
	d := newDrive(t, newFakeBackend(sampleAnswer), 120, 30)
	d.typeText("q")
	d.send(press("enter"))
	d.send(press("tab"))
	check := func(step string, wantSel, wantNum int) {
		t.Helper()
		_, nd, ok := d.m.tr.selected()
		if !ok || d.m.tr.sel != wantSel || nd.num != wantNum {
			t.Errorf("after %s: selected node %d [%d], want %d [%d]", step, d.m.tr.sel, nd.num, wantSel, wantNum)
		}
	}
	d.send(press("3"))
	check("3", 3, 3)
	d.send(press("["))
	check("[", 2, 1)
	d.send(press("]"))
	d.send(press("]"))
	check("]]", 4, 0)
	d.send(press("2"))
	check("2", 1, 2)
	d.send(press("["))
	d.send(press("["))
	check("[[", 0, 1)
	// the selected chip is highlighted differently from the others
	raw := d.m.tr.View() // without the tooltip, which may cover chips
	sel := d.m.c.Styles.ChipSelected.Render("[1]")
	if !strings.Contains(raw, sel) {
		t.Errorf("selected chip not drawn highlighted")
	}
	if strings.Count(raw, d.m.c.Styles.ChipCited.Render("[1]")) != 1 {
		t.Errorf("want the other [1] drawn as a plain chip once")
	}
}

func TestCancelKeepsPartial(t *testing.T) {
	t.Parallel()
	b := newFakeBackend(sampleAnswer)
	b.gate = make(chan int)
	tm := newTM(t, b, 120, 30)
	tm.Type("q")
	tm.Send(press("enter"))
	for i := 0; i < 8; i++ {
		b.gate <- 1
	}
	waitScreen(t, tm, "Findings", "answering")
	tm.Send(press("ctrl+c"))
	waitScreen(t, tm, "interrupted")
	tm.Send(press("ctrl+c")) // idle now: quits
	fm := final(t, tm)
	tu := fm.tr.turns[0]
	if !tu.interrupted || tu.streaming {
		t.Errorf("turn interrupted=%v streaming=%v", tu.interrupted, tu.streaming)
	}
	text := tu.doc.text.String()
	if text == "" || strings.Contains(text, "In short") {
		t.Errorf("partial text %q", text)
	}
}

func TestResize(t *testing.T) {
	t.Parallel()
	tm := newTM(t, newFakeBackend(sampleAnswer), 160, 48)
	tm.Type("q")
	tm.Send(press("enter"))
	waitScreen(t, tm, "Sources (3)", "In short")
	tm.Send(tea.WindowSizeMsg{Width: 80, Height: 24})
	waitScreen(t, tm, "3 sources (ctrl+s)")
	tm.Send(press("ctrl+s"))
	waitScreen(t, tm, "Sources (3)")
	tm.Send(tea.WindowSizeMsg{Width: 160, Height: 48})
	tm.Send(press("ctrl+c"))
	fm := final(t, tm)
	if fm.width != 160 || fm.tr.width != 160-fm.sideWidth()-1 {
		t.Errorf("final sizes: %d, transcript %d", fm.width, fm.tr.width)
	}
	scr := screen(fm)
	if !strings.Contains(scr, "Sources (3)") || !strings.Contains(scr, "In short") {
		t.Errorf("160x48 screen:\n%s", scr)
	}
}

func first[A, B, C any](a A, _ B, _ C) A { return a }
