package bib

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// bibNames reads a BibTeX name list ("Gao, Luyu and Ma, Xueguang and
// others") as BibTeX does: names are separated by the word "and" outside
// braces; "others" at the end means more authors. Each name is read by
// bibName, on the raw LaTeX, and then decoded.
func bibNames(s string) (names []Name, etAl bool) {
	for _, part := range splitAnd(s) {
		if strings.EqualFold(part, "others") {
			etAl = true
			continue
		}
		if n, ok := bibName(part); ok {
			names = append(names, n)
		}
	}
	return names, etAl
}

// splitAnd splits a name list at each "and" (any case) that stands
// between white space outside braces.
func splitAnd(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth = max(depth-1, 0)
		case ' ', '\t', '\n', '~':
			if depth == 0 && i+4 < len(s) && strings.EqualFold(s[i+1:i+4], "and") && isSpaceByte(s[i+4]) {
				out = append(out, strings.TrimSpace(s[start:i]))
				i += 4
				start = i + 1
			}
		}
	}
	out = append(out, strings.TrimSpace(s[start:]))
	keep := out[:0]
	for _, p := range out {
		if p != "" {
			keep = append(keep, p)
		}
	}
	return keep
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '~'
}

// bibName reads one BibTeX name in any of its three forms: "First von
// Last", "von Last, First" and "von Last, Jr, First". The von part is the
// run of words that start with a lower-case letter (outside braces; a
// special character such as {\"u} counts by its letter); a fully braced
// name ("{World Health Organization}") is one family name.
func bibName(s string) (Name, bool) {
	if n, ok := extendedName(s); ok {
		return n, n.Family != ""
	}
	parts := splitTop(s, ',')
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	var n Name
	switch len(parts) {
	case 0:
		return n, false
	case 1:
		words := nameWords(parts[0])
		if len(words) == 0 {
			return n, false
		}
		last := len(words) - 1
		vonStart, vonEnd := -1, -1
		for i := 0; i < last; i++ {
			if wordCase(words[i]) == lower {
				if vonStart < 0 {
					vonStart = i
				}
				vonEnd = i
			}
		}
		if vonStart < 0 {
			n.Given = joinWords(words[:last])
			n.Family = joinWords(words[last:])
		} else {
			n.Given = joinWords(words[:vonStart])
			n.Particle = joinWords(words[vonStart : vonEnd+1])
			n.Family = joinWords(words[vonEnd+1:])
		}
	default:
		words := nameWords(parts[0])
		vonEnd := -1
		for i := 0; i < len(words)-1; i++ {
			if wordCase(words[i]) == lower {
				vonEnd = i
			}
		}
		n.Particle = joinWords(words[:vonEnd+1])
		n.Family = joinWords(words[vonEnd+1:])
		if len(parts) == 2 {
			n.Given = parts[1]
		} else {
			n.Suffix = parts[1]
			n.Given = strings.Join(parts[2:], " ")
		}
	}
	n.Given, n.Particle, n.Family, n.Suffix = Latex(n.Given), Latex(n.Particle), Latex(n.Family), Latex(n.Suffix)
	if n.Family == "" && n.Given != "" {
		n.Family, n.Given = n.Given, ""
	}
	return n, n.Family != ""
}

// extendedName reads BibLaTeX's extended name format, which Better
// BibTeX writes for names with particles: "family=Berg, given=Ana,
// prefix=van der, useprefix=true".
func extendedName(s string) (Name, bool) {
	if !strings.Contains(s, "=") {
		return Name{}, false
	}
	var n Name
	for _, part := range splitTop(s, ',') {
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			return Name{}, false
		}
		v = Latex(strings.TrimSpace(v))
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "family":
			n.Family = v
		case "given":
			n.Given = v
		case "prefix":
			n.Particle = v
		case "suffix":
			n.Suffix = v
		case "useprefix", "given-i", "family-i", "prefix-i", "suffix-i":
		default:
			return Name{}, false
		}
	}
	return n, true
}

// splitTop splits s at sep outside braces.
func splitTop(s string, sep byte) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth = max(depth-1, 0)
		case '\\':
			i++ // \, is a thin space, not a separator
		case sep:
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// nameWords splits a name part into words at white space and ties
// outside braces.
func nameWords(s string) []string {
	var out []string
	depth, start := 0, -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		if depth == 0 && (c == ' ' || c == '\t' || c == '\n' || c == '~') {
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
		switch c {
		case '{':
			depth++
		case '}':
			depth = max(depth-1, 0)
		case '\\':
			i++
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

func joinWords(w []string) string { return strings.Join(w, " ") }

type letterCase int

const (
	caseless letterCase = iota
	lower
	upper
)

// wordCase is the case of a name word, as BibTeX decides the von part:
// the first letter outside braces; a special character ({\"u}, {\o})
// counts by the letter it makes; another braced group makes the word
// upper case (it is protected).
func wordCase(w string) letterCase {
	depth := 0
	for i := 0; i < len(w); {
		c := w[i]
		switch {
		case c == '{' && depth == 0 && i+1 < len(w) && w[i+1] == '\\':
			// A special character: the case of what it decodes to.
			end := skipGroup(w, i)
			return caseOf(Latex(w[i:end]))
		case c == '{':
			if depth == 0 {
				return upper
			}
			depth++
			i++
		case c == '}':
			depth--
			i++
		case c == '\\':
			// \"u outside braces: decode the command with its argument.
			return caseOf(Latex(w[i:]))
		default:
			r, n := utf8.DecodeRuneInString(w[i:])
			if unicode.IsLetter(r) {
				return caseOf(string(r))
			}
			i += n
		}
	}
	return caseless
}

func caseOf(s string) letterCase {
	for _, r := range s {
		switch {
		case unicode.IsLower(r):
			return lower
		case unicode.IsUpper(r), unicode.IsLetter(r):
			return upper
		}
	}
	return caseless
}
