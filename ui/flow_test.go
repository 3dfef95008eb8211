package ui

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/ibid-dev/ibid/ui/backend"
)

const sampleAnswer = "## Findings\n\nThe effect is robust [source_2] and replicates across sites [source_1].\n\n" +
	"- Larger samples confirm it [source_2][source_3].\n- One study disagrees [source_9].\n\n" +
	"In short, the evidence converges [source_1]."

func darkOpt() Options { return Options{Theme: "dark"} }

// probe wraps the chat so a test can read its screen from inside the
// program's goroutine (no data race), whatever the renderer wrote.
type probe struct{ *Model }

type snapshotMsg struct{ ch chan string }

func (p probe) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if s, ok := msg.(snapshotMsg); ok {
		s.ch <- ansi.Strip(p.Model.render())
		return p, nil
	}
	_, cmd := p.Model.Update(msg)
	return p, cmd
}

func newTM(t *testing.T, b backend.Backend, w, h int) *teatest.TestModel {
	return newTMOpt(t, b, darkOpt(), w, h)
}

// newTMOpt is newTM with options.
func newTMOpt(t *testing.T, b backend.Backend, opt Options, w, h int) *teatest.TestModel {
	return teatest.NewTestModel(t, probe{New(b, opt)}, teatest.WithInitialTermSize(w, h))
}

// waitScreen waits until the chat's screen holds every string of want.
func waitScreen(t *testing.T, tm *teatest.TestModel, want ...string) string {
	t.Helper()
	return waitUntil(t, tm, fmt.Sprintf("%q", want), func(scr string) bool {
		for _, w := range want {
			if !strings.Contains(scr, w) {
				return false
			}
		}
		return true
	})
}

// waitUntil waits up to thirty seconds (a loaded CI machine is slow; a pass
// returns as soon as the screen is right) until the chat's screen satisfies ok
// (what says what the test waits for) and returns it.
func waitUntil(t *testing.T, tm *teatest.TestModel, what string, ok func(scr string) bool) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var scr string
	for time.Now().Before(deadline) {
		ch := make(chan string, 1)
		tm.Send(snapshotMsg{ch})
		select {
		case scr = <-ch:
		case <-time.After(2 * time.Second):
			continue
		}
		if ok(scr) {
			return scr
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("screen never showed %s; last screen:\n%s", what, scr)
	return ""
}

func final(t *testing.T, tm *teatest.TestModel) *Model {
	return tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(probe).Model
}

func press(s string) tea.KeyPressMsg {
	switch s {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	case "f1":
		return tea.KeyPressMsg{Code: tea.KeyF1}
	}
	r := []rune(s)[0]
	return tea.KeyPressMsg{Code: r, Text: s}
}

// screen renders the model's view, ANSI stripped.
func screen(m tea.Model) string { return ansi.Strip(m.(*Model).render()) }

func TestFlowAskSelectView(t *testing.T) {
	t.Parallel()
	b := newFakeBackend(sampleAnswer)
	tm := newTM(t, b, 120, 30)
	tm.Type("does the effect hold?")
	tm.Send(press("enter"))
	waitScreen(t, tm, "In short", "Sources (3)")
	tm.Send(press("tab")) // transcript
	tm.Send(press("]"))
	tm.Send(press("]"))
	tm.Send(press("enter"))
	waitScreen(t, tm, "segment 3 of 6", "Passage 2 of paper 1")
	tm.Send(press("esc"))
	tm.Send(press("tab")) // sources pane
	tm.Send(press("down"))
	tm.Send(press("down"))
	tm.Send(press("enter"))
	waitScreen(t, tm, "[3] Paper 3", "Passage 1 of paper 3")
	tm.Send(press("esc"))
	tm.Send(press("ctrl+c"))
	fm := final(t, tm)
	tu := fm.tr.turns[0]
	var nums []int
	for _, n := range tu.doc.nodes {
		nums = append(nums, n.num)
	}
	// [source_2]=1, [source_1]=2, [source_2]=1, [source_3]=3, unknown, [source_1]=2
	if got, want := nums, []int{1, 2, 1, 3, 0, 2}; !equalInts(got, want) {
		t.Errorf("node numbers %v, want %v", got, want)
	}
	if fm.tr.sel != 1 {
		t.Errorf("selected node %d, want 1", fm.tr.sel)
	}
	if len(tu.sources) != 3 || tu.sources[0].SegmentID != "doc2:3" || tu.sources[1].SegmentID != "doc1:2" {
		t.Errorf("sources %+v", tu.sources)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

var _ = bytes.Contains

// drive is a synchronous harness: it runs a model's commands in the test
// goroutine (streams included), for deterministic views and goldens.
// frame is the last frame drawn, what the terminal shows: screen reads it.
type drive struct {
	t     *testing.T
	m     *Model
	frame string
}

// openFirstSource asks "q", moves to the transcript and opens the
// answer's first reference in the viewer.
func (d *drive) openFirstSource() {
	d.typeText("q")
	d.send(press("enter"))
	d.send(press("tab"))
	d.send(press("]"))
	d.send(press("enter"))
}

func newDrive(t *testing.T, b backend.Backend, w, h int) *drive {
	opt := darkOpt()
	opt.LibraryPoll = -1 // run waits for every command: a poll would wait too
	d := &drive{t: t, m: New(b, opt)}
	d.m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	for _, m := range run(d.m.Init()) {
		d.deliver(m)
	}
	d.draw()
	return d
}

// send delivers msg and draws a frame, as the program draws one after a
// message.
func (d *drive) send(msg tea.Msg) {
	d.deliver(msg)
	d.draw()
}

// deliver hands msg to the model and runs the commands it returns until
// the model is idle, up to limit messages (stream batches included),
// drawing nothing: keys that come faster than the program's frame rate
// (typing, a held key) share a frame.
func (d *drive) deliver(msg tea.Msg) {
	queue := []tea.Msg{msg}
	for steps := 0; len(queue) > 0 && steps < 10000; steps++ {
		msg, queue = queue[0], queue[1:]
		_, cmd := d.m.Update(msg)
		queue = append(queue, run(cmd)...)
	}
}

// draw draws a frame of the model as it is now (after a test changed it
// without a message, too) and returns it.
func (d *drive) draw() string {
	d.frame = d.m.render()
	return d.frame
}

// sendUntilStill sends msg until the screen stops changing (drawing and
// looking every eighth time, as a held key shares frames), at most max
// times: a scroll to the top or the end draws a few dozen frames, not
// hundreds. A key that changes nothing while it should fails the caller's
// check of where the scroll ended.
func (d *drive) sendUntilStill(msg tea.Msg, max int) {
	prev := d.screen()
	for i := 1; i <= max; i++ {
		d.deliver(msg)
		if i%8 != 0 && i != max {
			continue
		}
		d.draw()
		scr := d.screen()
		if scr == prev {
			return
		}
		prev = scr
	}
}

// typeText types s, a key a rune, and draws the frame that shows it.
func (d *drive) typeText(s string) {
	for _, r := range s {
		d.deliver(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	d.draw()
}

// run executes cmd, flattening batches; ticks and blinks are skipped.
func run(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	switch msg := msg.(type) {
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range msg {
			out = append(out, run(c)...)
		}
		return out
	case nil:
		return nil
	}
	switch fmt := strings.TrimPrefix(typeName(msg), "*"); {
	case strings.Contains(fmt, "Tick"), strings.Contains(fmt, "Blink"), strings.Contains(fmt, "sequenceMsg"):
		return nil
	}
	return []tea.Msg{msg}
}

// screen is the last frame drawn, without its styles.
func (d *drive) screen() string { return ansi.Strip(d.frame) }

// look draws a frame of the model as it is now and returns it without
// its styles: for tests that change the model other than through send.
func (d *drive) look() string { d.draw(); return d.screen() }

// TestFlowFinishedChat walks the chat in the real program loop at 80×24:
// the first screen's example through ↑, help with f1 while typing, ]
// from the answer on screen, the tooltip, a click that opens the viewer
// with esc back in view.
func TestFlowFinishedChat(t *testing.T) {
	t.Parallel()
	b := newFakeBackend(sampleAnswer)
	tm := newTM(t, b, 80, 24)
	waitScreen(t, tm, "Try asking", "effect sizes across sites")
	tm.Send(press("up"))
	waitScreen(t, tm, `┃ What are effect sizes across sites?`)
	tm.Send(press("f1"))
	waitScreen(t, tm, "Everywhere", "help · ↑/↓ scroll")
	tm.Send(press("esc"))
	tm.Send(press("enter"))
	waitScreen(t, tm, "In short", "ask · 3 sources (ctrl+s)")
	tm.Send(press("tab"))
	tm.Send(press("]"))
	scr := waitScreen(t, tm, "[1] Paper 2 · p. 4") // the tooltip
	x, y := find(t, scr, "[2]", 0)
	tm.Send(click(x, y))
	tm.Send(click(x, y))
	waitScreen(t, tm, "[2] Paper 1", "esc back", "segment 3 of 6")
	tm.Send(press("esc"))
	tm.Send(press("ctrl+c"))
	fm := final(t, tm)
	if fm.vw.IsOpen() || len(fm.tr.turns) != 1 || fm.tr.turns[0].question != "What are effect sizes across sites?" {
		t.Errorf("final: viewer %v, turns %d", fm.vw.IsOpen(), len(fm.tr.turns))
	}
}
