package ui

import (
	"fmt"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/ibid-dev/ibid/rag"
)

// TestSideBySide: on a wide screen the transcript's lines are exactly
// its width, a streaming heading with a word longer than the pane and the
// rows a tooltip covers included, and the body joined from the
// transcript, the rule and the sources is what lipgloss.JoinHorizontal
// makes of them.
func TestSideBySide(t *testing.T) {
	t.Parallel()
	d := newDrive(t, newFakeBackend(sampleAnswer), 160, 40)
	m := d.m
	check := func(step string) {
		t.Helper()
		left, right := m.withTooltip(m.tr.View()), m.src.View()
		for i, l := range strings.Split(left, "\n") {
			if w := ansi.StringWidth(l); w != m.tr.width {
				t.Errorf("%s: transcript line %d is %d wide, want %d: %q", step, i, w, m.tr.width, ansi.Strip(l))
			}
		}
		rule := m.c.Styles.Border.Render("│")
		want := lipgloss.JoinHorizontal(lipgloss.Top, left, strings.TrimSuffix(strings.Repeat(rule+"\n", m.bodyHeight()), "\n"), right)
		if got := sideBySide(left, m.tr.width, rule, m.bodyHeight(), right); got != want {
			t.Errorf("%s: joined body differs from lipgloss's:\n%s\n--- want\n%s", step, got, want)
		}
	}
	// blocks of different heights: the shorter ones go on blank
	for _, c := range []struct {
		left  string
		lw, h int
		right string
	}{{"ab\ncd", 2, 3, "x"}, {"ab", 2, 1, "x\nyyy\nz"}, {"ab\ncd\nef", 2, 2, ""}} {
		rule := strings.TrimSuffix(strings.Repeat("│\n", c.h), "\n")
		if got, want := sideBySide(c.left, c.lw, "│", c.h, c.right), lipgloss.JoinHorizontal(lipgloss.Top, c.left, rule, c.right); got != want {
			t.Errorf("%q | %q: joined %q, want %q", c.left, c.right, got, want)
		}
	}
	check("welcome")
	d.typeText("q")
	d.send(press("enter"))
	check("an answer")
	d.send(press("tab"))
	d.send(press("]"))
	if !strings.Contains(d.screen(), "[1] Paper 2 · p. 4") {
		t.Fatalf("no tooltip:\n%s", d.screen())
	}
	check("a tooltip")

	m.req++
	m.tr.turns = append(m.tr.turns, &turn{question: "q2", streaming: true, req: m.req})
	m.stream = &answerStream{req: m.req}
	// a heading's word longer than the pane: render.Renderer breaks it
	// (glamour and a second wrap left it a cell too wide)
	for i, txt := range []string{"Intro para.\n\n", "# Heading" + strings.Repeat("g", 120) + " **x** and more\n", "| a | b |\n|---|---|\n| 1 | 2 |\n"} {
		m.Update(streamMsg{req: m.req, events: []rag.Event{{Type: rag.EventText, Text: txt}}})
		check(fmt.Sprintf("streaming %d", i))
	}
}
