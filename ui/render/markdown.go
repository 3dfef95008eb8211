package render

import (
	"strings"
	"time"

	"charm.land/glamour/v2"
	"github.com/charmbracelet/x/ansi"
)

// Renderer renders Markdown for one width and palette. It wraps a
// glamour renderer, which is not safe across goroutines: a Renderer
// belongs to the goroutine that draws (the program's), and tests and
// benchmarks make their own.
type Renderer struct {
	r     *glamour.TermRenderer
	width int
	// Bytes and Spent count the Markdown bytes handed to glamour and the
	// time spent in it, for the stream-render benchmark.
	Bytes int64
	Spent time.Duration

	// blocks remembers RenderBlock's last blockMemo results by source,
	// oldest first in order.
	blocks map[string][]string
	order  []string
}

// blockMemo is how many rendered blocks a Renderer remembers: the blocks
// of a long answer, which an inferred footnote redraws whole.
const blockMemo = 256

// NewRenderer returns a renderer wrapping at width, coloured from p.
func NewRenderer(width int, p Palette) *Renderer {
	r, err := glamour.NewTermRenderer(glamour.WithStyles(Style(p)), glamour.WithWordWrap(max(width, 10)))
	if err != nil {
		r = nil // styles are built in; cannot fail in practice
	}
	return &Renderer{r: r, width: width}
}

// Width is the width the renderer wraps at.
func (m *Renderer) Width() int { return m.width }

// Render returns src as styled lines, none wider than the width (words
// longer than a line broken): glamour's padding to the wrap width
// stripped, leading and trailing blank lines dropped.
func (m *Renderer) Render(src string) []string {
	start := time.Now()
	m.Bytes += int64(len(src))
	out := src
	if m.r != nil {
		if s, err := m.r.Render(src); err == nil {
			out = s
		}
	}
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		l = trimRightANSI(l)
		if ansi.StringWidth(l) <= m.width {
			lines = append(lines, l)
			continue
		}
		// glamour overflows its wrap width now and then (a list item's
		// bullet is not always counted): wrap again rather than cut a word,
		// and break a word still too long (a heading's, after its margin)
		for _, w := range strings.Split(ansi.Wrap(l, max(m.width, 10), " "), "\n") {
			if ansi.StringWidth(w) > max(m.width, 10) {
				lines = append(lines, strings.Split(ansi.Hardwrap(w, max(m.width, 10), true), "\n")...)
				continue
			}
			lines = append(lines, w)
		}
	}
	for len(lines) > 0 && ansi.Strip(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && ansi.Strip(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	m.Spent += time.Since(start)
	return lines
}

// RenderBlock is Render of a finished block, its lines packed
// (PackLines), remembered: a block rendered again with the same source
// (an answer rebuilt to place an inferred footnote redraws every block,
// most of them unchanged) costs no glamour. The lines are shared with
// every caller of the same source: they must not be modified.
func (m *Renderer) RenderBlock(src string) []string {
	if lines, ok := m.blocks[src]; ok {
		return lines
	}
	lines := PackLines(m.Render(src))
	if m.blocks == nil {
		m.blocks = map[string][]string{}
	}
	if len(m.order) == blockMemo {
		delete(m.blocks, m.order[0])
		m.order = append(m.order[:0], m.order[1:]...)
	}
	m.blocks[src] = lines
	m.order = append(m.order, src)
	return lines
}

// trimRightANSI drops trailing spaces from a styled line, keeping its
// escape codes balanced with a reset.
func trimRightANSI(l string) string {
	plain := ansi.Strip(l)
	trimmed := strings.TrimRight(plain, " ")
	if len(trimmed) == len(plain) {
		return l
	}
	if trimmed == "" {
		return ""
	}
	return ansi.Truncate(l, ansi.StringWidth(trimmed), "") + "\x1b[0m"
}
