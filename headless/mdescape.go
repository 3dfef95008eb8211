package headless

import "strings"

// mdSpecial are the characters escaped with a backslash in the answer's
// text outside code: those that make links, images and footnotes ([ ]),
// raw TeX and escapes (\), raw HTML and autolinks (<), TeX math ($),
// citations (@), superscript and subscript (^ ~), attributes and raw
// markers ({ }), a title block (%). The model's emphasis, lists and
// headings (* _ # - >) are kept; a line that begins with "---" (a rule,
// or a YAML metadata block that Pandoc would read as settings) gets its
// third dash escaped.
const mdSpecial = "\\[]<$@^~{}%"

// mdLiteral are the characters escaped in text that is document data
// only (a title, a path, a quoted snippet): mdSpecial and all emphasis.
const mdLiteral = mdSpecial + "`*_|#>"

// mdEscaper writes the answer's text as Markdown that Pandoc (and
// CommonMark) read back as the same text, so that document text comes
// through as text: a quoted "\nocite{x}", "[2](Title)" or "[^3]" is
// escaped, and only ibid's [^n] are footnotes. Code is written as is:
// backtick code spans and fenced blocks are tracked byte by byte across
// events, as in the citation engine (a run of backticks opens a span
// closed by the next run of the same length on the line; a line that
// begins, after at most 3 spaces, with 3 or more backticks opens a fence,
// closed by a line that begins with at least as many).
//
// Invariants: a span never crosses a line (the writer closes an open span
// before the newline, so Pandoc sees the span the writer tracks); close
// ends any open span or fence, so a reference or a footnote never lands
// inside code; characters of a fence's info string other than letters,
// digits, spaces and "+-._#" are dropped (a "{=latex}" raw block or a
// backtick that would unmake the fence cannot be written).
type mdEscaper struct {
	run      int  // backticks in the run being read
	runLead  bool // the run began the line (after at most 3 spaces)
	lead     int  // spaces at the start of the line so far
	atLead   bool // nothing but up to 3 spaces on the line so far
	dashes   int  // dashes that began the line (after the lead spaces)
	span     int  // >0: inside an inline span opened by span backticks
	fence    int  // >0: inside a fenced block opened by fence backticks
	info     bool // on a fence's opening line, after its run
	closing  bool // this line closes the fence
	wroteAny bool // for close: whether the fence needs a newline first
	lastNL   bool
	tick     bool // the last byte written was a backtick
}

func newMDEscaper() mdEscaper { return mdEscaper{atLead: true} }

// text returns s as Markdown, given all text before it.
func (m *mdEscaper) text(s string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	for i := 0; i < len(s); i++ {
		m.byte(&b, s[i])
	}
	if s != "" {
		m.wroteAny = true
		m.lastNL = s[len(s)-1] == '\n'
	}
	return b.String()
}

func (m *mdEscaper) byte(b *strings.Builder, c byte) {
	if m.run > 0 && c != '`' {
		m.endRun()
	}
	switch {
	case c == '\n':
		b.WriteString(m.closeSpan())
		if m.closing {
			m.fence, m.closing = 0, false
		}
		m.info = false
		m.lead, m.atLead, m.dashes = 0, true, 0
		b.WriteByte(c)
		m.tick = false
		return
	case m.closing && c != ' ' && c != '\t':
		// Text after the run: CommonMark does not close the fence here.
		m.closing = false
	}
	switch {
	case m.info:
		if isInfoByte(c) {
			b.WriteByte(c)
			m.tick = false
		}
		return
	case c == '`':
		if m.run == 0 {
			m.runLead = m.atLead
		}
		m.run++
		m.atLead = false
		b.WriteByte(c)
		m.tick = true
		return
	}
	code := m.fence > 0 || m.span > 0
	switch {
	case m.atLead && c == ' ' && m.lead < 3:
		m.lead++
	case (m.atLead || m.dashes > 0) && c == '-' && !code:
		m.atLead = false
		if m.dashes++; m.dashes == 3 {
			b.WriteByte('\\')
		}
	default:
		m.atLead, m.dashes = false, 0
	}
	if !code && strings.IndexByte(mdSpecial, c) >= 0 {
		b.WriteByte('\\')
	}
	b.WriteByte(c)
	m.tick = false
}

// closeSpan returns the backticks that close an open span, after a space
// when the span ends in a backtick (the closer would otherwise join that
// run and close nothing).
func (m *mdEscaper) closeSpan() string {
	if m.span == 0 {
		return ""
	}
	s := strings.Repeat("`", m.span)
	if m.tick {
		s = " " + s
	}
	m.span, m.tick = 0, true
	return s
}

func isInfoByte(c byte) bool {
	return c == ' ' || c == '+' || c == '-' || c == '.' || c == '_' || c == '#' ||
		(c >= '0' && c <= '9') || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

// endRun applies a finished run of backticks.
func (m *mdEscaper) endRun() {
	n, lead := m.run, m.runLead
	m.run = 0
	switch {
	case m.fence > 0:
		if lead && n >= m.fence {
			m.closing = true
		}
	case m.span > 0:
		if n == m.span {
			m.span = 0
		}
	case lead && n >= 3:
		m.fence, m.info = n, true
	default:
		m.span = n
	}
}

// close returns what ends any open span or fence, so that what follows
// (a reference, a note) is Markdown again.
func (m *mdEscaper) close() string {
	if m.run > 0 {
		m.endRun()
	}
	s := m.closeSpan()
	if m.fence > 0 {
		if m.wroteAny && !m.lastNL {
			s += "\n"
		}
		if !m.closing { // a closing line only needs its newline
			s += strings.Repeat("`", m.fence) + "\n"
		}
		m.fence, m.info, m.closing = 0, false, false
		m.lead, m.atLead, m.dashes = 0, true, 0
		m.tick = false
	}
	if s != "" {
		m.lastNL = strings.HasSuffix(s, "\n")
	}
	return s
}

// escapeMarkdown escapes document data (a title, a path, a snippet) for a
// footnote: every character Markdown could read as markup is escaped, and
// line breaks become spaces.
func escapeMarkdown(s string) string {
	var b strings.Builder
	for _, f := range strings.Fields(s) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		for i := 0; i < len(f); i++ {
			if strings.IndexByte(mdLiteral, f[i]) >= 0 {
				b.WriteByte('\\')
			}
			b.WriteByte(f[i])
		}
	}
	return b.String()
}
