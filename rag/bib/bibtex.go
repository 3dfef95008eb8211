package bib

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Problem is something in a bibliography that was not read: a syntax
// error, a duplicate citekey, an undefined macro. The rest was read.
type Problem struct {
	Line int    // 1-based line in the file, 0 when not known
	Key  string // the entry's citekey, when known
	Text string
	// Note marks what was read, but differently from how it was written
	// (a file that is not UTF-8); nothing was left out.
	Note bool
}

func (p Problem) String() string {
	s := ""
	if p.Line > 0 {
		s = fmt.Sprintf("line %d: ", p.Line)
	}
	if p.Key != "" {
		s += p.Key + ": "
	}
	return s + p.Text
}

// raw is one BibTeX entry as written: its type and key, and its fields
// with @string macros expanded and concatenations joined, the values
// still LaTeX. Field names are lower case.
type raw struct {
	typ, key string
	fields   map[string]string
	order    []string // field names in the order written
	line     int
}

// maxFieldBytes bounds a field's value, so that a runaway brace cannot
// make one value of the whole rest of a file without notice.
const maxFieldBytes = 1 << 20

// monthMacros are the macros BibTeX predefines.
var monthMacros = map[string]string{
	"jan": "January", "feb": "February", "mar": "March", "apr": "April",
	"may": "May", "jun": "June", "jul": "July", "aug": "August",
	"sep": "September", "oct": "October", "nov": "November", "dec": "December",
}

// parser reads BibTeX as BibTeX and biber do: text outside entries is a
// comment; an entry is @type{key, name = value, …} or with parentheses;
// a value is {braced}, "quoted", a number or a macro, joined by #.
//
// A syntax error ends only the entry it is in: the parser notes the
// problem and goes on at the next '@' that starts a line.
type parser struct {
	src      string
	pos      int
	macros   map[string]string
	entries  []raw
	problems []Problem
}

// parseRaw reads all entries of src.
func parseRaw(src string) ([]raw, []Problem) {
	src = strings.TrimPrefix(src, "\ufeff")
	p := &parser{src: src, macros: map[string]string{}}
	for k, v := range monthMacros {
		p.macros[k] = v
	}
	for {
		at := strings.IndexByte(p.src[p.pos:], '@')
		if at < 0 {
			break
		}
		p.pos += at
		start := p.pos
		if err := p.item(); err != nil {
			p.problems = append(p.problems, Problem{Line: p.lineAt(start), Key: err.key, Text: err.msg})
			p.pos = max(p.pos, start+1)
			if !p.entryStart(p.pos) {
				p.skipToNextItem()
			}
		}
	}
	return p.entries, p.problems
}

// syntaxError is an error in one item.
type syntaxError struct {
	key, msg string
}

func (p *parser) fail(key, format string, args ...any) *syntaxError {
	return &syntaxError{key: key, msg: fmt.Sprintf(format, args...)}
}

// lineAt is the 1-based line of byte offset off.
func (p *parser) lineAt(off int) int {
	return strings.Count(p.src[:min(off, len(p.src))], "\n") + 1
}

// skipToNextItem moves to the next '@' at the start of a line (after
// space), where the next entry most likely begins.
func (p *parser) skipToNextItem() {
	for p.pos < len(p.src) {
		nl := strings.IndexByte(p.src[p.pos:], '\n')
		if nl < 0 {
			p.pos = len(p.src)
			return
		}
		p.pos += nl + 1
		rest := strings.TrimLeft(p.src[p.pos:], " \t")
		if strings.HasPrefix(rest, "@") {
			p.pos = len(p.src) - len(rest)
			return
		}
	}
}

func (p *parser) skipSpace() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r', '\f', '\v':
			p.pos++
		default:
			return
		}
	}
}

// ident reads a name: a type, field or macro name.
func (p *parser) ident() string {
	start := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if c <= ' ' || strings.IndexByte("{}(),=#\"%'@", c) >= 0 {
			break
		}
		p.pos++
	}
	return p.src[start:p.pos]
}

// item reads one @… item at p.pos.
func (p *parser) item() *syntaxError {
	line := p.lineAt(p.pos)
	p.pos++ // '@'
	typ := strings.ToLower(p.ident())
	if typ == "" {
		return nil // a lone '@' in a comment
	}
	p.skipSpace()
	if p.pos >= len(p.src) || (p.src[p.pos] != '{' && p.src[p.pos] != '(') {
		// "@comment" followed by text, an e-mail address in the text
		// between entries: comments, as BibTeX reads them.
		return nil
	}
	closer := byte('}')
	if p.src[p.pos] == '(' {
		closer = ')'
	}
	switch typ {
	case "comment":
		return p.skipBalanced()
	case "preamble":
		return p.skipBalanced()
	case "string":
		p.pos++
		return p.macro(closer)
	}
	p.pos++
	return p.entry(typ, closer, line)
}

// skipBalanced skips a delimited block whose opener is at p.pos.
func (p *parser) skipBalanced() *syntaxError {
	open := p.src[p.pos]
	closeCh := byte('}')
	if open == '(' {
		closeCh = ')'
	}
	depth := 0
	for ; p.pos < len(p.src); p.pos++ {
		switch p.src[p.pos] {
		case open:
			depth++
		case closeCh:
			depth--
			if depth == 0 {
				p.pos++
				return nil
			}
		}
	}
	return p.fail("", "block is never closed")
}

// macro reads the body of @string{name = value}.
func (p *parser) macro(closer byte) *syntaxError {
	for {
		p.skipSpace()
		if p.pos < len(p.src) && p.src[p.pos] == closer {
			p.pos++
			return nil
		}
		name := strings.ToLower(p.ident())
		if name == "" {
			return p.fail("", "@string: expected a macro name")
		}
		p.skipSpace()
		if p.pos >= len(p.src) || p.src[p.pos] != '=' {
			return p.fail("", "@string %s: expected '='", name)
		}
		p.pos++
		v, err := p.value("", closer)
		if err != nil {
			return err
		}
		p.macros[name] = v
		p.skipSpace()
		if p.pos < len(p.src) && p.src[p.pos] == ',' {
			p.pos++
		}
	}
}

// entry reads an entry's key and fields, after its opening delimiter.
func (p *parser) entry(typ string, closer byte, line int) *syntaxError {
	p.skipSpace()
	start := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if c == ',' || c == closer || c <= ' ' {
			break
		}
		if c == '=' || c == '{' || c == '}' {
			return p.fail("", "@%s: the citekey is missing (it comes before the first field)", typ)
		}
		p.pos++
	}
	key := p.src[start:p.pos]
	if key == "" {
		return p.fail("", "@%s: the citekey is missing", typ)
	}
	if !utf8.ValidString(key) || oneLine(key) != key {
		return p.fail("", "@%s: the citekey %q is not valid UTF-8 text", typ, key)
	}
	e := raw{typ: typ, key: key, fields: map[string]string{}, line: line}
	p.skipSpace()
	for {
		p.skipSpace()
		if p.pos >= len(p.src) {
			return p.fail(key, "the entry is never closed (a missing %q?)", closer)
		}
		switch p.src[p.pos] {
		case closer:
			p.pos++
			p.entries = append(p.entries, e)
			return nil
		case ',':
			p.pos++
			continue
		}
		name := strings.ToLower(p.ident())
		if name == "" {
			return p.fail(key, "expected a field name, found %q", p.src[p.pos])
		}
		p.skipSpace()
		if p.pos >= len(p.src) || p.src[p.pos] != '=' {
			return p.fail(key, "field %s: expected '='", name)
		}
		p.pos++
		v, err := p.value(key, closer)
		if err != nil {
			return err
		}
		if _, dup := e.fields[name]; !dup {
			e.order = append(e.order, name)
			e.fields[name] = v
		}
	}
}

// value reads a field's value: parts joined by '#'.
func (p *parser) value(key string, closer byte) (string, *syntaxError) {
	var b strings.Builder
	for {
		p.skipSpace()
		if p.pos >= len(p.src) {
			return "", p.fail(key, "a value is missing at the end of the file")
		}
		switch c := p.src[p.pos]; {
		case c == '{':
			s, err := p.delimited(key, '}')
			if err != nil {
				return "", err
			}
			b.WriteString(s)
		case c == '"':
			s, err := p.delimited(key, '"')
			if err != nil {
				return "", err
			}
			b.WriteString(s)
		case c >= '0' && c <= '9':
			start := p.pos
			for p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
				p.pos++
			}
			b.WriteString(p.src[start:p.pos])
		default:
			name := p.ident()
			if name == "" {
				return "", p.fail(key, "expected a value, found %q", c)
			}
			v, ok := p.macros[strings.ToLower(name)]
			if !ok {
				p.problems = append(p.problems, Problem{Line: p.lineAt(p.pos), Key: key,
					Text: fmt.Sprintf("undefined @string macro %q (kept as written)", name)})
				v = name
			}
			b.WriteString(v)
		}
		if b.Len() > maxFieldBytes {
			return "", p.fail(key, "a value is longer than %d bytes (an unclosed brace?)", maxFieldBytes)
		}
		p.skipSpace()
		if p.pos < len(p.src) && p.src[p.pos] == '#' {
			p.pos++
			continue
		}
		return collapseSpace(b.String()), nil
	}
}

// delimited reads a {braced} or "quoted" part whose opener is at p.pos
// and returns its content, braces inside kept. A quoted part ends at a
// '"' outside braces.
func (p *parser) delimited(key string, end byte) (string, *syntaxError) {
	open := p.pos
	p.pos++
	depth := 0
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == '\\' && p.pos+1 < len(p.src):
			p.pos += 2
			continue
		case c == '{':
			depth++
		case c == '}' && depth == 0 && end == '}':
			s := p.src[open+1 : p.pos]
			p.pos++
			return s, nil
		case c == '}' && depth == 0:
			return "", p.fail(key, "a '}' closes nothing inside a quoted value")
		case c == '}':
			depth--
		case c == '"' && end == '"' && depth == 0:
			s := p.src[open+1 : p.pos]
			p.pos++
			return s, nil
		case c == '@' && p.entryStart(p.pos):
			// An entry begins inside this value: the value was never closed.
			return "", p.fail(key, "a value opened on line %d is never closed", p.lineAt(open))
		}
		p.pos++
		if p.pos-open > maxFieldBytes {
			return "", p.fail(key, "a value opened on line %d is longer than %d bytes (an unclosed brace?)", p.lineAt(open), maxFieldBytes)
		}
	}
	return "", p.fail(key, "a value opened on line %d is never closed", p.lineAt(open))
}

// entryStart reports whether an entry seems to begin at s[i]: an '@' at
// the start of a line, a type name, and its opening delimiter.
func (p *parser) entryStart(i int) bool {
	if i >= len(p.src) || p.src[i] != '@' || !atLineStart(p.src, i) {
		return false
	}
	j := i + 1
	for j < len(p.src) && (p.src[j] >= 'a' && p.src[j] <= 'z' || p.src[j] >= 'A' && p.src[j] <= 'Z') {
		j++
	}
	if j == i+1 {
		return false
	}
	for j < len(p.src) && (p.src[j] == ' ' || p.src[j] == '\t') {
		j++
	}
	return j < len(p.src) && (p.src[j] == '{' || p.src[j] == '(')
}

// atLineStart reports whether only spaces stand between the line's start
// and s[i].
func atLineStart(s string, i int) bool {
	for j := i - 1; j >= 0; j-- {
		switch s[j] {
		case '\n':
			return true
		case ' ', '\t':
		default:
			return false
		}
	}
	return true
}

// collapseSpace turns runs of white space into one space and trims, as
// BibTeX does with field values.
func collapseSpace(s string) string {
	if !strings.ContainsAny(s, "\n\r\t\f\v") && !strings.Contains(s, "  ") &&
		strings.TrimSpace(s) == s {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}
