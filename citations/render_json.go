package citations

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// json renders the json and sections modes from the whole answer with a
// recursive-descent parser that stops at the end of the text (truncated)
// or at the first syntax error (malformed), keeping what it has. The
// contract, as it reads here:
//
//   - before the object: white space, and once, a line that begins with a
//     backtick or a tilde (a code fence); the '{' must come within the
//     first 64 bytes, or the whole answer is inline text (not_json);
//   - the top object's "body" string (json) and each "sections" entry's
//     "text" string (sections) are inline documents of their own;
//     "citedSourceIds" (json) and "source_ids" (a section) hold ids;
//   - an id entry is a string or a number: "source_k" or k (1 to 6
//     digits); anything else is a bad id, kept as written (at most 24
//     bytes);
//   - a number is a run of the bytes 0-9 + - . e E (read leniently);
//   - a section's ids are drawn when it ends, or when the answer ends
//     (truncated or malformed) inside it.
func (o *renderer) json(mode Mode, s string) {
	i := jsonSpace(s, 0)
	if i < len(s) && (s[i] == '`' || s[i] == '~') {
		nl := strings.IndexByte(s[i:], '\n')
		if nl < 0 {
			i = len(s)
		} else {
			i = jsonSpace(s, i+nl+1)
		}
	}
	if i >= len(s) || s[i] != '{' || i > renderMaxToken {
		o.rep.NotJSON = true
		o.inline(s)
		return
	}
	p := &jparser{o: o, mode: mode, s: s, i: i, listed: map[int]bool{}}
	p.object(vTop)
	o.rep.Truncated = p.end
	o.rep.Malformed = p.bad
	if mode == ModeJSON {
		o.compare(p.declared)
	}
}

// What a value is to the answer.
type jrole int

const (
	vOther         jrole = iota
	vTop                 // the answer's object
	vText                // a string that is a document: the body, a section's text
	vDeclaredList        // json mode: the "citedSourceIds" array
	vSectionsList        // sections mode: the "sections" array
	vSection             // an object in the sections array
	vIDList              // a section's "source_ids" array
	vDeclaredEntry       // an entry of the declared list
	vIDEntry             // an entry of a section's ids
)

// jparser is one recursive-descent parse. Once end (the text ran out) or
// bad (a syntax error) is set, every function returns at once.
type jparser struct {
	o        *renderer
	mode     Mode
	s        string
	i        int
	end, bad bool
	declared []int // json mode: each alias once, as listed
	listed   map[int]bool
	secKs    []int // the open section's ids
	secRaws  []string
}

func (p *jparser) stopped() bool { return p.end || p.bad }

// peek skips white space and returns the next byte; at the end of the
// text it sets end.
func (p *jparser) peek() (byte, bool) {
	p.i = jsonSpace(p.s, p.i)
	if p.i == len(p.s) {
		p.end = true
		return 0, false
	}
	return p.s[p.i], true
}

func jsonSpace(s string, i int) int {
	for i < len(s) && strings.IndexByte(" \t\r\n", s[i]) >= 0 {
		i++
	}
	return i
}

// object parses an object at p.i ('{') that plays role.
func (p *jparser) object(role jrole) {
	p.i++
	if role == vSection {
		p.secKs, p.secRaws = nil, nil
		defer func() { p.o.citeOnce(p.secKs, p.secRaws) }()
	}
	first := true
	for {
		c, ok := p.peek()
		if !ok {
			return
		}
		if first && c == '}' {
			p.i++
			return
		}
		first = false
		if c != '"' {
			p.bad = true
			return
		}
		key := p.str()
		if p.stopped() {
			return
		}
		if c, ok = p.peek(); !ok {
			return
		}
		if c != ':' {
			p.bad = true
			return
		}
		p.i++
		p.value(childRole(p.mode, role, key))
		if p.stopped() {
			return
		}
		if c, ok = p.peek(); !ok {
			return
		}
		p.i++
		switch c {
		case ',':
		case '}':
			return
		default:
			p.bad = true
			return
		}
	}
}

// childRole is the role of the value under key in an object of role.
func childRole(mode Mode, role jrole, key string) jrole {
	switch {
	case role == vTop && mode == ModeJSON && key == "body":
		return vText
	case role == vTop && mode == ModeJSON && key == "citedSourceIds":
		return vDeclaredList
	case role == vTop && mode == ModeSections && key == "sections":
		return vSectionsList
	case role == vSection && key == "text":
		return vText
	case role == vSection && key == "source_ids":
		return vIDList
	}
	return vOther
}

// array parses an array at p.i ('[') that plays role.
func (p *jparser) array(role jrole) {
	p.i++
	first := true
	for {
		c, ok := p.peek()
		if !ok {
			return
		}
		if first && c == ']' {
			p.i++
			return
		}
		first = false
		p.value(entryRole(role))
		if p.stopped() {
			return
		}
		if c, ok = p.peek(); !ok {
			return
		}
		p.i++
		switch c {
		case ',':
		case ']':
			return
		default:
			p.bad = true
			return
		}
	}
}

// entryRole is the role of an entry of an array of role.
func entryRole(role jrole) jrole {
	switch role {
	case vDeclaredList:
		return vDeclaredEntry
	case vSectionsList:
		return vSection
	case vIDList:
		return vIDEntry
	}
	return vOther
}

// value parses one value that plays role.
func (p *jparser) value(role jrole) {
	c, ok := p.peek()
	if !ok {
		return
	}
	isID := role == vDeclaredEntry || role == vIDEntry
	switch {
	case c == '{':
		if role != vSection {
			role = vOther
		}
		p.object(role)
	case c == '[':
		if role != vDeclaredList && role != vSectionsList && role != vIDList {
			role = vOther
		}
		p.array(role)
	case c == '"':
		s := p.str()
		switch {
		case role == vText:
			p.o.inline(s) // kept even when the string was cut short
		case isID && !p.stopped():
			p.id(role, s)
		}
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if lit[0] != c {
				continue
			}
			rest := p.s[p.i:]
			switch {
			case strings.HasPrefix(rest, lit):
				p.i += len(lit)
			case strings.HasPrefix(lit, rest):
				p.end = true
			default:
				p.bad = true
			}
		}
	case c == '-' || (c >= '0' && c <= '9'):
		n := len(p.s[p.i:]) - len(strings.TrimLeft(p.s[p.i:], "0123456789+-.eE"))
		if p.i+n == len(p.s) {
			p.end = true
			return
		}
		if isID {
			p.id(role, p.s[p.i:p.i+n])
		}
		p.i += n
	default:
		p.bad = true
	}
}

// id records an entry of an ids array.
func (p *jparser) id(role jrole, raw string) {
	k, ok := renderIDValue(raw)
	if !ok {
		if len(raw) > 24 {
			raw = raw[:24]
		}
		p.o.rep.BadIDs = append(p.o.rep.BadIDs, raw)
		return
	}
	if role == vIDEntry {
		p.secKs = append(p.secKs, k)
		p.secRaws = append(p.secRaws, raw)
		return
	}
	if !p.listed[k] {
		p.listed[k] = true
		p.declared = append(p.declared, k)
	}
}

// renderIDValue reads an ids-array entry: the whole of it is "source_k"
// as in a token, or k.
func renderIDValue(s string) (int, bool) {
	if m := renderOneID.FindStringSubmatch(s); m != nil && m[0] == s {
		s = m[1]
	}
	if len(s) < 1 || len(s) > 6 || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	k, err := strconv.Atoi(s)
	return k, err == nil
}

// str parses the string at p.i (its opening quote) and returns it decoded,
// as far as it goes: at the end of the text or a bad escape it returns
// what came before (end or bad set).
func (p *jparser) str() string {
	var b strings.Builder
	p.i++
	for {
		j := strings.IndexAny(p.s[p.i:], `"\`)
		if j < 0 {
			b.WriteString(p.s[p.i:])
			p.i = len(p.s)
			p.end = true
			return b.String()
		}
		b.WriteString(p.s[p.i : p.i+j])
		p.i += j
		if p.s[p.i] == '"' {
			p.i++
			return b.String()
		}
		if !p.escape(&b) {
			return b.String()
		}
	}
}

// escape decodes the escape at p.i into b; false when the text ends
// inside it (end) or it is not an escape (bad). A high surrogate joins
// the low one that follows at once; alone, either half is U+FFFD.
func (p *jparser) escape(b *strings.Builder) bool {
	r, n, ok := p.escAt(p.i)
	if !ok {
		return false
	}
	if r >= 0xD800 && r <= 0xDBFF {
		rest := p.s[p.i+n:]
		switch {
		case rest == "" || rest == `\`:
			p.end = true // the low half may still come
			return false
		case strings.HasPrefix(rest, `\u`):
			lo, m, ok := p.escAt(p.i + n)
			if !ok {
				return false
			}
			if lo >= 0xDC00 && lo <= 0xDFFF {
				b.WriteRune(utf16.DecodeRune(r, lo))
				p.i += n + m
				return true
			}
		}
	}
	if utf16.IsSurrogate(r) {
		r = utf8.RuneError
	}
	b.WriteRune(r)
	p.i += n
	return true
}

// escAt reads one escape at s[i] ('\'): its rune and length.
func (p *jparser) escAt(i int) (rune, int, bool) {
	rest := p.s[i:]
	if len(rest) < 2 {
		p.end = true
		return 0, 0, false
	}
	if j := strings.IndexByte(`"\/bfnrt`, rest[1]); j >= 0 {
		return rune("\"\\/\b\f\n\r\t"[j]), 2, true
	}
	if rest[1] != 'u' {
		p.bad = true
		return 0, 0, false
	}
	hex := rest[2:min(len(rest), 6)]
	if strings.Trim(hex, "0123456789abcdefABCDEF") != "" {
		p.bad = true
		return 0, 0, false
	}
	if len(hex) < 4 {
		p.end = true
		return 0, 0, false
	}
	v, _ := strconv.ParseUint(hex, 16, 32)
	return rune(v), 6, true
}
