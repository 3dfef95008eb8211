package ui

import (
	"errors"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"github.com/ibid-dev/ibid/ui/backend"
	"github.com/ibid-dev/ibid/ui/termimage"
	"github.com/ibid-dev/ibid/ui/viewer"
)

// sideMinWidth is the width from which the sources pane sits beside the
// transcript; below it the pane folds away behind ctrl+s (or tab).
const sideMinWidth = 100

// Options configure the chat.
type Options struct {
	// AddFirst are paths to add to the library before the first question,
	// with progress on the status line.
	AddFirst []string
	// Theme is "light", "dark" or "" (ask the terminal, with COLORFGBG
	// as the guess until it answers).
	Theme string
	// Notice is shown on the status line at start (e.g. that the library
	// is empty and how to fill it).
	Notice string
	// Getenv reads the environment (nil: os.Getenv); tests replace it.
	Getenv func(string) string
	// Open names the programs the viewer's o runs (a PDF viewer, an
	// editor); the chat reads no environment for them.
	Open viewer.OpenSettings
	// RenderPage draws a PDF's page as it looks with boxes marked, for the
	// viewer's i (the PDF engine's; nil: i says it cannot).
	RenderPage viewer.RenderFunc
	// Terminal is what the environment says of the terminal, for showing
	// a page inline (the terminal's answers decide; see ui/termimage).
	Terminal termimage.Env
	// CacheDir is where a page goes when the terminal shows no images,
	// to be opened with the system's viewer.
	CacheDir string
	// OpenTerminal opens the terminal pages are shown on (nil: the
	// controlling terminal); tests give their own.
	OpenTerminal func() (termimage.Terminal, error)
	// LibraryPoll is how often the library's counts are read again, to
	// show changes made by another process (0: every libPollEvery;
	// negative: never).
	LibraryPoll time.Duration
}

// Model is the root of the chat: a router. It handles the global keys,
// gives every pane its size, sends keys to the focused pane (or the viewer
// when open), mouse events to the pane under the pointer and other
// messages to the pane that owns them.
//
// Invariants: at most one answer streams (stream != nil) and its turn is
// the last; req is the id of the newest request, and stream messages with
// another id only drain a cancelled stream. panes[focus] is the focused
// pane and the only one not blurred.
type Model struct {
	c *common
	b backend.Backend

	width, height int
	focus         focus
	sideOpen      bool // below sideMinWidth: the sources pane is showing

	tr    *transcript
	src   *sourcesPane
	in    *inputPane
	vw    viewerPane
	panes [focusCount]pane

	showHelp   bool
	helpOffset int // first line of the ? screen shown
	spinner    spinner.Model
	status     statusLine
	statusN    int // lines the status area took in the last frame
	now        time.Time

	stream      *answerStream
	draining    map[int]*answerStream // cancelled streams still winding down
	req         int
	streamStart time.Time
	streamBytes int

	adding      bool
	addProgress backend.AddProgress
	addFirst    []string
	styled      bool // the background is known (theme option or the terminal's answer)
	themeFixed  bool // Options.Theme chose it: the terminal's answer is ignored
	lib         libInfo
	examples    []string      // the first screen's example questions (Suggester)
	suggestSeq  int           // the number of the latest request for examples (suggestionsCmd)
	ticking     bool          // the spinner's tick is scheduled
	pollEvery   time.Duration // how often the library's counts are read (<= 0: never)

	// syncing: a background sync of the library's folders reads files
	// (library.go); syncProgress is how far it is.
	syncing      bool
	syncProgress backend.SyncEvent

	bar helpBar // the help bar as last drawn
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
func New(b backend.Backend, opt Options) *Model {
	dark, known := initialDark(opt.Theme, opt.Getenv)
	c := &common{Styles: newStyles(dark), Keys: defaultKeyMap()}
	m := &Model{
		c: c, b: b,
		tr: newTranscript(c),
		in: newInput(c),
		vw: viewerPane{viewer.New(c.Keys.viewer(), c.Styles.Viewer, viewer.Settings{
			Open: opt.Open, Render: opt.RenderPage, Terminal: opt.Terminal, CacheDir: opt.CacheDir, OpenTerminal: opt.OpenTerminal})},
		spinner:    spinner.New(spinner.WithSpinner(spinner.Dot)),
		draining:   map[int]*answerStream{},
		addFirst:   opt.AddFirst,
		styled:     known,
		themeFixed: known,
		now:        time.Now(),
		statusN:    1,
		pollEvery:  opt.LibraryPoll,
	}
	if m.pollEvery == 0 {
		m.pollEvery = libPollEvery
	}
	m.src = newSourcesPane(c, m.tr.sources)
	m.panes = [focusCount]pane{focusInput: m.in, focusTranscript: m.tr, focusSources: m.src}
	m.lib = readLibInfo(b)
	m.status.set(statusMsg{text: opt.Notice})
	m.loadTurns(b.Turns())
	return m
}

// loadTurns redraws the backend's conversation (after --resume or a
// library switch) and seeds the input's history with its questions.
func (m *Model) loadTurns(turns []backend.Turn) {
	m.tr.load(turns)
	m.in.SetHistory(m.tr.questions())
}

// Init asks the terminal's background, focuses the input, reads the
// first screen's example questions (in the background), starts polling the library's
// counts and starts any additions.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.in.Focus(), m.suggestionsCmd(), pollLibrary(m.b, m.pollEvery), waitSync(syncEventsOf(m.b))}
	if !m.styled {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	if len(m.addFirst) > 0 {
		cmds = append(cmds, m.startAdd(m.addFirst), m.tick())
		m.addFirst = nil
	}
	return tea.Batch(cmds...)
}

// Update routes msg.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m.now = time.Now()
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
		return m, nil
	case tea.BackgroundColorMsg:
		if !m.themeFixed {
			m.setDark(msg.IsDark())
		}
		return m, nil
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case tea.MouseClickMsg:
		return m, m.mouse(msg, msg.Mouse())
	case tea.MouseWheelMsg:
		return m, m.mouse(msg, msg.Mouse())
	case streamMsg:
		return m, m.onStream(msg)
	case submitMsg:
		return m, m.submit(msg.text)
	case statusMsg:
		m.status.set(msg)
		return m, nil
	case suggestionsMsg:
		if msg.seq != m.suggestSeq {
			return m, nil // made for a request since replaced
		}
		m.examples = msg.qs
		if m.tr.empty() && m.in.HistoryEmpty() {
			// ↑ on the first screen puts an example in the input
			ex := slices.Clone(m.examples)
			for i, j := 0, len(ex)-1; i < j; i, j = i+1, j-1 {
				ex[i], ex[j] = ex[j], ex[i]
			}
			m.in.SetExamples(ex)
		}
		return m, nil
	case openSourceMsg:
		return m, loadSourceCmd(m.b, msg.src)
	case viewerLoadedMsg:
		if msg.err != nil {
			m.status.set(statusMsg{err: msg.err})
			return m, nil
		}
		m.vw.Load(msg.content)
		return m, nil
	case viewer.StatusMsg:
		m.status.set(statusMsg{text: msg.Text, err: msg.Err})
		m.status.viewer = m.vw.IsOpen()
		return m, nil
	case viewer.Msg:
		_, cmd := m.vw.Update(msg)
		return m, cmd
	case libCountMsg:
		return m, m.onLibCount(msg)
	case syncMsg:
		return m, m.onSync(msg)
	case addProgressMsg:
		m.addProgress = msg.p
		return m, msg.next
	case addDoneMsg:
		m.adding = false
		m.lib = msg.lib
		m.status.set(statusMsg{text: msg.summary, err: msg.err})
		return m, m.suggestionsCmd()
	case savedMsg, exportedMsg, switchedMsg, newConvMsg:
		return m, m.onCommandDone(msg)
	case spinner.TickMsg:
		if m.stream == nil && !m.adding && !m.syncing {
			m.ticking = false
			return m, nil // stop ticking while idle
		}
		var cmd tea.Cmd
		m.spinner, cmd = m.spinner.Update(msg)
		return m, cmd
	}
	// anything else (cursor blink, paste) belongs to the input
	_, cmd := m.in.Update(msg)
	return m, cmd
}

func (m *Model) setDark(dark bool) {
	m.styled = true
	m.c.Styles = newStyles(dark)
	m.vw.SetStyles(m.c.Styles.Viewer)
	m.in.restyle()
	m.tr.restyle()
}

// isHelpKey reports whether msg opens the help: f1 anywhere, ? wherever
// it cannot be text (outside the input, or on an empty input).
func (m *Model) isHelpKey(msg tea.KeyPressMsg) bool {
	if !key.Matches(msg, m.c.Keys.Help) {
		return false
	}
	return msg.String() != "?" || m.vw.IsOpen() || m.focus != focusInput || m.in.Empty()
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
		m.helpKey(msg)
		return nil
	case m.isHelpKey(msg):
		m.showHelp, m.helpOffset = true, 0
		return nil
	case m.vw.IsOpen():
		_, cmd := m.vw.Update(msg)
		if !m.vw.IsOpen() && m.status.viewer {
			m.status.set(statusMsg{}) // what the viewer said was about its document
		}
		return cmd
	case key.Matches(msg, k.FocusNext):
		return m.setFocus((m.focus + 1) % focusCount)
	case key.Matches(msg, k.FocusPrev):
		return m.setFocus((m.focus + focusCount - 1) % focusCount)
	case key.Matches(msg, k.ToggleSide):
		m.sideOpen = !m.sideOpen
		return nil
	}
	_, cmd := m.panes[m.focus].Update(msg)
	return cmd
}

// helpKey scrolls the ? screen with the scrolling keys; any other key
// closes it.
func (m *Model) helpKey(msg tea.KeyPressMsg) {
	k := m.c.Keys
	switch {
	case key.Matches(msg, k.Down):
		m.helpOffset++
	case key.Matches(msg, k.Up):
		m.helpOffset = max(m.helpOffset-1, 0)
	case key.Matches(msg, k.PageDown):
		m.helpOffset += m.bodyHeight() / 2
	case key.Matches(msg, k.PageUp):
		m.helpOffset = max(m.helpOffset-m.bodyHeight()/2, 0)
	default:
		m.showHelp = false
	}
}

func (m *Model) setFocus(f focus) tea.Cmd {
	for _, p := range m.panes {
		p.Blur()
	}
	m.focus = f
	return m.panes[f].Focus()
}

// cancel stops the streaming answer; the partial answer stays, marked.
func (m *Model) cancel() {
	s := m.stream
	s.cancel()
	m.draining[s.req] = s
	m.stream = nil
	m.req++
	m.tr.interrupt()
	m.status.set(statusMsg{text: "answer cancelled"})
}

// ask starts answering question.
func (m *Model) ask(question string) tea.Cmd {
	if m.stream != nil {
		return m.hold(question, "an answer is still streaming: your question is kept in the input; press enter when it ends, or ctrl+c to cancel the answer")
	}
	m.req++
	m.tr.begin(question, m.req)
	m.status.set(statusMsg{})
	m.streamStart, m.streamBytes = m.now, 0
	s, cmd := startAnswer(m.b, m.req, question)
	m.stream = s
	return tea.Batch(cmd, m.tick())
}

// hold puts text that cannot run yet back in the input, with a note that
// clears when the answer ends. Text typed since is kept after it.
func (m *Model) hold(text, note string) tea.Cmd {
	if cur := strings.TrimSpace(m.in.Value()); cur != "" && cur != text {
		text += "\n" + cur
	}
	m.in.SetValue(text)
	m.status.set(statusMsg{text: note})
	m.status.held = true
	return nil
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
	text := 0
	for _, e := range msg.events {
		text += m.tr.apply(e)
	}
	m.streamBytes += text
	if text > 0 && m.status.wait {
		m.status.set(statusMsg{})
	}
	if msg.wait != "" {
		m.status.set(statusMsg{text: msg.wait})
		m.status.wait = true
	}
	if !msg.end {
		return m.stream.next
	}
	m.stream = nil
	if m.status.held || m.status.wait {
		m.status.set(statusMsg{})
	}
	if err := m.tr.end(msg.err); err != "" {
		m.status.set(statusMsg{err: errors.New(plainError(err))})
	}
	return saveCmd(m.b)
}

// plainError turns an answer error into a sentence for the status line.
func plainError(s string) string {
	if strings.Contains(s, "cancelled") {
		return "answer cancelled"
	}
	return s
}
