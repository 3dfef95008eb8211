package citations

import "strings"

// Render is the offline renderer of a whole answer, the oracle the streams
// are tested against. It is written apart from the streaming code and as
// simply as possible: the whole text is at hand, so it works line by line
// and parses each token with a plain cursor. Only the numbering rule
// (numberer) is shared. Event.Text in its result owns its bytes, and
// adjacent text is merged into one event.
func Render(mode Mode, text string, opt Options) []Event {
	o := &renderer{}
	o.num = newNumberer(o.add, opt, mode)
	switch mode {
	case ModeJSON, ModeSections:
		o.json(mode, text)
	default:
		o.inline(text)
	}
	o.num.done()
	return o.evs
}

type renderer struct {
	num numberer
	evs []Event
}

func (o *renderer) add(e Event) {
	if e.Text != nil {
		e.Text = append([]byte(nil), e.Text...)
	}
	o.evs = append(o.evs, e)
}

func (o *renderer) text(s string) {
	if s == "" {
		return
	}
	if n := len(o.evs); n > 0 && o.evs[n-1].Kind == KindText {
		o.evs[n-1].Text = append(o.evs[n-1].Text, s...)
		return
	}
	o.evs = append(o.evs, Event{Kind: KindText, Text: []byte(s)})
}

// inline renders markdown with inline tokens.
func (o *renderer) inline(s string) {
	var fence byte
	fenceLen := 0
	for s != "" {
		line := s
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line = s[:i+1]
		}
		s = s[len(line):]
		c, n := lineRun(line)
		switch {
		case fence != 0:
			if c == fence && n >= fenceLen {
				fence = 0
			}
			o.text(line)
		case n >= 3:
			fence, fenceLen = c, n
			o.text(line)
		default:
			o.inlineLine(line)
		}
	}
}

// lineRun returns the run of backticks or tildes that begins line after at
// most 3 spaces, if any.
func lineRun(line string) (c byte, n int) {
	i := 0
	for i < 3 && i < len(line) && line[i] == ' ' {
		i++
	}
	if i == len(line) || (line[i] != '`' && line[i] != '~') {
		return 0, 0
	}
	c = line[i]
	for i+n < len(line) && line[i+n] == c {
		n++
	}
	return c, n
}

// inlineLine renders one line outside fenced blocks: code spans are text,
// tokens are drawn.
func (o *renderer) inlineLine(line string) {
	start, i := 0, 0
	for i < len(line) {
		if line[i] == '`' {
			n := backticks(line, i)
			end := len(line)
			for j := i + n; j < len(line); {
				if line[j] != '`' {
					j++
					continue
				}
				m := backticks(line, j)
				if m == n {
					end = j + m
					break
				}
				j += m
			}
			i = end
			continue
		}
		if n, ids := parseToken(line[i:], MaxToken); n > 0 {
			o.text(line[start:i])
			o.ids(ids)
			i += n
			start = i
			continue
		}
		i++
	}
	o.text(line[start:])
}

func backticks(s string, i int) int {
	n := 0
	for i+n < len(s) && s[i+n] == '`' {
		n++
	}
	return n
}

// tokenID is an id as the oracle parses it.
type tokenID struct {
	k   int
	raw string
}

// ids draws one token's ids, each distinct k once.
func (o *renderer) ids(ids []tokenID) {
	seen := map[int]bool{}
	for _, id := range ids {
		if !seen[id.k] {
			seen[id.k] = true
			o.num.id(id.k, []byte(id.raw))
		}
	}
}

// parseToken parses a token at the start of s and returns its length, or
// 0 when s does not begin with one. limit > 0 caps the length.
func parseToken(s string, limit int) (int, []tokenID) {
	p := -1
	for i, pr := range pairs {
		if strings.HasPrefix(s, pr[0]) {
			p = i
		}
	}
	if p < 0 {
		return 0, nil
	}
	closer := pairs[p][1]
	i := spaces(s, len(pairs[p][0]))
	var ids []tokenID
	for {
		id, n := parseID(s[i:])
		if n == 0 {
			return 0, nil
		}
		ids = append(ids, id)
		i += n
		sp := i
		i = spaces(s, i)
		if strings.HasPrefix(s[i:], closer) {
			i += len(closer)
			break
		}
		if i < len(s) && (s[i] == ',' || s[i] == ';') {
			i = spaces(s, i+1)
			continue
		}
		if i == sp {
			return 0, nil
		}
	}
	if limit > 0 && i > limit {
		return 0, nil
	}
	return i, ids
}

// parseID parses an id ("source", '_' or ' ', 1 to 6 digits) at the start
// of s; it returns its length, or 0. The id must not run on into more
// digits.
func parseID(s string) (tokenID, int) {
	if len(s) < 8 || !strings.EqualFold(s[:6], "source") || (s[6] != '_' && s[6] != ' ') {
		return tokenID{}, 0
	}
	j, k := 7, 0
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		k = k*10 + int(s[j]-'0')
		j++
	}
	if j == 7 || j > 13 {
		return tokenID{}, 0
	}
	return tokenID{k: k, raw: s[:j]}, j
}

func spaces(s string, i int) int {
	for i < len(s) && s[i] == ' ' {
		i++
	}
	return i
}
