package headless

import "strings"

// textEscaper keeps ibid's footnotes apart from the brackets of the text
// they annotate, in the plain-text face. ibid draws a reference as [n] and
// an unknown source as [?]; in the answer's own text (a model's words, a
// document's sentences), every '[' directly followed by a digit or '?' is
// written \[, so a paper's own "[2][3]" reads "\[2]\[3]" and no bracketed
// numeral without a backslash is anything but ibid's.
//
// Invariant: pending is true when the text so far ended in a '[' that is
// not written yet, because the byte after it decides its form; flush
// writes it.
type textEscaper struct {
	pending bool
}

// text returns s escaped, holding back a final '['.
func (t *textEscaper) text(s string) string {
	if !t.pending && strings.IndexByte(s, '[') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 4)
	if t.pending {
		t.pending = false
		if s == "" {
			t.pending = true
			return ""
		}
		b.WriteString(bracket(s[0]))
	}
	for {
		i := strings.IndexByte(s, '[')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		if i+1 == len(s) {
			t.pending = true
			return b.String()
		}
		b.WriteString(bracket(s[i+1]))
		s = s[i+1:]
	}
}

// bracket is how a '[' of the text is written when next follows it.
func bracket(next byte) string {
	if next == '?' || (next >= '0' && next <= '9') {
		return `\[`
	}
	return "["
}

// flush returns the held '[', if any: what follows is ibid's own output.
func (t *textEscaper) flush() string {
	if t.pending {
		t.pending = false
		return "["
	}
	return ""
}

// escapeText escapes a whole string of document text (a title, a path).
func escapeText(s string) string {
	var t textEscaper
	return t.text(s) + t.flush()
}
