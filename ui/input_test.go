package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// TestInputViewFollowsChanges checks the input box's cached view against
// the textarea's own after every kind of change that reaches the box
// through the chat (typing, a paste, moving the cursor, a new line, the
// history, sending, focus, a resize, a new background, a command put back
// in the box), and that the frame shows each change: a stale view fails
// here.
func TestInputViewFollowsChanges(t *testing.T) {
	t.Parallel()
	d := newDrive(t, newFakeBackend("ok"), 80, 24)
	frame := d.m.render()
	step := func(what string, do func()) {
		t.Helper()
		do()
		got := d.m.render()
		if want := d.m.in.ta.View(); d.m.in.View() != want {
			t.Errorf("%s: the box shows\n%s\nwant\n%s", what, d.m.in.View(), want)
		}
		if got == frame {
			t.Errorf("%s: the frame did not change:\n%s", what, ansi.Strip(got))
		}
		frame = got
	}
	step("type", func() { d.typeText("effect") })
	step("paste", func() { d.send(tea.PasteMsg{Content: " sizes"}) })
	step("left", func() { d.send(press("left")) })
	step("home", func() { d.send(press("home")) })
	step("newline", func() { d.send(press("ctrl+j")) })
	step("backspace", func() { d.send(press("backspace")) })
	step("send", func() { d.send(press("enter")) })
	step("history", func() { d.send(press("up")) })
	step("blur", func() { d.send(press("tab")) })
	step("focus", func() { d.send(press("shift+tab")) })
	// the pane's own methods, as setFocus calls them
	step("blur the box", d.m.in.Blur)
	step("focus the box", func() { d.m.in.Focus() })
	step("resize", func() { d.send(tea.WindowSizeMsg{Width: 60, Height: 24}) })
	step("new background", func() { d.m.setDark(false) })
	step("set value", func() { d.m.in.SetValue("/new") })
	if scr := d.look(); !strings.Contains(scr, "┃ /new") {
		t.Errorf("the box lost the value put back:\n%s", scr)
	}
}
