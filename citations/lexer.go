package citations

import (
	"bytes"
	"encoding/binary"
	"unicode/utf8"
)

// MaxToken is the most bytes a citation token may span, brackets included.
// A candidate still open at this length is released as text, so the
// engine holds fewer than MaxToken bytes of a candidate.
const MaxToken = 64

// maxIDs bounds the ids of one token: each needs at least 9 bytes.
const maxIDs = MaxToken / 8

// pairs are the bracket pairs, opener and closer; a token opens and closes
// with the same pair.
var pairs = [3][2]string{{"[", "]"}, {"［", "］"}, {"【", "】"}}

// idRef is one id of a token: k, and where it was written in the token's
// bytes (the hold buffer, or the chunk when the token was read in place).
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
// candidate, which begins with an opener byte and is shorter than
// MaxToken. Bytes are appended to out in input order, tokens replaced;
// code state (fence, span, lead, run) only changes in sText.
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
	next    [2]int // per write: next index of each of nxByte (nextOf)
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

// flush emits the text gathered in out to h; unless all, an incomplete
// rune at its end stays for the next write.
func (l *lexer) flush(h Handler, all bool) {
	out := l.out
	keep := 0
	if !all {
		keep = runeTail(out)
	}
	if len(out) > keep {
		h(Event{Kind: KindText, Text: out[:len(out)-keep]})
	}
	l.out = out[:copy(out, out[len(out)-keep:])]
}

// held counts the candidate's bytes.
func (l *lexer) held() int { return len(l.hold) }

// The slots of lexer.next: the bytes that end a run of code text.
const (
	nxBacktick = iota
	nxNewline
)

var nxByte = [2]byte{'`', '\n'}

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
	l.next = [2]int{-1, -1}
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
			j = l.nextSpecial(p, i)
			l.out = append(l.out, p[i:j]...)
			i = j
			if i == len(p) {
				return
			}
			if c := p[i]; c == '[' || c == 0xE3 || c == 0xEF {
				// The whole candidate is usually here: parse it in place.
				switch n := l.scanToken(p[i:]); {
				case n > 0:
					l.tok(l.ids, p[i:i+n])
					l.ids = l.ids[:0]
					i += n
					continue
				case n == 0:
					l.out = append(l.out, c)
					i++
					continue
				}
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

// nextSpecial returns the index of the next byte at or after i that
// matters outside code: '[', a backtick, a newline, or the lead byte of
// 【 or ［; len(p) if none. A chunk that ends with the first byte or two
// of 【 or ［ returns their index, so that they are held.
//
// It reads eight bytes at a time through a table. The full-width openers
// are found by their last byte (0x90 of E3 80 90, 0xBB of EF BC BB),
// which is much rarer in CJK text than their lead bytes E3 and EF (the
// lead bytes of most CJK punctuation and of all kana). An opener whose
// lead byte lies before i was already decided and is not returned.
func (l *lexer) nextSpecial(p []byte, i int) int {
	p = p[:len(p):len(p)]
	k := uint(i)
	for {
		for k+8 <= uint(len(p)) {
			q := p[k : k+8 : k+8]
			if special[q[0]]|special[q[1]]|special[q[2]]|special[q[3]]|special[q[4]]|special[q[5]]|special[q[6]]|special[q[7]] != 0 {
				break
			}
			k += 8
		}
		for k < uint(len(p)) && special[p[k]] == 0 {
			k++
		}
		if k >= uint(len(p)) {
			break
		}
		switch c := p[k]; {
		case c < 0x80:
			return int(k)
		case int(k)-2 >= i && ((c == 0x90 && p[k-2] == 0xE3 && p[k-1] == 0x80) || (c == 0xBB && p[k-2] == 0xEF && p[k-1] == 0xBC)):
			return int(k) - 2
		}
		k++
	}
	// The first byte or two of an opener at the very end wait for the rest.
	n := len(p)
	switch {
	case n-1 >= i && (p[n-1] == 0xE3 || p[n-1] == 0xEF):
		return n - 1
	case n-2 >= i && ((p[n-2] == 0xE3 && p[n-1] == 0x80) || (p[n-2] == 0xEF && p[n-1] == 0xBC)):
		return n - 2
	}
	return n
}

// special marks the bytes nextSpecial stops at.
var special = [256]uint8{'[': 1, '`': 1, '\n': 1, 0x90: 1, 0xBB: 1}

// sourceLE is "source" read as a little-endian integer.
const sourceLE = 's' | 'o'<<8 | 'u'<<16 | 'r'<<24 | 'c'<<32 | 'e'<<40

// scanToken parses a token at the start of b by the same grammar and bound
// as step does byte by byte. It returns the token's length (its ids are
// then in l.ids, offsets into b), 0 when b does not begin with a token,
// or -1 when b ends before that is decided.
func (l *lexer) scanToken(b []byte) int {
	end, more := len(b), -1
	if end >= MaxToken {
		end, more = MaxToken, 0
	}
	var pair, i int
	switch b[0] {
	case '[':
		pair, i = 0, 1
	case 0xEF, 0xE3:
		pair = 1
		if b[0] == 0xE3 {
			pair = 2
		}
		for i = 1; i < 3; i++ {
			if i >= end {
				return more
			}
			if b[i] != pairs[pair][0][i] {
				return 0
			}
		}
	default:
		return 0
	}
	closer := pairs[pair][1]
	ids := l.ids[:0]
	for {
		for i < end && b[i] == ' ' {
			i++
		}
		start := i
		if i+7 <= end && i+8 <= len(b) {
			// "source" in any case and its separator, with one load.
			x := binary.LittleEndian.Uint64(b[i:])
			if (x|0x2020202020202020)&0xFFFFFFFFFFFF != sourceLE {
				return 0
			}
			if c := b[i+6]; c != '_' && c != ' ' {
				return 0
			}
			i += 7
			goto digits
		}
		for m := range 6 {
			if i >= end {
				return more
			}
			if b[i]|0x20 != "source"[m] {
				return 0
			}
			i++
		}
		if i >= end {
			return more
		}
		if b[i] != '_' && b[i] != ' ' {
			return 0
		}
		i++
	digits:
		k, d := 0, 0
		for i < end && b[i] >= '0' && b[i] <= '9' {
			if d == 6 {
				return 0
			}
			k = k*10 + int(b[i]-'0')
			d++
			i++
		}
		if i >= end {
			return more
		}
		if d == 0 || len(ids) == maxIDs {
			return 0
		}
		ids = append(ids, idRef{k: k, start: start, end: i})
		sp := i
		for i < end && b[i] == ' ' {
			i++
		}
		if i >= end {
			return more
		}
		switch c := b[i]; {
		case c == ',' || c == ';':
			i++
		case c == closer[0]:
			for m := range len(closer) {
				if i >= end {
					return more
				}
				if b[i] != closer[m] {
					return 0
				}
				i++
			}
			l.ids = ids
			return i
		case i == sp:
			return 0
		}
	}
}

// step pushes one byte.
func (l *lexer) step(c byte) {
	if l.st == sText {
		l.stepText(c)
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
	switch {
	case l.st == sClose && l.n == len(closer):
		l.tok(l.ids, l.hold)
		l.hold, l.ids, l.st = l.hold[:0], l.ids[:0], sText
	case len(l.hold) == MaxToken:
		// At the bound and still open: it cannot become a token.
		l.release()
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

// release ends the candidate without a next byte: its first byte is text
// and the rest is read again.
func (l *lexer) release() {
	var buf [MaxToken]byte
	n := copy(buf[:], l.hold[1:])
	l.out = append(l.out, l.hold[0])
	l.hold, l.ids, l.st = l.hold[:0], l.ids[:0], sText
	for _, b := range buf[:n] {
		l.step(b)
	}
}

// end releases any candidate as text: the stream is over.
func (l *lexer) end() {
	for l.st != sText {
		l.release()
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
