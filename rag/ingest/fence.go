package ingest

import "strings"

// Span is a byte range [Start, End) of a text.
type Span struct{ Start, End int }

// FenceOpen reports whether line (without its line end) opens a fenced
// code block, as CommonMark has it: at most three spaces of indentation,
// then three or more backticks or tildes; a backtick fence's info string
// holds no backtick. It returns the fence character and the run's length,
// which a closing line must reach.
func FenceOpen(line string) (char byte, n int, ok bool) {
	t, ok := fenceIndent(line)
	if !ok || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return 0, 0, false
	}
	c := t[0]
	for n < len(t) && t[n] == c {
		n++
	}
	if n < 3 || (c == '`' && strings.IndexByte(t[n:], '`') >= 0) {
		return 0, 0, false
	}
	return c, n, true
}

// FenceCloses reports whether line (without its line end) closes a fence
// opened with n characters char: at most three spaces of indentation, at
// least n of char, then only spaces or tabs.
func FenceCloses(line string, char byte, n int) bool {
	t, ok := fenceIndent(line)
	if !ok {
		return false
	}
	k := 0
	for k < len(t) && t[k] == char {
		k++
	}
	return k >= n && strings.Trim(t[k:], " \t") == ""
}

// fenceIndent strips up to three leading spaces; ok is false if the line
// is indented further (indented code, not a fence).
func fenceIndent(line string) (string, bool) {
	i := 0
	for i < len(line) && i < 4 && line[i] == ' ' {
		i++
	}
	if i == 4 || (i < len(line) && line[i] == '\t') {
		return "", false
	}
	return line[i:], true
}

// FencedBlocks returns the fenced code blocks of Markdown text in order:
// each from the start of its opening line to the end of its closing line
// (line end included), or to the end of text when it is never closed.
// Fences inside other containers (block quotes, list items) are not seen;
// this is the one fence rule ibid's plain-text consumers share.
func FencedBlocks(text string) []Span {
	var out []Span
	var char byte
	n, open := 0, -1
	for ls := 0; ls < len(text); {
		le := strings.IndexByte(text[ls:], '\n')
		next := len(text)
		if le >= 0 {
			le += ls
			next = le + 1
		} else {
			le = len(text)
		}
		line := text[ls:le]
		switch {
		case open < 0:
			if c, k, ok := FenceOpen(line); ok {
				char, n, open = c, k, ls
			}
		case FenceCloses(line, char, n):
			out = append(out, Span{open, next})
			open = -1
		}
		ls = next
	}
	if open >= 0 {
		out = append(out, Span{open, len(text)})
	}
	return out
}
