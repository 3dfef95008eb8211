package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/ibid-dev/ibid/ui/backend"
)

// exampleCount is how many example questions the first screen offers.
const exampleCount = 3

// suggestionsMsg carries the first screen's example questions, made in a
// command, and the number of the request that made them.
type suggestionsMsg struct {
	seq int
	qs  []string
}

// suggestionsCmd asks the backend for the first screen's examples, when
// it can suggest them (Suggester). The first screen shows at once; the
// examples appear when they come. Requests run concurrently (at start,
// after an add, a sync or another process's change): only the answer to
// the latest request is shown, so that examples made from the library
// halfway through a change never replace those made from it whole,
// whichever comes last.
func (m *Model) suggestionsCmd() tea.Cmd {
	sg, ok := m.b.(backend.Suggester)
	if !ok {
		return nil
	}
	m.suggestSeq++
	seq := m.suggestSeq
	return func() tea.Msg { return suggestionsMsg{seq, sg.Suggestions(exampleCount)} }
}

// welcome is the first screen, before any question: what is open, and
// questions to try that the library answers (Suggester).
func (m *Model) welcome() string {
	st := m.c.Styles
	w := max(m.width, 20)
	var lines []string
	add := func(s string) {
		for _, l := range strings.Split(ansi.Wrap(s, w-2, " "), "\n") {
			lines = append(lines, "  "+l)
		}
	}
	lines = append(lines, "")
	add(st.StatusKey.Render("ibid") + st.Text.Render(" · ask your documents; every claim cites its passage"))
	lines = append(lines, "")
	docs := fmt.Sprintf("%d documents", m.lib.size)
	if m.lib.size == 1 {
		docs = "1 document"
	}
	add(st.Dim.Render("library  ") + st.Text.Render(m.lib.name+" · "+docs))
	model := m.lib.modelLabel()
	if m.lib.extractive || m.lib.model == "" || model == m.lib.model && strings.HasPrefix(model, "extractive") {
		model = "extractive: answers quote your documents' best-matching sentences"
	}
	add(st.Dim.Render("model    ") + st.Text.Render(model))
	lines = append(lines, "")
	switch ex := m.examples; {
	case m.lib.size == 0:
		add(st.Note.Render("The library is empty: type /add PATH (files, folders, globs) to add documents."))
	case len(ex) > 0:
		add(st.Dim.Render("Try asking (↑ puts one in the input):"))
		for _, q := range ex {
			add(st.Question.Render("› ") + st.Text.Render(q))
		}
	default:
		add(st.Dim.Render("Type a question and press enter."))
	}
	lines = append(lines, "")
	add(st.Dim.Render("enter sends · ? or f1 shows every key · /add PATH adds documents"))
	h := m.bodyHeight()
	if len(lines) > h {
		lines = lines[:h]
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}
