package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/ibid-dev/ibid/rag/library"
	"github.com/ibid-dev/ibid/ui/backend"
	"github.com/ibid-dev/ibid/ui/render"
)

// statusMsg sets the status line: text, or an error in plain words.
type statusMsg struct {
	text string
	err  error
}

// statusLine is the message part of the status area: a notice or an error
// in plain words, kept until the next message. held is set when the text
// is the note about a command kept in the input while an answer streams;
// it clears when the answer ends. wait is set when the text is a retry wait
// of the answer's model request; it clears when text arrives or the answer
// ends. viewer is set when the viewer said it (about its document); it
// clears when the viewer closes.
type statusLine struct {
	text   string
	err    string
	held   bool
	wait   bool
	viewer bool
}

func (s *statusLine) set(m statusMsg) {
	s.text, s.err, s.held, s.wait, s.viewer = m.text, "", false, false, false
	if m.err != nil {
		s.err = m.err.Error()
	}
}

// maxMessageLines bounds how many lines a long message may take above the
// status line.
const maxMessageLines = 3

// libInfo is what the status line says about the library and model,
// read from the backend in commands (never in View).
type libInfo struct {
	name       string
	size       int
	model      string
	extractive bool
}

func readLibInfo(b backend.Backend) libInfo {
	return libInfo{b.LibraryName(), b.LibrarySize(), b.ModelName(), b.Extractive()}
}

// modelLabel is the model's name, or what answers without one.
func (l libInfo) modelLabel() string {
	if l.extractive || l.model == "" {
		return "extractive (no model configured)"
	}
	return l.model
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

// statusPart is one piece of the status line. When the line is too narrow,
// parts are dropped lowest rank first: hints go before the state.
type statusPart struct {
	text  string // plain
	rank  int
	right bool // on the right-hand side
	key   bool // drawn in the key style (the library name)
}

// Ranks of the status parts, lowest dropped first.
const (
	rankHint = iota + 1
	rankDetail
	rankRate
	rankModel
	rankName
	rankActivity
)

// statusParts are the pieces of the state: library, size, model; while
// answering, adding or syncing in the background, the activity on the
// right (an answer's first).
func (m *Model) statusParts() []statusPart {
	l := m.lib
	parts := []statusPart{
		{text: l.name, rank: rankName, key: true},
		{text: fmt.Sprintf("%d docs", l.size), rank: rankDetail},
		{text: l.modelLabel(), rank: rankModel},
	}
	switch {
	case m.stream != nil:
		parts = append(parts,
			statusPart{text: strings.TrimSpace(m.spinner.View()) + " answering", rank: rankActivity, right: true},
			statusPart{text: fmt.Sprintf("%.0f tok/s", tokensPerSecond(m.streamBytes, m.streamStart, m.now)), rank: rankRate, right: true},
			statusPart{text: "ctrl+c cancels", rank: rankHint, right: true})
	case m.adding:
		p := m.addProgress
		parts = append(parts,
			statusPart{text: fmt.Sprintf("%s adding %d/%d files", strings.TrimSpace(m.spinner.View()), p.FilesDone, p.FilesTotal), rank: rankActivity, right: true},
			statusPart{text: fmt.Sprintf("%d/%d embedded", p.Embedded, p.ToEmbed), rank: rankRate, right: true})
		if p.Stage == library.StageOCR.String() {
			parts = append(parts, statusPart{text: fmt.Sprintf("OCR page %d/%d", p.OCRDone, p.OCRTotal), rank: rankRate, right: true})
		}
		if f := shortFile(p.File); f != "" {
			parts = append(parts, statusPart{text: f, rank: rankHint, right: true})
		}
	case m.syncing:
		parts = append(parts, m.syncParts()...)
	}
	return parts
}

// statusLines draws the status area at the model's width: the message
// (wrapped, on lines of its own when it does not fit beside the state),
// then the state line, shortened by dropping parts by rank. No word is cut
// unless a single part is wider than the screen.
func (m *Model) statusLines() []string {
	st := m.c.Styles
	w := max(m.width, 1)
	parts := m.statusParts()
	sep := " · "
	draw := func(ps []statusPart) (string, int) {
		var left, right []string
		var lw, rw int
		for _, p := range ps {
			s := st.Status.Render(p.text)
			if p.key {
				s = st.StatusKey.Render(p.text)
			}
			pw := ansi.StringWidth(p.text)
			if p.right {
				if len(right) > 0 {
					rw += len(sep)
				}
				right, rw = append(right, s), rw+pw
			} else {
				if len(left) > 0 {
					lw += len(sep)
				}
				left, lw = append(left, s), lw+pw
			}
		}
		ds := st.Status.Render(sep)
		l, r := strings.Join(left, ds), strings.Join(right, ds)
		if r == "" {
			return l, lw
		}
		gap := max(w-lw-rw, 1)
		return l + strings.Repeat(" ", gap) + r, lw + gap + rw
	}
	fits := func(ps []statusPart) bool {
		_, n := draw(ps)
		return n <= w
	}
	for rank := rankHint; !fits(parts) && rank < rankActivity; rank++ {
		kept := parts[:0:0]
		for _, p := range parts {
			if p.rank != rank {
				kept = append(kept, p)
			}
		}
		parts = kept
	}
	state, sw := draw(parts)
	if sw > w {
		state = ansi.Truncate(state, w, "…")
	}
	msg, style := m.status.text, st.Status
	if m.status.err != "" {
		msg, style = m.status.err, st.Error
	}
	if msg == "" {
		return []string{state}
	}
	// beside the state when it fits, before the activity on the right
	if !hasRight(parts) && sw+len(sep)+ansi.StringWidth(msg) <= w {
		return []string{state + st.Status.Render(sep) + style.Render(msg)}
	}
	lines := strings.Split(ansi.Wrap(msg, w, " "), "\n")
	if len(lines) > maxMessageLines {
		lines = lines[:maxMessageLines]
		lines[maxMessageLines-1] = render.Shorten(lines[maxMessageLines-1]+" …", w)
	}
	for i, l := range lines {
		lines[i] = style.Render(l)
	}
	return append(lines, state)
}

func hasRight(ps []statusPart) bool {
	for _, p := range ps {
		if p.right {
			return true
		}
	}
	return false
}

func shortFile(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}
