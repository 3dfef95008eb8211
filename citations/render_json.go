package citations

import (
	"strings"
	"unicode/utf8"
)

// json renders the json and sections modes from the whole answer with a
// recursive-descent parser that stops at the end of the text (truncated)
// or at the first syntax error (malformed), keeping what it has.
func (o *renderer) json(mode Mode, s string) {
	i := skipSpace(s, 0)
	if i < len(s) && (s[i] == '`' || s[i] == '~') {
		if nl := strings.IndexByte(s[i:], '\n'); nl >= 0 {
			i = skipSpace(s, i+nl+1)
		} else {
			i = len(s)
		}
	}
	if i >= len(s) || s[i] != '{' || i > MaxToken {
		o.num.rep.NotJSON = true
		o.inline(s)
		return
	}
	p := &jparser{o: o, mode: mode, s: s, i: i}
	p.value(rNone, true)
	if p.eof {
		o.num.rep.Truncated = true
	}
	if p.bad {
		o.num.rep.Malformed = true
	}
	if mode == ModeJSON {
		o.num.compare(p.declared)
	}
}

type jparser struct {
	o        *renderer
	mode     Mode
	s        string
	i        int
	eof, bad bool
	declared []int
	sec      []secID // the open section's ids
}

func (p *jparser) stop() bool { return p.eof || p.bad }

func (p *jparser) ws() bool {
	p.i = skipSpace(p.s, p.i)
	if p.i == len(p.s) {
		p.eof = true
	}
	return !p.eof
}

// value parses one value whose container has role par (top: the answer's
// object) under key.
func (p *jparser) value(par uint8, top bool, key ...string) {
	k := ""
	if len(key) > 0 {
		k = key[0]
	}
	if !p.ws() {
		return
	}
	c := p.s[p.i]
	switch {
	case c == '{':
		role := uint8(rNone)
		if top {
			role = rTop
		} else if par == rSections {
			role = rSection
		}
		p.object(role)
	case c == '[':
		role := uint8(rNone)
		switch {
		case par == rTop && p.mode == ModeJSON && k == "citedSourceIds":
			role = rDeclared
		case par == rTop && p.mode == ModeSections && k == "sections":
			role = rSections
		case par == rSection && k == "source_ids":
			role = rSecIDs
		}
		p.array(role)
	case c == '"':
		text := (par == rTop && p.mode == ModeJSON && k == "body") || (par == rSection && k == "text")
		str := p.str()
		switch {
		case text:
			p.o.inline(str)
		case !p.stop() && (par == rDeclared || par == rSecIDs):
			p.id(par, str)
		}
	case c == 't' || c == 'f' || c == 'n':
		lit := literal(c)
		for n := range len(lit) {
			if p.i+n == len(p.s) {
				p.eof = true
				return
			}
			if p.s[p.i+n] != lit[n] {
				p.bad = true
				return
			}
		}
		p.i += len(lit)
	case c == '-' || (c >= '0' && c <= '9'):
		j := p.i
		for j < len(p.s) && isNumByte(p.s[j]) {
			j++
		}
		if j == len(p.s) {
			p.eof = true
			return
		}
		if par == rDeclared || par == rSecIDs {
			p.id(par, p.s[p.i:j])
		}
		p.i = j
	default:
		p.bad = true
	}
}

func (p *jparser) object(role uint8) {
	p.i++
	if role == rSection {
		p.sec = p.sec[:0]
		defer func() { drawSection(&p.o.num, p.sec) }()
	}
	if !p.ws() {
		return
	}
	if p.s[p.i] == '}' {
		p.i++
		return
	}
	for {
		if !p.ws() {
			return
		}
		if p.s[p.i] != '"' {
			p.bad = true
			return
		}
		key := p.str()
		if p.stop() || !p.ws() {
			return
		}
		if p.s[p.i] != ':' {
			p.bad = true
			return
		}
		p.i++
		p.value(role, false, key)
		if p.stop() || !p.ws() {
			return
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return
		default:
			p.bad = true
			return
		}
	}
}

func (p *jparser) array(role uint8) {
	p.i++
	if !p.ws() {
		return
	}
	if p.s[p.i] == ']' {
		p.i++
		return
	}
	for {
		p.value(role, false)
		if p.stop() || !p.ws() {
			return
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return
		default:
			p.bad = true
			return
		}
	}
}

// id records an entry of an ids array.
func (p *jparser) id(role uint8, raw string) {
	k, ok := idValue(raw)
	if !ok || len(raw) > maxIDText {
		p.o.num.rep.BadIDs = append(p.o.num.rep.BadIDs, raw[:min(len(raw), maxIDText)])
		return
	}
	if role == rDeclared {
		for _, d := range p.declared {
			if d == k {
				return
			}
		}
		p.declared = append(p.declared, k)
		return
	}
	p.sec = append(p.sec, secID{k, raw})
}

// str parses a string at p.i (its opening quote) and returns it decoded,
// as far as it goes.
func (p *jparser) str() string {
	var b []byte
	p.i++
	for {
		if p.i == len(p.s) {
			p.eof = true
			return string(b)
		}
		c := p.s[p.i]
		switch c {
		case '"':
			p.i++
			return string(b)
		case '\\':
			r, n, st := unescapeAt(p.s[p.i:])
			if st != 0 {
				p.eof, p.bad = st == 1, st == 2
				return string(b)
			}
			b = utf8.AppendRune(b, r)
			p.i += n
		default:
			b = append(b, c)
			p.i++
		}
	}
}

// unescapeAt reads the escape at the start of s (which begins with '\'),
// joining a surrogate pair; st is 1 at the end of the text, 2 when the
// escape is bad.
func unescapeAt(s string) (r rune, n int, st int) {
	if len(s) < 2 {
		return 0, 0, 1
	}
	if s[1] != 'u' {
		d, ok := unescape(s[1])
		if !ok {
			return 0, 0, 2
		}
		return rune(d), 2, 0
	}
	r, st = hex4(s[2:])
	if st != 0 {
		return 0, 0, st
	}
	switch {
	case r >= 0xDC00 && r <= 0xDFFF:
		return utf8.RuneError, 6, 0
	case r < 0xD800 || r > 0xDBFF:
		return r, 6, 0
	}
	// A high surrogate: its low half must follow at once.
	rest := s[6:]
	if rest == "" || (rest[0] == '\\' && len(rest) == 1) {
		return 0, 0, 1
	}
	if rest[0] != '\\' || rest[1] != 'u' {
		return utf8.RuneError, 6, 0
	}
	lo, st := hex4(rest[2:])
	if st != 0 {
		return 0, 0, st
	}
	if lo < 0xDC00 || lo > 0xDFFF {
		return utf8.RuneError, 6, 0
	}
	return (r-0xD800)<<10 | (lo - 0xDC00) + 0x10000, 12, 0
}

func hex4(s string) (rune, int) {
	var r rune
	for i := range 4 {
		if i == len(s) {
			return 0, 1
		}
		h, ok := unhex(s[i])
		if !ok {
			return 0, 2
		}
		r = r<<4 | h
	}
	return r, 0
}

func skipSpace(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}
