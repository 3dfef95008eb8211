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
