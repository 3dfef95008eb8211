package ui

import (
	"errors"
	"strings"
)

// splitArgs splits a slash command's line into words the way a shell
// does for plain words: spaces separate them, 'single' and "double" quotes
// keep spaces, and a backslash keeps the next character as it is (outside
// single quotes), so /add "my papers/a b.pdf" and /add my\ papers both name
// one path. An unclosed quote is an error that says so.
func splitArgs(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord := false
	var quote rune
	escaped := false
	for _, r := range s {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped, inWord = false, true
		case r == '\\' && quote != '\'':
			escaped, inWord = true, true
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	switch {
	case quote != 0:
		return nil, errors.New("a quote is not closed: close it, e.g. /add \"my papers/a b.pdf\"")
	case escaped:
		cur.WriteRune('\\')
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}
