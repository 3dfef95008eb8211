package cli

import "strings"

// prose unwraps text written for the source, wrapped at 76 columns, into
// one line per paragraph, so that fang wraps the help to the terminal's
// width and the man page gets paragraphs, not one per source line. A
// blank line ends a paragraph; a line that starts with a space (a list
// item, a table row) keeps its own line.
func prose(text string) string {
	var b strings.Builder
	lines := strings.Split(strings.TrimSpace(text), "\n")
	for i, l := range lines {
		if i > 0 {
			prev := lines[i-1]
			if l == "" || prev == "" || strings.HasPrefix(l, " ") || strings.HasPrefix(prev, " ") || strings.HasSuffix(prev, ":") {
				b.WriteByte('\n')
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteString(l)
	}
	return b.String()
}
