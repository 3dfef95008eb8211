package ui

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// TestNarrowNothingCut: from 60 to 160 columns no line is wider than the
// screen, a long error wraps onto lines of its own with every word whole,
// and the help bar shows whole bindings only.
func TestNarrowNothingCut(t *testing.T) {
	t.Parallel()
	long := "couldn't add /home/me/papers/thesis: the file is not a PDF, Markdown, HTML or text file; convert it or remove it from the folder and try again"
	for _, w := range []int{60, 80, 100, 119, 160} {
		d := newDrive(t, newFakeBackend(sampleAnswer), w, 24)
		d.typeText("does the effect hold?")
		d.send(press("enter"))
		d.send(statusMsg{err: errors.New(long)})
		scr := d.screen()
		for i, l := range strings.Split(scr, "\n") {
			if lw := ansi.StringWidth(l); lw > w {
				t.Errorf("%d columns: line %d is %d wide: %q", w, i, lw, l)
			}
		}
		flat := strings.Join(strings.Fields(scr), " ")
		if !strings.Contains(flat, long) {
			t.Errorf("%d columns: the error is not shown whole:\n%s", w, scr)
		}
		lines := strings.Split(scr, "\n")
		bar := strings.TrimSuffix(lines[len(lines)-1], " …")
		for _, item := range strings.Split(bar, " • ") {
			if !isBindingHelp(d.m, item) {
				t.Errorf("%d columns: help bar item %q is not a whole binding", w, item)
			}
		}
	}
}

func isBindingHelp(m *Model, item string) bool {
	for _, b := range m.panes[m.focus].ShortHelp() {
		if b.Help().Key+" "+b.Help().Desc == item {
			return true
		}
	}
	return false
}

// TestStatusDropsHintsFirst: while answering on a narrow screen the hint
// goes before the rate, the rate before the model, and the library name
// and the activity stay.
func TestStatusDropsHintsFirst(t *testing.T) {
	t.Parallel()
	m := New(newFakeBackend(sampleAnswer), darkOpt())
	m.stream = &answerStream{}
	m.lib = libInfo{name: "thesis", size: 12, model: "llama3.1:8b-instruct"}
	for _, c := range []struct {
		w          int
		want, gone []string
	}{
		{120, []string{"thesis", "12 docs", "llama3.1", "answering", "tok/s", "ctrl+c cancels"}, nil},
		{66, []string{"thesis", "llama3.1", "answering", "tok/s"}, []string{"ctrl+c cancels"}},
		{50, []string{"thesis", "llama3.1", "answering"}, []string{"ctrl+c", "docs", "tok/s"}},
		{30, []string{"thesis", "answering"}, []string{"llama3.1"}},
	} {
		m.width = c.w
		lines := m.statusLines()
		got := ansi.Strip(lines[len(lines)-1])
		if ansi.StringWidth(got) > c.w {
			t.Errorf("%d: %q is too wide", c.w, got)
		}
		for _, s := range c.want {
			if !strings.Contains(got, s) {
				t.Errorf("%d: %q lacks %q", c.w, got, s)
			}
		}
		for _, s := range c.gone {
			if strings.Contains(got, s) {
				t.Errorf("%d: %q still shows %q", c.w, got, s)
			}
		}
	}
}

// TestSourcesKeepFileName: at 80 columns the sources pane shows the file
// name of a long path.
func TestSourcesKeepFileName(t *testing.T) {
	t.Parallel()
	b := newFakeBackend(sampleAnswer)
	doc := b.docs["doc2"]
	doc.Path = "/home/researcher/projects/thesis/literature/2021/replications/smith-et-al-2021.pdf"
	b.docs["doc2"] = doc
	d := newDrive(t, b, 80, 24)
	d.typeText("q")
	d.send(press("enter"))
	d.send(press("ctrl+s"))
	if scr := d.screen(); !strings.Contains(scr, "…/smith-et-al-2021.pdf") {
		t.Errorf("the file name is not kept:\n%s", scr)
	}
}

// TestWelcome: the first screen names the library, its size and the
// model, and offers the questions the backend suggests.
func TestWelcome(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		d := newDrive(t, newFakeBackend(sampleAnswer), size[0], size[1])
		scr := d.screen()
		for _, want := range []string{"default · 3 documents", "fake-model", "Try asking",
			"What are effect sizes across sites?", "How does BM25 compare with dense retrieval?"} {
			if !strings.Contains(strings.Join(strings.Fields(scr), " "), want) {
				t.Errorf("%v: first screen lacks %q:\n%s", size, want, scr)
			}
		}
		golden(t, fmt.Sprintf("welcome_%dx%d", size[0], size[1]), scr)
		d.send(press("up"))
		if v := d.m.in.Value(); v != "What are effect sizes across sites?" {
			t.Errorf("↑ on the first screen put %q in the input", v)
		}
	}
}

// noSuggestions is a backend whose library answers none of the questions
// it tried.
type noSuggestions struct{ *fakeBackend }

func (noSuggestions) Suggestions(int) []string { return nil }

// TestWelcomeWithoutSuggestions: when no question passed its check, the
// first screen offers none.
func TestWelcomeWithoutSuggestions(t *testing.T) {
	t.Parallel()
	d := newDrive(t, noSuggestions{newFakeBackend(sampleAnswer)}, 80, 24)
	scr := d.screen()
	if strings.Contains(scr, "Try asking") || !strings.Contains(scr, "Type a question and press enter.") {
		t.Errorf("first screen without suggestions:\n%s", scr)
	}
}

// TestThemeOption: Options.Theme fixes the palette; the terminal's answer
// does not override it.
func TestThemeOption(t *testing.T) {
	t.Parallel()
	m := New(newFakeBackend(""), Options{Theme: "light"})
	m.Update(tea.BackgroundColorMsg{Color: hex("#000000")})
	if m.c.Styles.Dark {
		t.Error("theme light was overridden by the terminal's dark background")
	}
	if cmd := m.Init(); cmd == nil {
		t.Error("no init command")
	}
	m = New(newFakeBackend(""), Options{Getenv: func(k string) string {
		if k == "COLORFGBG" {
			return "0;15"
		}
		return ""
	}})
	if m.c.Styles.Dark {
		t.Error("COLORFGBG=0;15 (light background) gave dark styles")
	}
}

// changingSuggestions is a backend whose library changes between two
// requests for examples: each request gets the examples of that moment.
type changingSuggestions struct {
	*fakeBackend
	calls int
}

func (c *changingSuggestions) Suggestions(int) []string {
	c.calls++
	return []string{fmt.Sprintf("What is state %d?", c.calls)}
}

// TestWelcomeKeepsLatestSuggestions: when two requests for examples
// overlap (the first screen's, then the one after an add), the answer to
// the latest is shown whichever arrives last, so that the first screen
// does not change from run to run with which finished first.
func TestWelcomeKeepsLatestSuggestions(t *testing.T) {
	t.Parallel()
	m := New(&changingSuggestions{fakeBackend: newFakeBackend(sampleAnswer)}, Options{})
	first, second := m.suggestionsCmd(), m.suggestionsCmd()
	older := first() // made before the library changed
	newer := second()
	m.Update(newer)
	m.Update(older) // arrives last
	if !slices.Equal(m.examples, []string{"What is state 2?"}) {
		t.Errorf("examples %q, want the latest request's (%q)", m.examples, "What is state 2?")
	}
}
