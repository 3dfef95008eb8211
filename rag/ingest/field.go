package ingest

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxField is the most bytes a title, author, date or URL keeps, and a
// section heading.
const maxField = 512

// OneLine makes s fit one line of a field shown to people or put in a
// prompt (a title, an author, a section heading): control characters
// (line breaks, tabs, escape sequences' ESC, NUL), Unicode line and
// paragraph separators and bidirectional controls become spaces; runs of
// white space collapse into one; the ends are trimmed; more than maxField
// bytes are cut on a rune boundary with "…". A document can therefore not
// start a new line, or a new prompt block, from its metadata.
func OneLine(s string) string {
	if len(s) <= maxField && isOneLine(s) {
		return s
	}
	var b strings.Builder
	space := true // at the start: drop leading white space
	for _, r := range s {
		if breaksLine(r) || unicode.IsSpace(r) {
			if !space {
				b.WriteByte(' ')
				space = true
			}
			continue
		}
		if b.Len()+utf8.RuneLen(r) > maxField {
			return strings.TrimRight(b.String(), " ") + "…"
		}
		b.WriteRune(r)
		space = false
	}
	return strings.TrimRight(b.String(), " ")
}

// isOneLine reports whether OneLine leaves s as it is.
func isOneLine(s string) bool {
	prevSpace := true
	for _, r := range s {
		sp := r == ' '
		if breaksLine(r) || (unicode.IsSpace(r) && !sp) || (sp && prevSpace) {
			return false
		}
		prevSpace = sp
	}
	return !prevSpace || s == ""
}

// breaksLine reports whether r is a control character or one that can
// move or reorder text on a line: C0 and C1 controls, U+2028 and U+2029,
// and the bidirectional embeddings, overrides and isolates.
func breaksLine(r rune) bool {
	switch {
	case unicode.IsControl(r), r == 0x2028, r == 0x2029, r == utf8.RuneError:
		return true
	case 0x202A <= r && r <= 0x202E, 0x2066 <= r && r <= 0x2069, r == 0x200E, r == 0x200F, r == 0x061C:
		return true
	}
	return false
}

// Clip is s cut to at most n bytes, never inside a rune, with "…" after
// it when it was cut: for a text quoted in a message or a label.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
