package ui

import (
	"image/color"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/ibid-dev/ibid/ui/render"
)

// TestBackgroundPicksStyles: the terminal's answer to the background query
// switches styles, Markdown included, and the answer is redrawn with them.
func TestBackgroundPicksStyles(t *testing.T) {
	t.Parallel()
	m := New(newFakeBackend(sampleAnswer), Options{Getenv: func(string) string { return "" }})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	m.Update(tea.BackgroundColorMsg{Color: color.White})
	if m.c.Styles.Dark {
		t.Fatal("white background: dark styles")
	}
	d := &drive{t: t, m: m}
	m.in.Focus()
	d.typeText("q")
	d.send(press("enter"))
	light := m.render()
	if m.tr.r == nil || m.tr.rDark {
		t.Error("glamour renderer is not the light one")
	}
	if !strings.Contains(light, m.c.Styles.Chip(render.Cited, 1, false)) {
		t.Error("light chip not drawn")
	}
	m.Update(tea.BackgroundColorMsg{Color: color.Black})
	dark := m.render()
	if !m.c.Styles.Dark || !m.tr.rDark || dark == light {
		t.Error("black background did not switch to dark styles")
	}
	if !strings.Contains(dark, m.c.Styles.Chip(render.Cited, 1, false)) {
		t.Error("dark chip not drawn")
	}
}
