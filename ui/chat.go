package ui

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/ibid-dev/ibid/rag"
)

// sideMinWidth is the width from which the sources pane sits beside the
// transcript; below it the pane folds away behind ctrl+s (or tab).
const sideMinWidth = 100

// Options configure the chat.
type Options struct {
	// AddFirst are paths to add to the library before the first question,
	// with progress on the status line.
	AddFirst []string
	// Dark forces the background; nil asks the terminal.
	Dark *bool
	// Notice is shown on the status line at start (e.g. that the library
	// is empty and how to fill it).
	Notice string
}

// Model is the root of the chat: a router. It handles the global keys,
// gives every pane its size, sends keys to the focused pane (or the viewer
// when open) and other messages to the pane that owns them.
//
// Invariants: at most one answer streams (stream != nil) and its turn is
// the last; req is the id of the newest request, and stream messages with
// another id only drain a cancelled stream.
type Model struct {
	c *Common
	b Backend

	width, height int
	focus         focus
	sideOpen      bool // below sideMinWidth: the sources pane is showing

	tr   *transcript
	src  *sourcesPane
	in   *inputPane
	vw   *viewer
	help help.Model

	showHelp bool
	spinner  spinner.Model
	status   statusLine
	now      time.Time

	stream      *answerStream
	draining    map[int]*answerStream // cancelled streams still winding down
	req         int
	streamStart time.Time
	streamBytes int

	adding      bool
	addProgress AddProgress
	addFirst    []string
	styled      bool // the background is known
	lib         libInfo
	ticking     bool // the spinner's tick is scheduled
}

// tick starts the spinner unless it runs already.
func (m *Model) tick() tea.Cmd {
	if m.ticking {
		return nil
	}
	m.ticking = true
	return m.spinner.Tick
}

// New returns the chat over b, showing b's conversation so far.
func New(b Backend, opt Options) *Model {
	dark := true
	if opt.Dark != nil {
		dark = *opt.Dark
	}
	c := &Common{Styles: NewStyles(dark), Keys: DefaultKeyMap()}
	m := &Model{
		c: c, b: b,
		tr:       newTranscript(c),
		src:      &sourcesPane{c: c},
		in:       newInput(c),
		vw:       &viewer{c: c},
		help:     help.New(),
		spinner:  spinner.New(spinner.WithSpinner(spinner.Dot)),
		draining: map[int]*answerStream{},
		addFirst: opt.AddFirst,
		styled:   opt.Dark != nil,
		now:      time.Now(),
	}
	m.help.Styles = help.DefaultStyles(dark)
	m.lib = readLibInfo(b)
	m.status.set(statusMsg{text: opt.Notice})
	m.loadTurns(b.Turns())
	return m
}

// loadTurns redraws the backend's conversation (after --resume or a
// library switch).
func (m *Model) loadTurns(turns []Turn) {
	m.tr.turns, m.tr.sel, m.tr.selTurn, m.tr.dirty, m.tr.follow = nil, -1, -1, true, true
	var hist []string
	for _, t := range turns {
		tu := &turn{question: t.Question, interrupted: t.Interrupted, err: t.Error, sources: t.Sources}
		for _, e := range t.Events {
			tu.doc.applyEvent(e)
		}
		tu.doc.finish()
		m.tr.turns = append(m.tr.turns, tu)
		hist = append(hist, t.Question)
	}
	m.in.SetHistory(hist)
}

// Init asks the terminal's background, focuses the input and starts any
// additions.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.in.Focus()}
	if !m.styled {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	if len(m.addFirst) > 0 {
		cmds = append(cmds, m.startAdd(m.addFirst), m.tick())
		m.addFirst = nil
	}
	return tea.Batch(cmds...)
}

// layout gives every pane its size.
func (m *Model) layout() {
	body := m.bodyHeight()
	in := inputHeight
	m.in.SetSize(max(m.width, 10), in)
	m.vw.SetSize(m.width, body)
	m.help.SetWidth(m.width)
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
// input, the status line and the help bar.
func (m *Model) bodyHeight() int { return max(m.height-inputHeight-3, 3) }

// Update routes msg.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m.now = time.Now()
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
		return m, nil
	case tea.BackgroundColorMsg:
		m.setDark(msg.IsDark())
		return m, nil
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case streamMsg:
		return m, m.onStream(msg)
	case submitMsg:
		return m, m.submit(msg.text)
	case statusMsg:
		m.status.set(msg)
		return m, nil
	case openSourceMsg:
		return m, loadSourceCmd(m.b, msg.src)
	case viewerLoadedMsg:
		if msg.err != nil {
			m.status.set(statusMsg{err: msg.err})
			return m, nil
		}
		m.vw.load(msg)
		return m, nil
	case editorDoneMsg:
		if msg.err != nil {
			m.status.set(statusMsg{err: fmt.Errorf("the editor failed: %w (set $EDITOR or $PAGER)", msg.err)})
		}
		return m, nil
	case addProgressMsg:
		m.addProgress = msg.p
		return m, msg.next
	case addDoneMsg:
		m.adding = false
		m.lib = msg.lib
		m.status.set(statusMsg{text: msg.summary, err: msg.err})
		return m, nil
	case savedMsg, exportedMsg, switchedMsg, newConvMsg:
		return m, m.onCommandDone(msg)
	case spinner.TickMsg:
		if m.stream == nil && !m.adding {
			m.ticking = false
			return m, nil // stop ticking while idle
		}
		var cmd tea.Cmd
		m.spinner, cmd = m.spinner.Update(msg)
		return m, cmd
	}
	// anything else (cursor blink, paste) belongs to the input
	return m, m.in.Update(msg)
}

func (m *Model) setDark(dark bool) {
	m.styled = true
	m.c.Styles = NewStyles(dark)
	m.help.Styles = help.DefaultStyles(dark)
	m.in.restyle(dark)
	m.tr.restyle()
}

// key handles the global keys and sends the rest to the focused pane.
func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	k := m.c.Keys
	switch {
	case key.Matches(msg, k.Quit):
		if m.stream != nil {
			m.cancel()
			return nil
		}
		return tea.Quit
	case m.showHelp:
		m.showHelp = false
		return nil
	case m.vw.open:
		return m.vw.Update(msg)
	case key.Matches(msg, k.FocusNext):
		m.setFocus((m.focus + 1) % focusCount)
		return nil
	case key.Matches(msg, k.FocusPrev):
		m.setFocus((m.focus + focusCount - 1) % focusCount)
		return nil
	case key.Matches(msg, k.ToggleSide):
		m.sideOpen = !m.sideOpen
		return nil
	case key.Matches(msg, k.Help) && m.focus != focusInput:
		m.showHelp = true
		return nil
	}
	switch m.focus {
	case focusTranscript:
		return m.tr.Update(msg)
	case focusSources:
		return m.src.Update(msg, m.shownSources())
	}
	return m.in.Update(msg)
}

func (m *Model) setFocus(f focus) {
	m.tr.Blur()
	m.src.Blur()
	m.in.Blur()
	m.focus = f
	switch f {
	case focusTranscript:
		m.tr.Focus()
	case focusSources:
		m.src.Focus()
	default:
		m.in.Focus()
	}
}

// cancel stops the streaming answer; the partial answer stays, marked.
func (m *Model) cancel() {
	s := m.stream
	s.cancel()
	m.draining[s.req] = s
	m.stream = nil
	m.req++
	if n := len(m.tr.turns); n > 0 {
		tu := m.tr.turns[n-1]
		tu.streaming, tu.interrupted, tu.err = false, true, "cancelled"
		tu.doc.finish()
		m.tr.dirty = true
	}
	m.status.set(statusMsg{text: "answer cancelled"})
}

// ask starts answering question.
func (m *Model) ask(question string) tea.Cmd {
	if m.stream != nil {
		m.status.set(statusMsg{err: errors.New("an answer is still streaming: wait, or press ctrl+c to cancel it")})
		return nil
	}
	m.req++
	m.tr.turns = append(m.tr.turns, &turn{question: question, streaming: true, req: m.req})
	m.tr.sel, m.tr.selTurn, m.tr.follow, m.tr.dirty = -1, -1, true, true
	m.status.set(statusMsg{})
	m.streamStart, m.streamBytes = m.now, 0
	s, cmd := startAnswer(m.b, m.req, question)
	m.stream = s
	return tea.Batch(cmd, m.tick())
}

// onStream applies a batch of the answer in progress.
func (m *Model) onStream(msg streamMsg) tea.Cmd {
	if s, ok := m.draining[msg.req]; ok {
		if msg.end {
			delete(m.draining, msg.req)
			return saveCmd(m.b)
		}
		return s.next
	}
	if m.stream == nil || msg.req != m.stream.req {
		return nil // a straggler
	}
	tu := m.tr.turns[len(m.tr.turns)-1]
	for _, e := range msg.events {
		m.apply(tu, e)
	}
	if !msg.end {
		return m.stream.next
	}
	m.stream = nil
	tu.streaming = false
	tu.doc.finish()
	m.tr.dirty = true
	if msg.err != nil && tu.err == "" {
		tu.err = msg.err.Error()
	}
	if tu.err != "" {
		m.status.set(statusMsg{err: errors.New(plainError(tu.err))})
	}
	return saveCmd(m.b)
}

// apply feeds one event to the streaming turn.
func (m *Model) apply(tu *turn, e rag.Event) {
	switch e.Type {
	case rag.EventText:
		m.streamBytes += len(e.Text)
		tu.doc.applyEvent(e)
	case rag.EventRef, rag.EventUnknown:
		tu.doc.applyEvent(e)
	case rag.EventCitation:
		if e.Source != nil {
			s := *e.Source
			if e.Inferred {
				s.Inferred = true
			}
			tu.sources = append(tu.sources, s)
		}
	case rag.EventError:
		tu.err = e.Text
		if e.Text != "cancelled" {
			tu.interrupted = tu.doc.text.Len() > 0
		}
	case rag.EventDone:
		if e.Inferred {
			tu.note = "the model cited nothing: references were attributed by text overlap (marked as inferred)"
		}
		if e.Info != nil && e.Info.Interrupted {
			tu.interrupted = true
		}
	}
}

// plainError turns an answer error into a sentence for the status line.
func plainError(s string) string {
	if strings.Contains(s, "cancelled") {
		return "answer cancelled"
	}
	return s
}

// shownSources are the sources of the turn the side pane shows.
func (m *Model) shownSources() []rag.Source {
	ti := m.tr.shownTurn()
	if ti < 0 || ti >= len(m.tr.turns) {
		return nil
	}
	tu := m.tr.turns[ti]
	out := make([]rag.Source, 0, len(tu.sources))
	for _, s := range tu.sources {
		if tu.doc.seen[s.Number] {
			out = append(out, s)
		}
	}
	return out
}

// View draws the screen.
func (m *Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	return v
}

func (m *Model) render() string {
	if m.width == 0 {
		return ""
	}
	st := m.c.Styles
	var body string
	switch {
	case m.showHelp:
		body = m.fullHelp()
	case m.vw.open:
		body = m.vw.View()
	case m.wide():
		sel := 0
		if _, nd, ok := m.tr.selected(); ok {
			sel = nd.num
		}
		rule := strings.TrimSuffix(strings.Repeat(st.Border.Render("│")+"\n", m.bodyHeight()), "\n")
		body = lipgloss.JoinHorizontal(lipgloss.Top, m.tr.View(), rule, m.src.View(m.shownSources(), sel))
	case m.sideOpen || m.focus == focusSources:
		sel := 0
		if _, nd, ok := m.tr.selected(); ok {
			sel = nd.num
		}
		body = m.src.View(m.shownSources(), sel)
	default:
		body = m.tr.View()
	}
	ruleStyle := st.Border
	if m.focus == focusInput {
		ruleStyle = st.BorderFocused
	}
	title := m.paneTitle()
	rule := ruleStyle.Render("── ") + st.PaneTitle.Render(title) + " " + ruleStyle.Render(strings.Repeat("─", max(m.width-ansi.StringWidth(title)-4, 0)))
	helpBar := m.help.ShortHelpView(paneHelp{k: m.c.Keys, focus: m.focus, view: m.vw.open}.ShortHelp())
	return strings.Join([]string{body, rule, m.in.View(), m.statusView(), helpBar}, "\n")
}

// paneTitle names what has focus, shown in the rule above the input.
func (m *Model) paneTitle() string {
	switch {
	case m.showHelp:
		return "help · any key closes it"
	case m.vw.open:
		return "source viewer"
	case m.focus == focusTranscript:
		n := m.tr.totalNodes()
		return fmt.Sprintf("transcript · %d references", n)
	case m.focus == focusSources:
		return "sources"
	case !m.wide() && len(m.shownSources()) == 1:
		return "ask · 1 source (ctrl+s)"
	case !m.wide() && len(m.shownSources()) > 0:
		return fmt.Sprintf("ask · %d sources (ctrl+s)", len(m.shownSources()))
	}
	return "ask"
}

// fullHelp is the ? screen: every key, by pane, and the slash commands,
// in two columns when they fit side by side.
func (m *Model) fullHelp() string {
	st := m.c.Styles
	k := m.c.Keys
	group := func(title string, bs ...key.Binding) []string {
		out := []string{st.PaneTitleFocused.Render(title)}
		for _, b := range bs {
			h := b.Help()
			out = append(out, st.StatusKey.Render(fmt.Sprintf("%-10s", h.Key))+" "+h.Desc)
			if w := ansi.StringWidth(h.Key); w > 10 {
				out[len(out)-1] = st.StatusKey.Render(h.Key) + "  " + h.Desc
			}
		}
		return out
	}
	// pair shows two bindings on one line: "↑/k ↓/j  up, down"
	pair := func(a, b key.Binding) key.Binding {
		return key.NewBinding(key.WithHelp(a.Help().Key+" "+b.Help().Key, a.Help().Desc+", "+b.Help().Desc))
	}
	left := append(append(group("Everywhere", k.FocusNext, k.FocusPrev, k.ToggleSide, k.Help, k.Quit),
		group("Input", k.Send, k.Newline, k.HistoryPrev, k.HistoryNext)...),
		group("Source viewer", pair(k.Up, k.Down), k.NextSeg, k.PrevSeg, k.Edit, k.Back)...)
	right := group("Transcript", k.NextNode, k.PrevNode, k.Digit, k.Open, pair(k.Up, k.Down), pair(k.PageUp, k.PageDown), pair(k.Top, k.Bottom))
	right = append(right, "", st.PaneTitleFocused.Render("Slash commands (in the input)"))
	for _, l := range strings.Split(slashHelp, "\n") {
		cmd, desc, _ := strings.Cut(l, "  ")
		right = append(right, st.StatusKey.Render(fmt.Sprintf("%-15s", cmd))+strings.TrimSpace(desc))
	}
	var lines []string
	colW := max(m.width/2-1, 20)
	if m.width >= 2*36 {
		for i := 0; i < max(len(left), len(right)); i++ {
			var l, r string
			if i < len(left) {
				l = left[i]
			}
			if i < len(right) {
				r = right[i]
			}
			pad := max(colW-ansi.StringWidth(l), 1)
			lines = append(lines, ansi.Truncate(l, colW, "…")+strings.Repeat(" ", pad)+r)
		}
	} else {
		lines = append(left, right...)
	}
	h := m.bodyHeight()
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, m.width, "…")
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines[:h], "\n")
}
