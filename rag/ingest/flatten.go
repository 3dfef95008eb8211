package ingest

import (
	"fmt"
	"strings"
)

// maxPrefix is the most bytes of container prefix (indentation, block
// quote markers, list markers) a Markdown line keeps. Deeper nesting is
// flattened: the Markdown parser's cost grows with nesting depth times
// length, and no reader nests a document 16 levels deep on purpose.
const maxPrefix = 32

// flattenNesting shortens every line's container prefix to at most
// maxPrefix bytes, dropping its outer part (whole markers, so the line
// keeps its innermost quote or list marker), outside fenced code blocks.
// note is "" when no line changed. It runs in one pass over s.
func flattenNesting(s string) (out string, note string) {
	fences := FencedBlocks(s)
	var b strings.Builder
	copied, n, f := 0, 0, 0
	for ls := 0; ls < len(s); {
		le := strings.IndexByte(s[ls:], '\n')
		next := len(s)
		if le >= 0 {
			next = ls + le + 1
		}
		for f < len(fences) && fences[f].End <= ls {
			f++
		}
		if f < len(fences) && fences[f].Start <= ls {
			ls = next
			continue
		}
		cut := prefixCut(s[ls:next])
		if cut > 0 {
			if b.Len() == 0 {
				b.Grow(len(s))
			}
			b.WriteString(s[copied:ls])
			copied = ls + cut
			n++
		}
		ls = next
	}
	if n == 0 {
		return s, ""
	}
	b.WriteString(s[copied:])
	return b.String(), fmt.Sprintf("flattened %d deeply nested line(s) (more than %d bytes of indentation, quote or list markers)", n, maxPrefix)
}

// prefixCut is how many leading bytes of line to drop so that its
// container prefix keeps at most maxPrefix bytes, cut between markers.
func prefixCut(line string) int {
	end := prefixEnd(line, func(int) {})
	if end <= maxPrefix {
		return 0
	}
	cut := -1
	prefixEnd(line, func(st int) {
		if cut < 0 && st >= end-maxPrefix {
			cut = st
		}
	})
	if cut < 0 {
		return end
	}
	return cut
}

// prefixEnd is the length of line's container prefix: spaces, tabs, '>',
// and list markers ("-", "*", "+", "1.", "1)") followed by a space or tab.
// It calls mark with the offset where each marker starts.
func prefixEnd(line string, mark func(int)) int {
	i := 0
	for i < len(line) {
		switch c := line[i]; {
		case c == ' ' || c == '\t' || c == '>':
			mark(i)
			i++
			continue
		case c == '-' || c == '*' || c == '+':
			if i+1 < len(line) && (line[i+1] == ' ' || line[i+1] == '\t') {
				mark(i)
				i += 2
				continue
			}
		case '0' <= c && c <= '9':
			j := i
			for j < len(line) && j-i < 9 && '0' <= line[j] && line[j] <= '9' {
				j++
			}
			if j+1 < len(line) && (line[j] == '.' || line[j] == ')') && (line[j+1] == ' ' || line[j+1] == '\t') {
				mark(i)
				i = j + 2
				continue
			}
		}
		return i
	}
	return i
}
