package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// statusMsg sets the status line: text, or an error in plain words.
type statusMsg struct {
	text string
	err  error
}

// statusLine is the one line under the input: library and size, model,
// and while streaming a spinner and tokens per second; errors replace the
// model part until the next message.
type statusLine struct {
	text string
	err  string
}

func (s *statusLine) set(m statusMsg) {
	s.text, s.err = m.text, ""
	if m.err != nil {
		s.err = m.err.Error()
	}
}

// libInfo is what the status line says about the library and model,
// read from the backend in commands (never in View).
type libInfo struct {
	name  string
	size  int
	model string
}

func readLibInfo(b Backend) libInfo {
	return libInfo{b.LibraryName(), b.LibrarySize(), b.ModelName()}
}

// tokensPerSecond estimates the stream's rate from its bytes (4 bytes a
// token, the usual rule for English text).
func tokensPerSecond(bytes int, since time.Time, now time.Time) float64 {
	d := now.Sub(since).Seconds()
	if d <= 0 {
		return 0
	}
	return float64(bytes) / 4 / d
}

// view draws the status line at width w.
func (m *Model) statusView() string {
	st := m.c.Styles
	left := st.StatusKey.Render(m.lib.name) + st.Status.Render(fmt.Sprintf(" · %d docs · ", m.lib.size)) + st.Status.Render(m.lib.model)
	var right string
	switch {
	case m.stream != nil:
		right = m.spinner.View() + st.Status.Render(fmt.Sprintf(" answering · %.0f tok/s · ctrl+c cancels", tokensPerSecond(m.streamBytes, m.streamStart, m.now)))
	case m.adding:
		p := m.addProgress
		right = m.spinner.View() + st.Status.Render(fmt.Sprintf(" adding %d/%d files · %d/%d embedded · %s", p.FilesDone, p.FilesTotal, p.Embedded, p.ToEmbed, shortFile(p.File)))
	}
	msg := ""
	if m.status.err != "" {
		msg = st.Error.Render(m.status.err)
	} else if m.status.text != "" {
		msg = st.Status.Render(m.status.text)
	}
	line := left
	if msg != "" {
		line += st.Status.Render(" · ") + msg
	}
	if right != "" {
		gap := m.width - ansi.StringWidth(line) - ansi.StringWidth(right)
		if gap < 1 {
			line = ansi.Truncate(line, max(m.width-ansi.StringWidth(right)-1, 0), "…")
			gap = 1
		}
		line += strings.Repeat(" ", gap) + right
	}
	return ansi.Truncate(line, m.width, "…")
}

func shortFile(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}
