package ui

import (
	"strconv"
	"strings"
	"time"

	"charm.land/glamour/v2"
	"github.com/charmbracelet/x/ansi"
)

// Placeholders carry reference nodes through glamour: each has the width of
// the chip that replaces it ("⟦12⟧" and "[12]" are both 4 cells), so
// glamour wraps lines exactly as they will be drawn, and it cannot split
// them across colour codes the way it splits "[12]".
const (
	phOpen      = '⟦' // cited node: ⟦n⟧; unknown id: ⟦?⟧
	phClose     = '⟧'
	phInfOpen   = '⦃' // inferred node: ⦃n⦄
	phInfClose  = '⦄'
	phUnknownIn = "?"
)

// nodeKind says how a reference node was made.
type nodeKind int

const (
	nodeCited nodeKind = iota
	nodeInferred
	nodeUnknown
)

func (k nodeKind) String() string {
	return [...]string{"cited", "inferred", "unknown"}[k]
}

// placeholder is the text standing for a node while glamour renders.
func placeholder(k nodeKind, n int) string {
	switch k {
	case nodeInferred:
		return string(phInfOpen) + strconv.Itoa(n) + string(phInfClose)
	case nodeUnknown:
		return string(phOpen) + phUnknownIn + string(phClose)
	}
	return string(phOpen) + strconv.Itoa(n) + string(phClose)
}

// chipText is what a node reads as on screen.
func chipText(k nodeKind, n int) string {
	if k == nodeUnknown {
		return "[?]"
	}
	return "[" + strconv.Itoa(n) + "]"
}

// mdRenderer renders Markdown for one width and background. It wraps a
// glamour renderer, which is not safe across goroutines: a mdRenderer
// belongs to the goroutine that draws (the program's), and tests and
// benchmarks make their own.
type mdRenderer struct {
	r     *glamour.TermRenderer
	width int
	dark  bool
	// Bytes and Spent count the Markdown bytes handed to glamour and the
	// time spent in it, for the stream-render benchmark.
	Bytes int64
	Spent time.Duration
}

func newMDRenderer(width int, dark bool) *mdRenderer {
	r, err := glamour.NewTermRenderer(glamour.WithStyles(mdStyle(themeFor(dark))), glamour.WithWordWrap(max(width, 10)))
	if err != nil {
		r = nil // styles are built in; cannot fail in practice
	}
	return &mdRenderer{r: r, width: width, dark: dark}
}

// render returns src as styled lines: glamour's padding to the wrap width
// stripped, leading and trailing blank lines dropped.
func (m *mdRenderer) render(src string) []string {
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
		// bullet is not always counted): wrap again rather than cut a word
		lines = append(lines, strings.Split(ansi.Wrap(l, max(m.width, 10), " "), "\n")...)
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

// swapChips replaces the placeholders in line with styled chips. chip is
// called for each in order with the node's kind and number and returns the
// styled chip. A chip ends with a reset, so the colour codes in force
// before it are written again after it: the text that follows keeps
// glamour's style.
func swapChips(line string, chip func(k nodeKind, n int) string) string {
	if !strings.ContainsRune(line, phOpen) && !strings.ContainsRune(line, phInfOpen) {
		return line
	}
	var b strings.Builder
	var sgr []string // SGR sequences in force (since the last reset)
	for i := 0; i < len(line); {
		if strings.HasPrefix(line[i:], "\x1b[") {
			j := i + 2
			for j < len(line) && (line[j] >= '0' && line[j] <= '9' || line[j] == ';' || line[j] == ':') {
				j++
			}
			if j < len(line) && line[j] == 'm' {
				seq := line[i : j+1]
				if seq == "\x1b[0m" || seq == "\x1b[m" {
					sgr = sgr[:0]
				} else {
					sgr = append(sgr, seq)
				}
				b.WriteString(seq)
				i = j + 1
				continue
			}
		}
		k, n, size := parsePlaceholder(line[i:])
		if size == 0 {
			b.WriteByte(line[i])
			i++
			continue
		}
		b.WriteString(chip(k, n))
		for _, s := range sgr {
			b.WriteString(s)
		}
		i += size
	}
	return b.String()
}

// parsePlaceholder reads a placeholder at the start of s; size 0 means none.
func parsePlaceholder(s string) (k nodeKind, n int, size int) {
	var closer rune
	switch {
	case strings.HasPrefix(s, string(phOpen)):
		k, closer = nodeCited, phClose
		s = s[len(string(phOpen)):]
		size = len(string(phOpen))
	case strings.HasPrefix(s, string(phInfOpen)):
		k, closer = nodeInferred, phInfClose
		s = s[len(string(phInfOpen)):]
		size = len(string(phInfOpen))
	default:
		return 0, 0, 0
	}
	j := 0
	for j < len(s) && j < 7 && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == 0 && k == nodeCited && strings.HasPrefix(s, phUnknownIn) {
		k, j = nodeUnknown, len(phUnknownIn)
	} else if j == 0 {
		return 0, 0, 0
	} else {
		n, _ = strconv.Atoi(s[:j])
	}
	if !strings.HasPrefix(s[j:], string(closer)) {
		return 0, 0, 0
	}
	return k, n, size + j + len(string(closer))
}

// countPlaceholders counts the placeholders in s.
func countPlaceholders(s string) int {
	c := 0
	for i := 0; i < len(s); {
		if _, _, size := parsePlaceholder(s[i:]); size > 0 {
			c++
			i += size
			continue
		}
		i++
	}
	return c
}
