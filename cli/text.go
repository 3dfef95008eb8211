package cli

import (
	"io"
	"os"
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"
)

// This file makes text from documents safe and tidy to print: control
// characters out, white space folded, cut or wrapped to a width in cells
// (the terminal's, when the output is one).

// clean makes text from a document safe and compact to print: control
// characters (escape sequences among them) dropped, runs of white space
// one space.
func clean(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case unicode.IsControl(r), r == '\u200b', r == '\ufeff':
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// fit cuts s to width cells, marking a cut with "…".
func fit(s string, width int) string {
	return ansi.Truncate(s, width, "…")
}

// pad fits s to exactly width cells.
func pad(s string, width int) string {
	s = fit(s, width)
	if w := ansi.StringWidth(s); w < width {
		s += strings.Repeat(" ", width-w)
	}
	return s
}

// wrapText wraps plain text (no escape sequences) to width cells: at
// spaces, and between any two wide (CJK) characters, which need none; a
// word longer than the width is cut.
func wrapText(s string, width int) []string {
	var lines []string
	var line strings.Builder
	lineW := 0
	flush := func() {
		lines = append(lines, strings.TrimRight(line.String(), " "))
		line.Reset()
		lineW = 0
	}
	for _, tok := range wrapTokens(s) {
		if tok == " " {
			if lineW > 0 && lineW < width {
				line.WriteByte(' ')
				lineW++
			}
			continue
		}
		w := ansi.StringWidth(tok)
		if lineW > 0 && lineW+w > width {
			flush()
		}
		for w > width { // a word wider than a line: cut it
			head := ansi.Truncate(tok, width, "")
			line.WriteString(head)
			flush()
			tok = tok[len(head):]
			w = ansi.StringWidth(tok)
		}
		line.WriteString(tok)
		lineW += w
	}
	if lineW > 0 || len(lines) == 0 {
		flush()
	}
	return lines
}

// wrapTokens splits s into words, single spaces, and wide characters each
// on its own.
func wrapTokens(s string) []string {
	var toks []string
	start := -1
	for i, r := range s {
		switch {
		case r == ' ':
			if start >= 0 {
				toks = append(toks, s[start:i])
				start = -1
			}
			toks = append(toks, " ")
		case ansi.StringWidth(string(r)) == 2:
			if start >= 0 {
				toks = append(toks, s[start:i])
				start = -1
			}
			toks = append(toks, string(r))
		default:
			if start < 0 {
				start = i
			}
		}
	}
	if start >= 0 {
		toks = append(toks, s[start:])
	}
	return toks
}

// isTerminal reports whether w is a terminal, and its width (80 if not
// known).
func isTerminal(w io.Writer) (bool, int) {
	f, ok := w.(interface{ Fd() uintptr })
	if !ok || !term.IsTerminal(f.Fd()) {
		return false, 80
	}
	width, _, err := term.GetSize(f.Fd())
	if err != nil || width <= 0 {
		width = 80
	}
	return true, width
}

// isTTY reports whether f is a terminal (not merely a character device:
// /dev/null is one, and the chat cannot read keys from it).
func isTTY(f *os.File) bool { return term.IsTerminal(f.Fd()) }
