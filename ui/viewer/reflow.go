package viewer

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// reflow lays a passage's text out at width: the source's own line breaks
// inside a paragraph (a PDF's lines, a Markdown paragraph's hard wraps) are
// joined and the paragraph is wrapped again at width, so it reads as the
// terminal's width allows whatever column the source was set in.
//
// Kept as they are: one blank line between paragraphs (runs of blank lines
// become one), code (a fenced block, from its fence to the closing one, and
// a paragraph whose every line is indented by a tab or four spaces), and
// lines that begin a Markdown block of their own (a heading, a list item, a
// quote, a table row), which start a new line but are still wrapped. Lines
// of code longer than width are left for the caller to cut.
//
// Invariant: the result has no leading or trailing blank line and, but for
// code, no line wider than width.
func reflow(text string, width int) []string {
	width = max(width, 1)
	src := strings.Split(strings.ReplaceAll(strings.TrimSpace(text), "\r\n", "\n"), "\n")
	var out, para []string
	flush := func() {
		if len(para) == 0 {
			return
		}
		if len(out) > 0 && out[len(out)-1] != "" {
			out = append(out, "")
		}
		if indentedCode(para) {
			out = append(out, para...)
		} else {
			out = append(out, wrapJoined(para, width)...)
		}
		para = nil
	}
	for i := 0; i < len(src); i++ {
		l := strings.TrimRight(src[i], " \t")
		switch {
		case isFence(l):
			flush()
			if len(out) > 0 && out[len(out)-1] != "" {
				out = append(out, "")
			}
			out = append(out, l)
			for i++; i < len(src); i++ {
				out = append(out, strings.TrimRight(src[i], " \t"))
				if isFence(src[i]) {
					break
				}
			}
			out = append(out, "") // the code's end is a paragraph's end
		case l == "":
			flush()
		default:
			para = append(para, l)
		}
	}
	flush()
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// wrapJoined joins a paragraph's lines with spaces, starting a new line at
// each line that opens a block of its own, and wraps each at width.
func wrapJoined(lines []string, width int) []string {
	var out []string
	cur := ""
	emit := func() {
		if cur != "" {
			out = append(out, strings.Split(ansi.Wrap(cur, width, " -"), "\n")...)
		}
		cur = ""
	}
	for _, l := range lines {
		if blockStart(l) {
			emit()
			cur = strings.TrimSpace(l)
			continue
		}
		if cur == "" {
			cur = strings.TrimSpace(l)
		} else {
			cur += " " + strings.TrimSpace(l)
		}
	}
	emit()
	return out
}

// isFence reports a Markdown code fence line (``` or ~~~, up to three
// spaces of indent).
func isFence(l string) bool {
	t := strings.TrimLeft(l, " ")
	return len(l)-len(t) <= 3 && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"))
}

// indentedCode reports a paragraph whose every line is indented code.
func indentedCode(lines []string) bool {
	for _, l := range lines {
		if !strings.HasPrefix(l, "\t") && !strings.HasPrefix(l, "    ") {
			return false
		}
	}
	return true
}

// blockStart reports a line that begins a Markdown block of its own: a
// heading, a list item, a quote or a table row.
func blockStart(l string) bool {
	t := strings.TrimLeft(l, " ")
	switch {
	case strings.HasPrefix(t, "#"), strings.HasPrefix(t, ">"), strings.HasPrefix(t, "|"):
		return true
	case strings.HasPrefix(t, "- "), strings.HasPrefix(t, "* "), strings.HasPrefix(t, "+ "), strings.HasPrefix(t, "• "):
		return true
	}
	// an ordered item: digits then ". " or ") "
	n := 0
	for n < len(t) && n < 9 && t[n] >= '0' && t[n] <= '9' {
		n++
	}
	return n > 0 && n+1 < len(t) && (t[n] == '.' || t[n] == ')') && t[n+1] == ' '
}
