package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/ibid-dev/ibid/ui/render"
)

// The screen, top to bottom: the body (transcript and sources, or the
// viewer, or the ? screen), a rule naming what has focus, the input, the
// status area (a wrapped message, then the state line) and the help bar.

// layout gives every pane its size.
func (m *Model) layout() {
	body := m.bodyHeight()
	m.in.SetSize(max(m.width, 10), inputHeight)
	m.vw.SetSize(m.width, body)
	if m.wide() {
		side := m.sideWidth()
		m.tr.SetSize(m.width-side-1, body)
		m.src.SetSize(side, body)
	} else {
		m.tr.SetSize(m.width, body)
		m.src.SetSize(m.width, body)
	}
}

func (m *Model) wide() bool { return m.width >= sideMinWidth }

func (m *Model) sideWidth() int { return min(max(m.width/3, 30), 56) }

// bodyHeight is the height of the transcript area: all but the rule, the
// input, the status area and the help bar.
func (m *Model) bodyHeight() int { return max(m.height-inputHeight-2-m.statusN, 3) }

// sourcesShowing reports whether the body shows the sources pane alone
// (below sideMinWidth).
func (m *Model) sourcesShowing() bool {
	return !m.wide() && (m.sideOpen || m.focus == focusSources)
}

// View draws the screen.
func (m *Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	return v
}

func (m *Model) render() string {
	if m.width == 0 {
		return ""
	}
	status := m.statusLines()
	if len(status) != m.statusN {
		m.statusN = len(status)
		m.layout()
	}
	st := m.c.Styles
	var body string
	switch {
	case m.showHelp:
		body = m.fullHelp()
	case m.vw.IsOpen():
		body = m.vw.View()
	case m.tr.empty() && !m.sourcesShowing():
		body = m.welcome()
	case m.wide():
		body = sideBySide(m.withTooltip(m.tr.View()), m.tr.width, st.Border.Render("│"), m.bodyHeight(), m.src.View())
	case m.sourcesShowing():
		body = m.src.View()
	default:
		body = m.withTooltip(m.tr.View())
	}
	ruleStyle := st.Border
	if m.focus == focusInput {
		ruleStyle = st.BorderFocused
	}
	title := render.Shorten(m.paneTitle(), max(m.width-4, 1))
	rule := ruleStyle.Render("── ") + st.PaneTitle.Render(title) + " " + ruleStyle.Render(strings.Repeat("─", max(m.width-ansi.StringWidth(title)-4, 0)))
	var bar string
	if m.showHelp {
		bar = m.bar.view(st, helpScreenKeys{m.c.Keys}.ShortHelp(), m.width)
	} else if m.vw.IsOpen() {
		bar = m.bar.view(st, m.vw.ShortHelp(), m.width)
	} else {
		bar = m.bar.view(st, m.panes[m.focus].ShortHelp(), m.width)
	}
	parts := append([]string{body, rule, m.in.View()}, status...)
	return strings.Join(append(parts, bar), "\n")
}

// sideBySide joins the transcript's lines (left: each exactly lw cells
// wide, transcript.View's invariant), a rule of h cells and the sources
// pane's lines (right) row by row, as lipgloss.JoinHorizontal(lipgloss.Top,
// left, rule, right) does: a block shorter than the tallest is continued
// by blank rows, and the right block's lines are padded to its widest.
// Only the right block is measured: a frame does not measure the wide
// transcript a second time.
func sideBySide(left string, lw int, rule string, h int, right string) string {
	ls, rs := strings.Split(left, "\n"), strings.Split(right, "\n")
	rw := make([]int, len(rs))
	rmax := 0
	for i, l := range rs {
		rw[i] = ansi.StringWidth(l)
		rmax = max(rmax, rw[i])
	}
	rows := max(len(ls), h, len(rs))
	var b strings.Builder
	b.Grow(len(left) + len(right) + rows*(len(rule)+rmax))
	for i := range rows {
		if i > 0 {
			b.WriteByte('\n')
		}
		if i < len(ls) {
			b.WriteString(ls[i])
		} else {
			b.WriteString(strings.Repeat(" ", lw))
		}
		if i < h {
			b.WriteString(rule)
		} else {
			b.WriteByte(' ')
		}
		pad := rmax
		if i < len(rs) {
			b.WriteString(rs[i])
			pad -= rw[i]
		}
		b.WriteString(strings.Repeat(" ", pad))
	}
	return b.String()
}

// paneTitle names what has focus, shown in the rule above the input.
func (m *Model) paneTitle() string {
	switch {
	case m.showHelp:
		return "help · ↑/↓ scroll · any other key closes it"
	case m.vw.IsOpen():
		return "source viewer"
	case m.focus == focusTranscript:
		return fmt.Sprintf("transcript · %d references", m.tr.totalNodes())
	case m.focus == focusSources:
		return "sources"
	}
	if srcs, _, _ := m.tr.sources(); !m.wide() && len(srcs) == 1 {
		return "ask · 1 source (ctrl+s)"
	} else if !m.wide() && len(srcs) > 1 {
		return fmt.Sprintf("ask · %d sources (ctrl+s)", len(srcs))
	}
	return "ask"
}

// mouse sends a click or wheel event to the pane under the pointer, in
// that pane's coordinates; a click also gives the pane focus.
func (m *Model) mouse(msg tea.Msg, mo tea.Mouse) tea.Cmd {
	_, click := msg.(tea.MouseClickMsg)
	body := m.bodyHeight()
	switch {
	case m.showHelp:
		if w, ok := msg.(tea.MouseWheelMsg); ok {
			if w.Button == tea.MouseWheelDown {
				m.helpOffset += wheelLines
			} else {
				m.helpOffset = max(m.helpOffset-wheelLines, 0)
			}
		}
		return nil
	case mo.Y > body && mo.Y <= body+inputHeight:
		if click && !m.vw.IsOpen() {
			return m.setFocus(focusInput)
		}
		return nil
	case mo.Y >= body:
		return nil
	case m.vw.IsOpen():
		_, cmd := m.vw.Update(msg)
		return cmd
	}
	var target focus
	var x int
	switch {
	case m.wide() && mo.X > m.tr.width:
		target, x = focusSources, m.tr.width+1
	case m.wide():
		target = focusTranscript
	case m.sourcesShowing():
		target = focusSources
	default:
		target = focusTranscript
	}
	var cmd tea.Cmd
	if click && m.focus != target {
		cmd = m.setFocus(target)
	}
	mo = at(mo, x, 0)
	var moved tea.Msg = tea.MouseWheelMsg(mo)
	if click {
		moved = tea.MouseClickMsg(mo)
	}
	_, pc := m.panes[target].Update(moved)
	return tea.Batch(cmd, pc)
}
