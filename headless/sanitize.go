package headless

import (
	"strings"
	"unicode/utf8"
)

// TerminalSafe returns s with everything a terminal would act on rather
// than show made visible: C0 control characters other than tab and
// newline become their Unicode control pictures (ESC reads ␛, BEL ␇, CR
// ␍), DEL reads ␡, and C1 controls (U+0080–U+009F, among them the 8-bit
// CSI) and bytes that are not UTF-8 read U+FFFD. Nothing else changes, so
// an escape sequence quoted from a document or written by a model, such
// as ESC ] 0 ; title BEL (set the window title) or ESC [ 2 J (clear the
// screen), is shown, never run.
//
// The text and Markdown faces pass all their output through it; NDJSON
// and SSE carry text JSON-escaped and unchanged.
func TerminalSafe(s string) string {
	if terminalSafe(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r == '\t' || r == '\n':
			b.WriteRune(r)
		case r < 0x20:
			b.WriteRune(0x2400 + r)
		case r == 0x7f:
			b.WriteRune('\u2421')
		case r >= 0x80 && r <= 0x9f, r == utf8.RuneError && n == 1:
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteString(s[i-n : i])
		}
	}
	return b.String()
}

// terminalSafe reports whether TerminalSafe would leave s unchanged.
func terminalSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			continue
		}
		if c == '\t' || c == '\n' {
			continue
		}
		if c < 0x80 {
			return false
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || r <= 0x9f {
			return false
		}
		i += n - 1
	}
	return true
}
