package citations

import (
	"bytes"
	"unicode/utf8"
)

// JSON-mode phases.
const (
	phPrefix = iota // white space and an optional fence line before '{'
	phJSON          // reading the object
	phInline        // not JSON: read as inline text
)

// JSON scanner states.
const (
	jValue    = iota // a value is due
	jArrFirst        // after '[': a value or ']'
	jObjFirst        // after '{': a key or '}'
	jObjNext         // after ',' in an object: a key
	jColon           // after a key
	jAfter           // after a value: ',' or the container's end
	jStr             // inside a string
	jEsc             // after '\'
	jU               // inside \uXXXX
	jHigh            // after a high surrogate: '\' of the low one due
	jHighEsc         // after a high surrogate and '\': 'u' due
	jNum             // inside a number
	jLit             // inside true, false or null
	jDone            // the top-level object ended; the rest is ignored
	jBad             // a syntax error; the rest is ignored
)

// Container roles: which part of the answer a container holds.
const (
	rNone     = iota
	rTop      // the top-level object
	rSections // sections mode: the "sections" array
	rSection  // sections mode: one section object
	rDeclared // json mode: the "citedSourceIds" array
	rSecIDs   // sections mode: a section's "source_ids" array
)

// String sinks: where a string's decoded bytes go.
const (
	sinkNone = iota
	sinkKey
	sinkText // the lexer: a body or a section's text
	sinkID   // an id of an ids array
)

const maxKey, maxIDText = 32, 24

// jsonStream is the Stream of the json and sections modes. A push-style
// JSON scanner (all state in the struct) finds the strings that hold the
// answer's text and streams their decoded bytes through the same lexer as
// inline mode; ids arrays are collected, and a section's ids are drawn
// when the section ends.
//
// Invariants: only the text strings reach the lexer, each as a fresh
// document; at most a partly read escape (a \uXXXX pair: 12 bytes) is held
// besides what the lexer holds, and in the prefix phase at most MaxToken
// bytes.
type jsonStream struct {
	mode  Mode
	h     Handler
	lx    lexer
	num   numberer
	ended bool

	phase  int
	pre    [MaxToken]byte
	npre   int
	pst    int // prefix: 0 before anything, 1 in the fence line, 2 after it
	st     int
	stack  []byte // '{' or '['
	roles  []uint8
	sink   uint8
	isKey  bool
	key    [maxKey]byte
	keyLen int // > maxKey: too long to match
	u      rune
	un     int
	high   rune
	esc    int // raw bytes of the escape being read
	idb    [maxIDText]byte
	idn    int // > maxIDText: too long to be an id
	numID  bool
	lit    string
	litI   int

	declared []int
	secIDs   []secID
	seen     map[int]bool // json: aliases declared; sections: ids drawn in this section (sets keep long lists linear)
}

type secID struct {
	k   int
	raw string
}

func newJSONStream(mode Mode, h Handler, opt Options) *jsonStream {
	j := &jsonStream{mode: mode, h: h}
	j.num = newNumberer(h, opt, mode)
	j.lx.init(j.token)
	return j
}

func (j *jsonStream) token(ids []idRef, src []byte) {
	j.flushText(true)
	drawIDs(&j.num, ids, src)
}

// flushText emits the body's text gathered so far (lexer.flush).
func (j *jsonStream) flushText(all bool) { j.lx.flush(j.h, all) }

// Held reports the bytes held back.
func (j *jsonStream) Held() int {
	n := j.lx.held() + len(j.lx.out) + j.esc
	if j.phase == phPrefix {
		n += j.npre
	}
	return n
}

// Write pushes a chunk; it never fails.
func (j *jsonStream) Write(p []byte) (int, error) {
	if j.ended {
		return len(p), nil
	}
	i := 0
	for i < len(p) {
		switch j.phase {
		case phPrefix:
			j.prefix(p[i])
			i++
		case phInline:
			j.lx.write(p[i:])
			i = len(p)
		default:
			if j.st == jDone || j.st == jBad {
				i = len(p)
				break
			}
			if j.st == jStr {
				// A run without quote or backslash goes to its sink whole.
				e := bytes.IndexAny(p[i:], "\"\\")
				if e < 0 {
					e = len(p) - i
				}
				if e > 0 {
					j.emit(p[i : i+e])
					i += e
					continue
				}
			}
			j.step(p[i])
			i++
		}
	}
	j.flushText(false)
	return len(p), nil
}

// prefix reads a byte before the object.
func (j *jsonStream) prefix(c byte) {
	switch {
	case j.pst != 1 && c == '{':
		j.phase, j.npre = phJSON, 0
		j.step(c)
		return
	case j.pst != 1 && isSpace(c):
	case j.pst == 0 && (c == '`' || c == '~'):
		j.pst = 1
	case j.pst == 1:
		if c == '\n' {
			j.pst = 2
		}
	default:
		j.fallback(c)
		return
	}
	if j.npre == MaxToken {
		j.fallback(c)
		return
	}
	j.pre[j.npre] = c
	j.npre++
}

// fallback reads the answer as inline text from its first byte on.
func (j *jsonStream) fallback(c byte) {
	j.phase = phInline
	j.num.rep.NotJSON = true
	j.lx.write(j.pre[:j.npre])
	j.npre = 0
	j.lx.step(c)
}

// emit sends decoded string bytes to the current sink.
func (j *jsonStream) emit(b []byte) {
	switch j.sink {
	case sinkText:
		j.lx.write(b)
	case sinkKey:
		if j.keyLen+len(b) <= maxKey {
			copy(j.key[j.keyLen:], b)
		}
		j.keyLen += len(b)
	case sinkID:
		if j.idn+len(b) <= maxIDText {
			copy(j.idb[j.idn:], b)
		}
		j.idn += len(b)
	}
}

func (j *jsonStream) emitRune(r rune) {
	var b [utf8.UTFMax]byte
	n := utf8.EncodeRune(b[:], r)
	j.emit(b[:n])
}

func (j *jsonStream) bad() { j.st = jBad; j.num.rep.Malformed = true }

// step pushes one byte of the object.
func (j *jsonStream) step(c byte) {
	switch j.st {
	case jStr:
		switch c {
		case '"':
			j.endString()
		case '\\':
			j.st, j.esc = jEsc, 1
		default:
			j.emit([]byte{c})
		}
	case jEsc:
		j.esc = 0
		if c == 'u' {
			j.st, j.u, j.un, j.esc = jU, 0, 0, 2
			return
		}
		d, ok := unescape(c)
		if !ok {
			j.bad()
			return
		}
		j.emit([]byte{d})
		j.st = jStr
	case jU:
		h, ok := unhex(c)
		if !ok {
			j.bad()
			return
		}
		j.u, j.un = j.u<<4|h, j.un+1
		j.esc++
		if j.un == 4 {
			j.gotRune(j.u)
		}
	case jHigh:
		if c == '\\' {
			j.st = jHighEsc
			j.esc++
			return
		}
		j.lone()
		j.st = jStr
		j.step(c)
	case jHighEsc:
		if c == 'u' {
			j.st, j.u, j.un = jU, 0, 0
			j.esc++
			return
		}
		j.lone()
		j.st, j.esc = jEsc, 1
		j.step(c)
	case jNum:
		if isNumByte(c) {
			j.idByte(c)
			return
		}
		if j.numID {
			j.endID()
		}
		j.st = jAfter
		j.step(c)
	case jLit:
		if c != j.lit[j.litI] {
			j.bad()
			return
		}
		if j.litI++; j.litI == len(j.lit) {
			j.endValue()
		}
	case jValue, jArrFirst:
		switch {
		case isSpace(c):
		case c == ']' && j.st == jArrFirst:
			j.close()
		default:
			j.value(c)
		}
	case jObjFirst, jObjNext:
		switch {
		case isSpace(c):
		case c == '}' && j.st == jObjFirst:
			j.close()
		case c == '"':
			j.st, j.sink, j.isKey, j.keyLen = jStr, sinkKey, true, 0
		default:
			j.bad()
		}
	case jColon:
		switch {
		case isSpace(c):
		case c == ':':
			j.st = jValue
		default:
			j.bad()
		}
	case jAfter:
		top := j.stack[len(j.stack)-1]
		switch {
		case isSpace(c):
		case c == ',' && top == '{':
			j.st = jObjNext
		case c == ',':
			j.st = jValue
		case (c == '}' && top == '{') || (c == ']' && top == '['):
			j.close()
		default:
			j.bad()
		}
	}
}

func (j *jsonStream) idByte(c byte) {
	if j.numID {
		if j.idn < maxIDText {
			j.idb[j.idn] = c
		}
		j.idn++
	}
}

// gotRune handles a \uXXXX escape's value.
func (j *jsonStream) gotRune(r rune) {
	j.st = jStr
	j.esc = 0
	if j.high != 0 {
		if r >= 0xDC00 && r <= 0xDFFF {
			j.emitRune((j.high-0xD800)<<10 | (r - 0xDC00) + 0x10000)
			j.high = 0
			return
		}
		j.lone()
	}
	switch {
	case r >= 0xD800 && r <= 0xDBFF:
		j.high, j.st, j.esc = r, jHigh, 6
	case r >= 0xDC00 && r <= 0xDFFF:
		j.emitRune(utf8.RuneError)
	default:
		j.emitRune(r)
	}
}

// lone writes U+FFFD for a high surrogate without its low half.
func (j *jsonStream) lone() {
	j.emitRune(utf8.RuneError)
	j.high, j.esc = 0, 0
}

// parent returns the role of the innermost container, and whether there
// is one.
func (j *jsonStream) parent() (uint8, bool) {
	if len(j.roles) == 0 {
		return rNone, false
	}
	return j.roles[len(j.roles)-1], true
}

func (j *jsonStream) keyIs(s string) bool {
	return j.keyLen == len(s) && string(j.key[:j.keyLen]) == s
}

// value starts a value with its first byte c.
func (j *jsonStream) value(c byte) {
	par, _ := j.parent()
	switch c {
	case '{', '[':
		role := uint8(rNone)
		switch {
		case len(j.stack) == 0:
			role = rTop
		case par == rTop && c == '[' && j.mode == ModeJSON && j.keyIs("citedSourceIds"):
			role = rDeclared
		case par == rTop && c == '[' && j.mode == ModeSections && j.keyIs("sections"):
			role = rSections
		case par == rSections && c == '{':
			role = rSection
		case par == rSection && c == '[' && j.keyIs("source_ids"):
			role = rSecIDs
		}
		j.stack = append(j.stack, c)
		j.roles = append(j.roles, role)
		if c == '{' {
			j.st = jObjFirst
		} else {
			j.st = jArrFirst
		}
	case '"':
		j.st, j.isKey, j.sink = jStr, false, sinkNone
		switch {
		case par == rTop && j.mode == ModeJSON && j.keyIs("body"), par == rSection && j.keyIs("text"):
			j.sink = sinkText
			j.lx.reset()
		case par == rDeclared || par == rSecIDs:
			j.sink, j.idn = sinkID, 0
		}
	case 't', 'f', 'n':
		j.st, j.litI = jLit, 1
		j.lit = literal(c)
	default:
		if c != '-' && (c < '0' || c > '9') {
			j.bad()
			return
		}
		j.st, j.numID, j.idn = jNum, par == rDeclared || par == rSecIDs, 0
		j.idByte(c)
	}
}

func (j *jsonStream) endString() {
	switch {
	case j.isKey:
		j.isKey, j.sink, j.st = false, sinkNone, jColon
		return
	case j.sink == sinkText:
		j.lx.end()
	case j.sink == sinkID:
		j.endID()
	}
	j.sink = sinkNone
	j.endValue()
}

// endID records the id just read.
func (j *jsonStream) endID() {
	j.addID(string(j.idb[:min(j.idn, maxIDText)]), j.idn <= maxIDText)
}

func (j *jsonStream) addID(raw string, fits bool) {
	par, _ := j.parent()
	k, ok := idValue(raw)
	if !ok || !fits {
		j.num.rep.BadIDs = append(j.num.rep.BadIDs, raw)
		return
	}
	if par == rDeclared {
		if j.seen == nil {
			j.seen = map[int]bool{}
		}
		if !j.seen[k] {
			j.seen[k] = true
			j.declared = append(j.declared, k)
		}
		return
	}
	j.secIDs = append(j.secIDs, secID{k, raw})
}

func (j *jsonStream) endValue() {
	if len(j.stack) == 0 {
		j.st = jDone
		return
	}
	j.st = jAfter
}

// close ends the innermost container.
func (j *jsonStream) close() {
	role, _ := j.parent()
	j.stack = j.stack[:len(j.stack)-1]
	j.roles = j.roles[:len(j.roles)-1]
	if role == rSection {
		j.endSection()
	}
	j.endValue()
}

// endSection draws the section's ids, each distinct k once.
func (j *jsonStream) endSection() {
	j.flushText(true)
	if j.seen == nil {
		j.seen = map[int]bool{}
	}
	for _, id := range j.secIDs {
		if !j.seen[id.k] {
			j.seen[id.k] = true
			j.num.id(id.k, []byte(id.raw))
		}
	}
	for _, id := range j.secIDs {
		delete(j.seen, id.k) // not clear: a map that once held many ids would make every later section pay for them
	}
	j.secIDs = j.secIDs[:0]
}

// Flush ends the stream: what is held is released, an open section is
// ended, and KindDone carries the report.
func (j *jsonStream) Flush() {
	if j.ended {
		return
	}
	j.ended = true
	if j.phase == phPrefix {
		j.phase = phInline
		j.num.rep.NotJSON = true
		j.lx.write(j.pre[:j.npre])
	}
	j.lx.end()
	j.flushText(true)
	if j.phase == phJSON {
		if j.st != jDone && j.st != jBad {
			j.num.rep.Truncated = true
		}
		for _, r := range j.roles {
			if r == rSection {
				j.endSection()
			}
		}
		if j.mode == ModeJSON {
			j.num.compare(j.declared)
		}
	}
	j.num.done()
}
