package citations

import (
	"bytes"
	"unicode/utf8"
)

// MaxToken is the most bytes a citation token may span, brackets included.
// A candidate still open at this length is released as text, so the
// engine never holds more than MaxToken bytes of a candidate.
const MaxToken = 64

// maxIDs bounds the ids of one token: each needs at least 9 bytes.
const maxIDs = MaxToken / 8

// pairs are the bracket pairs, opener and closer; a token opens and closes
// with the same pair.
var pairs = [3][2]string{{"[", "]"}, {"［", "］"}, {"【", "】"}}

// idRef is one id of a token: k, and where it was written in the lexer's
// hold buffer.
type idRef struct {
	k          int
	start, end int
}

// lexer states. sText is everything outside a candidate token (the code
// rules live in the fields fence, span, lead and run); the others walk the
// token grammar.
const (
	sText     = iota
	sOpen     // inside a multi-byte opener
	sIDStart  // after the opener or a , ; separator: spaces, then an id
	sLetters  // inside "source" (n letters matched), then '_' or ' '
	sDigits   // n digits of an id
	sAfterSpc // after an id and at least one space
	sClose    // inside a multi-byte closer
)

// lexer recognises citation tokens in a byte stream pushed to it, apart
// from any numbering: text goes to out, each token to tok.
//
// Invariants: all state is in the struct, so where chunks end cannot
// change the result. hold is empty in sText; otherwise it holds the
// candidate, which begins with an opener byte and is at most MaxToken
// bytes. Bytes are appended to out in input order, tokens replaced.
type lexer struct {
	out []byte
	tok func(ids []idRef, src []byte)

	st   int
	pair int // bracket pair of the candidate
	n    int // letters or digits matched
	k    int // value of the digits so far
	id0  int // start of the current id in hold
	hold []byte
	ids  []idRef

	// code rules
	fence    byte // '`' or '~' inside a fenced block, else 0
	fenceLen int
	closing  bool // this line closes the fence; code until its end
	span     int  // >0 inside an inline code span opened by span backticks
	lead     int  // spaces seen at the start of the line, -1 past it
	run      byte // '`' or '~' while inside a run of them
	runLen   int
	runLead  bool // the run began a line (after at most 3 spaces)

	holdBuf [MaxToken]byte
	idBuf   [maxIDs]idRef
	next    [5]int // per Write: next index of each byte that matters
}

func (l *lexer) init(tok func([]idRef, []byte)) {
	l.tok = tok
	l.hold = l.holdBuf[:0]
	l.ids = l.idBuf[:0]
	l.reset()
}

// reset forgets code state: the next byte begins a fresh document.
func (l *lexer) reset() {
	l.fence, l.fenceLen, l.closing, l.span = 0, 0, false, 0
	l.lead, l.run, l.runLen, l.runLead = 0, 0, 0, false
}

// held counts the candidate's bytes.
func (l *lexer) held() int { return len(l.hold) }

const (
	nxBracket = iota
	nxBacktick
	nxNewline
	nxE3
	nxEF
)

var nxByte = [5]byte{'[', '`', '\n', 0xE3, 0xEF}

// nextOf returns the index of the next byte nxByte[w] at or after i in p,
// or len(p), caching it for this write.
func (l *lexer) nextOf(p []byte, i, w int) int {
	if l.next[w] < i {
		j := bytes.IndexByte(p[i:], nxByte[w])
		if j < 0 {
			l.next[w] = len(p)
		} else {
			l.next[w] = i + j
		}
	}
	return l.next[w]
}

// write pushes p. Runs of plain text are copied whole; only bytes that
// can matter go through step.
func (l *lexer) write(p []byte) {
	l.next = [5]int{-1, -1, -1, -1, -1}
	i := 0
	for i < len(p) {
		if l.st != sText || l.run != 0 || l.lead >= 0 {
			l.step(p[i])
			i++
			continue
		}
		var j int
		switch {
		case l.fence != 0:
			j = l.nextOf(p, i, nxNewline)
		case l.span != 0:
			j = min(l.nextOf(p, i, nxBacktick), l.nextOf(p, i, nxNewline))
		default:
			j = min(l.nextOf(p, i, nxBracket), l.nextOf(p, i, nxBacktick), l.nextOf(p, i, nxNewline))
			for {
				e := min(l.nextOf(p, i, nxE3), l.nextOf(p, i, nxEF))
				if e >= j {
					break
				}
				// A lead byte of 【 or ［? Skip it at once when the
				// rune is here and is neither.
				if e+2 < len(p) && !isOpener(p[e:e+3]) {
					l.out = append(l.out, p[i:e+1]...)
					i = e + 1
					continue
				}
				j = e
				break
			}
		}
		l.out = append(l.out, p[i:j]...)
		i = j
		if i < len(p) {
			l.step(p[i])
			i++
		}
	}
}

func isOpener(b []byte) bool {
	return (b[0] == 0xE3 && b[1] == 0x80 && b[2] == 0x90) || (b[0] == 0xEF && b[1] == 0xBC && b[2] == 0xBB)
}

// step pushes one byte.
func (l *lexer) step(c byte) {
	if l.st == sText {
		l.stepText(c)
		return
	}
	if len(l.hold) == MaxToken {
		l.fail(c)
		return
	}
	closer := pairs[l.pair][1]
	switch l.st {
	case sOpen:
		if c != pairs[l.pair][0][len(l.hold)] {
			l.fail(c)
			return
		}
		if len(l.hold)+1 == len(pairs[l.pair][0]) {
			l.st = sIDStart
		}
	case sIDStart:
		switch c {
		case ' ':
		case 's', 'S':
			l.id0, l.n, l.st = len(l.hold), 1, sLetters
		default:
			l.fail(c)
			return
		}
	case sLetters:
		switch {
		case l.n < 6 && c|0x20 == "source"[l.n]:
			l.n++
		case l.n == 6 && (c == '_' || c == ' '):
			l.n, l.k, l.st = 0, 0, sDigits
		default:
			l.fail(c)
			return
		}
	case sDigits:
		if c >= '0' && c <= '9' {
			if l.n == 6 {
				l.fail(c)
				return
			}
			l.n++
			l.k = l.k*10 + int(c-'0')
			break
		}
		if l.n == 0 || len(l.ids) == maxIDs {
			l.fail(c)
			return
		}
		l.ids = append(l.ids, idRef{k: l.k, start: l.id0, end: len(l.hold)})
		fallthrough
	case sAfterSpc:
		switch {
		case c == ' ':
			l.st = sAfterSpc
		case c == ',' || c == ';':
			l.st = sIDStart
		case (c == 's' || c == 'S') && l.st == sAfterSpc:
			l.id0, l.n, l.st = len(l.hold), 1, sLetters
		case c == closer[0]:
			l.n, l.st = 1, sClose
		default:
			l.fail(c)
			return
		}
	case sClose:
		if c != closer[l.n] {
			l.fail(c)
			return
		}
		l.n++
	}
	l.hold = append(l.hold, c)
	if l.st == sClose && l.n == len(closer) {
		l.tok(l.ids, l.hold)
		l.hold, l.ids, l.st = l.hold[:0], l.ids[:0], sText
	}
}

// fail ends the candidate: its first byte is text and the rest, with c,
// is read again (it may hold the start of another token).
func (l *lexer) fail(c byte) {
	var buf [MaxToken + 1]byte
	n := copy(buf[:], l.hold[1:])
	buf[n] = c
	l.out = append(l.out, l.hold[0])
	l.hold, l.ids, l.st = l.hold[:0], l.ids[:0], sText
	for _, b := range buf[:n+1] {
		l.step(b)
	}
}

// stepText pushes one byte outside a candidate, applying the code rules.
func (l *lexer) stepText(c byte) {
	if l.run != 0 {
		if c == l.run {
			l.runLen++
			l.out = append(l.out, c)
			return
		}
		l.endRun()
	}
	atLead := false
	if l.lead >= 0 {
		if c == ' ' {
			if l.lead++; l.lead > 3 {
				l.lead = -1
			}
			l.out = append(l.out, c)
			return
		}
		atLead, l.lead = true, -1
	}
	switch {
	case c == '\n':
		l.span = 0
		if l.closing {
			l.fence, l.closing = 0, false
		}
		l.lead = 0
	case l.fence != 0:
		if atLead && c == l.fence && !l.closing {
			l.run, l.runLen, l.runLead = c, 1, true
		}
	case l.span != 0:
		if c == '`' {
			l.run, l.runLen, l.runLead = c, 1, false
		}
	case c == '`' || (c == '~' && atLead):
		l.run, l.runLen, l.runLead = c, 1, atLead
	case c == '[':
		l.start(0, c)
		return
	case c == 0xEF:
		l.start(1, c)
		return
	case c == 0xE3:
		l.start(2, c)
		return
	}
	l.out = append(l.out, c)
}

func (l *lexer) start(pair int, c byte) {
	l.pair = pair
	l.hold = append(l.hold, c)
	if pair == 0 {
		l.st = sIDStart
	} else {
		l.st = sOpen
	}
}

// endRun applies a finished run of backticks or tildes.
func (l *lexer) endRun() {
	c, n, lead := l.run, l.runLen, l.runLead
	l.run = 0
	switch {
	case l.fence != 0:
		if lead && n >= l.fenceLen {
			l.closing = true
		}
	case l.span != 0:
		if n == l.span {
			l.span = 0
		}
	case lead && n >= 3:
		l.fence, l.fenceLen = c, n
	case c == '`':
		l.span = n
	}
}

// end releases any candidate as text: the stream is over.
func (l *lexer) end() {
	for l.st != sText {
		var buf [MaxToken]byte
		n := copy(buf[:], l.hold[1:])
		l.out = append(l.out, l.hold[0])
		l.hold, l.ids, l.st = l.hold[:0], l.ids[:0], sText
		for _, b := range buf[:n] {
			l.step(b)
		}
	}
	if l.run != 0 {
		l.endRun()
	}
}

// runeTail returns how many bytes at the end of b are an incomplete rune
// that later bytes could complete.
func runeTail(b []byte) int {
	for k := 1; k <= utf8.UTFMax-1 && k <= len(b); k++ {
		c := b[len(b)-k]
		if c < utf8.RuneSelf {
			return 0
		}
		if utf8.RuneStart(c) {
			if utf8.FullRune(b[len(b)-k:]) {
				return 0
			}
			return k
		}
	}
	return 0
}
