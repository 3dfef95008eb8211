package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
)

// submitMsg is a question or slash command the user sent.
type submitMsg struct{ text string }

// inputPane is the multi-line question box with a history of what was
// sent: up on its first line and down on its last walk the history.
//
// Invariant: hist holds sent texts oldest first (or, while examples is
// set, the first screen's example questions); histAt == len(hist) means
// the box shows the draft being written, which draft keeps while walking.
// When fresh is set, view is ta.View() of ta as it is now: every method
// that hands ta a message or changes it (its value, cursor, focus, size,
// styles, blink) clears fresh, so a frame where the box did not change
// reuses its view (textarea re-wraps every line on each View).
type inputPane struct {
	c        *common
	ta       textarea.Model
	hist     []string
	histAt   int
	draft    string
	examples bool // hist holds the first screen's example questions

	view  string
	fresh bool
}

const inputHeight = 3

func newInput(c *common) *inputPane {
	ta := textarea.New()
	ta.Placeholder = "Ask your documents… (/help or f1 for help)"
	ta.ShowLineNumbers = false
	ta.Prompt = "┃ "
	ta.SetHeight(inputHeight)
	ta.KeyMap.InsertNewline.SetKeys("ctrl+j", "alt+enter", "shift+enter")
	ta.CharLimit = 0
	p := &inputPane{c: c, ta: ta}
	p.restyle()
	return p
}

// restyle follows the theme (Styles.Input).
func (p *inputPane) restyle() { p.fresh = false; p.ta.SetStyles(p.c.Styles.Input) }

func (p *inputPane) SetSize(w, h int) { p.fresh = false; p.ta.SetWidth(w); p.ta.SetHeight(h) }
func (p *inputPane) Focus() tea.Cmd   { p.fresh = false; return p.ta.Focus() }
func (p *inputPane) Blur()            { p.fresh = false; p.ta.Blur() }

// View is the box as ta draws it, drawn again only after a change.
func (p *inputPane) View() string {
	if !p.fresh {
		p.view, p.fresh = p.ta.View(), true
	}
	return p.view
}

// Empty reports whether nothing is typed (then ? opens the help).
func (p *inputPane) Empty() bool { return p.ta.Value() == "" }

// Value is the text typed so far.
func (p *inputPane) Value() string { return p.ta.Value() }

// SetValue puts text back in the box (a command that had to wait).
func (p *inputPane) SetValue(s string) { p.fresh = false; p.ta.SetValue(s) }

func (p *inputPane) ShortHelp() []key.Binding {
	k := p.c.Keys
	return []key.Binding{k.Send, k.FocusNext, k.Help, k.Newline, k.HistoryPrev, k.ToggleSide, k.Quit}
}

func (p *inputPane) FullHelp() [][]key.Binding {
	k := p.c.Keys
	return [][]key.Binding{{k.Send, k.Newline, k.HistoryPrev, k.HistoryNext}}
}

// Update edits the text; enter sends it.
func (p *inputPane) Update(msg tea.Msg) (pane, tea.Cmd) {
	cmd := p.update(msg)
	return p, cmd
}

func (p *inputPane) update(msg tea.Msg) tea.Cmd {
	p.fresh = false // every path below may change ta
	km, isKey := msg.(tea.KeyPressMsg)
	if isKey && p.ta.Focused() {
		k := p.c.Keys
		switch {
		case key.Matches(km, k.Send):
			text := strings.TrimSpace(p.ta.Value())
			if text == "" {
				return nil
			}
			if p.examples {
				p.hist, p.examples = nil, false
			}
			if len(p.hist) == 0 || p.hist[len(p.hist)-1] != text {
				p.hist = append(p.hist, text)
			}
			p.histAt, p.draft = len(p.hist), ""
			p.ta.Reset()
			return func() tea.Msg { return submitMsg{text} }
		case key.Matches(km, k.HistoryPrev) && p.ta.Line() == 0:
			if p.histAt > 0 {
				if p.histAt == len(p.hist) {
					p.draft = p.ta.Value()
				}
				p.histAt--
				p.ta.SetValue(p.hist[p.histAt])
			}
			return nil
		case key.Matches(km, k.HistoryNext) && p.ta.Line() == p.ta.LineCount()-1:
			if p.histAt < len(p.hist) {
				p.histAt++
				if p.histAt == len(p.hist) {
					p.ta.SetValue(p.draft)
				} else {
					p.ta.SetValue(p.hist[p.histAt])
				}
			}
			return nil
		}
	}
	var cmd tea.Cmd
	p.ta, cmd = p.ta.Update(msg)
	return cmd
}

// HistoryEmpty reports whether nothing was sent yet.
func (p *inputPane) HistoryEmpty() bool { return len(p.hist) == 0 }

// SetExamples offers example questions through ↑ until the first send,
// which replaces them with the real history.
func (p *inputPane) SetExamples(ex []string) {
	p.SetHistory(ex)
	p.examples = len(ex) > 0
}

// SetHistory seeds the history (a resumed conversation's questions).
func (p *inputPane) SetHistory(h []string) {
	p.examples = false
	p.hist = append([]string(nil), h...)
	p.histAt = len(p.hist)
}
