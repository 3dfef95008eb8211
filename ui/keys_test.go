package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
)

// TestKeysDocumented: every key and slash command of the ? screen appears
// in docs/tui.md, so the documentation cannot fall behind the keymap.
func TestKeysDocumented(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "docs", "tui.md"))
	if err != nil {
		t.Skipf("docs/tui.md not found: %v", err)
	}
	m := New(newFakeBackend(""), darkOpt())
	shown := map[string]string{"up": "↑", "down": "↓", "pgdown": "pgdn"}
	left, right := m.helpSections()
	n := 0
	for _, s := range append(left, right...) {
		for _, g := range s.keys.FullHelp() {
			for _, b := range g {
				n++
				for _, k := range documentedKeys(b) {
					if s, ok := shown[k]; ok {
						k = s
					}
					if !strings.Contains(string(doc), "`"+k) {
						t.Errorf("%s: key %q is not in docs/tui.md", s.title, k)
					}
				}
			}
		}
	}
	if n < 30 {
		t.Errorf("only %d bindings on the ? screen", n)
	}
}

// documentedKeys are the names a binding is documented under: its keys,
// except digits 2–8 (documented as `1`–`9`).
func documentedKeys(b key.Binding) []string {
	var out []string
	for _, k := range b.Keys() {
		if len(k) == 1 && k[0] >= '2' && k[0] <= '8' {
			continue
		}
		out = append(out, k)
	}
	return out
}

// TestHelpFromKeymap: the help bar of every focus and the ? screen show
// the keymap's own help text, so changing a binding's help changes both.
func TestHelpFromKeymap(t *testing.T) {
	t.Parallel()
	b := newFakeBackend(sampleAnswer)
	d := newDrive(t, b, 160, 48)
	d.m.c.Keys.NextNode.SetHelp("]", "onward to the next footnote")
	d.m.c.Keys.Send.SetHelp("enter", "dispatch the question")
	d.draw()
	if !strings.Contains(d.screen(), "dispatch the question") {
		t.Errorf("input help bar does not come from the keymap:\n%s", d.screen())
	}
	d.send(press("tab"))
	if !strings.Contains(d.screen(), "onward to the next footnote") {
		t.Errorf("transcript help bar does not come from the keymap:\n%s", d.screen())
	}
	d.send(press("?"))
	scr := d.screen()
	for _, want := range []string{"onward to the next footnote", "dispatch the question", "/library NAME"} {
		if !strings.Contains(scr, want) {
			t.Errorf("? screen lacks %q:\n%s", want, scr)
		}
	}
}

// TestHelpBarFollowsChanges: the help bar kept between frames is drawn
// again when a binding's help, a binding's state, the width or the
// styles change, and equals the bar drawn afresh each time.
func TestHelpBarFollowsChanges(t *testing.T) {
	t.Parallel()
	keys := defaultKeyMap()
	dark, light := newStyles(true), newStyles(false)
	bindings := func() []key.Binding {
		return []key.Binding{keys.Send, keys.FocusNext, keys.Help, keys.Newline, keys.Quit}
	}
	var h helpBar
	prev := ""
	step := func(what string, st *styles, width int) {
		t.Helper()
		got, want := h.view(st, bindings(), width), shortHelpView(st.Help, bindings(), width)
		if got != want {
			t.Errorf("%s: bar %q, want %q", what, got, want)
		}
		if got == prev {
			t.Errorf("%s: the bar did not change", what)
		}
		prev = got
	}
	step("first", dark, 100)
	step("narrower", dark, 40)
	keys.Send.SetHelp("enter", "dispatch")
	step("a binding's help", dark, 40)
	keys.FocusNext.SetEnabled(false)
	step("a binding disabled", dark, 40)
	step("light styles", light, 40)
	if got := h.view(light, bindings(), 40); got != prev {
		t.Errorf("nothing changed, the bar did: %q", got)
	}
	// the same bindings shown, one more disabled after them: the bar keeps
	// room for " …" after all but the last binding
	send, quit := key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "send")), keys.Quit
	quit.SetEnabled(false)
	h.view(dark, []key.Binding{send}, 10)
	if got, want := h.view(dark, []key.Binding{send, quit}, 10), shortHelpView(dark.Help, []key.Binding{send, quit}, 10); got != want {
		t.Errorf("a disabled binding after the last shown: bar %q, want %q", got, want)
	}
}
