package citations

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Render is the offline renderer of a whole answer, the oracle the streams
// are tested against. It is written from the contract (DESIGN.md §3 and
// docs/citations.md), not from the streaming code, and shares none of its
// helpers: the token grammar is a regular expression, the code rules work
// line by line, the JSON modes are a recursive-descent parser with their own
// string decoder (render_json.go), and the numbering rule and the report
// are computed here again. Only the types (Event, Report, Options) and the
// caller's Registry are common. Event.Text in its result owns its bytes,
// and adjacent text is merged into one event.
func Render(mode Mode, text string, opt Options) []Event {
	o := &renderer{opt: opt, num: map[int]int{}}
	o.rep.Mode = mode.String()
	switch mode {
	case ModeJSON, ModeSections:
		o.json(mode, text)
	default:
		o.inline(text)
	}
	rep := o.rep
	if rep.Order == nil {
		rep.Order = []int{}
	}
	o.evs = append(o.evs, Event{Kind: KindDone, Report: &rep})
	return o.evs
}

// renderMaxToken is the contract's bound on a token, brackets included.
const renderMaxToken = 64

// renderer holds a Render in progress.
//
// Invariants: num[k] is 0 (absent) for an alias not cited yet, -1 for one
// cited but never offered, and its display number otherwise; used lists
// every alias cited, offered or not, in first-appearance order; evs never
// holds two adjacent text events.
type renderer struct {
	opt  Options
	num  map[int]int
	used []int
	rep  Report
	evs  []Event
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

// cite draws one reference to source_k, written raw: the numbering rule.
func (o *renderer) cite(k int, raw string) {
	n, seen := o.num[k]
	if !seen {
		o.used = append(o.used, k)
		switch {
		case o.opt.Offered != nil && !o.opt.Offered(k):
			n = -1
			o.rep.Unknown = append(o.rep.Unknown, raw)
		case o.opt.Registry != nil:
			n, _ = o.opt.Registry.Assign(k)
			o.rep.Numbers = append(o.rep.Numbers, n)
		default:
			n = len(o.rep.Order) + 1
		}
		o.num[k] = n
		if n > 0 {
			o.rep.Order = append(o.rep.Order, k)
			o.evs = append(o.evs, Event{Kind: KindCitation, Source: k, Number: n})
		}
	}
	if n < 0 {
		o.rep.UnknownRefs++
		o.evs = append(o.evs, Event{Kind: KindUnknown, Source: k, Text: []byte(raw)})
		return
	}
	o.rep.Refs++
	o.evs = append(o.evs, Event{Kind: KindRef, Source: k, Number: n})
}

// citeOnce draws a group of ids (one token, or one section's list): each
// distinct k once, as first written in the group.
func (o *renderer) citeOnce(ks []int, raws []string) {
	drawn := map[int]bool{}
	for i, k := range ks {
		if !drawn[k] {
			drawn[k] = true
			o.cite(k, raws[i])
		}
	}
}

// compare fills the json mode's comparison of the declared list with the
// aliases the body cited.
func (o *renderer) compare(declared []int) {
	o.rep.Declared = append([]int{}, declared...)
	inDeclared := map[int]bool{}
	for _, k := range declared {
		inDeclared[k] = true
	}
	var both, listed []int
	for _, k := range o.used {
		if inDeclared[k] {
			both = append(both, k)
		} else {
			o.rep.UsedNotDeclared = append(o.rep.UsedNotDeclared, k)
		}
	}
	for _, k := range declared {
		if _, cited := o.num[k]; cited {
			listed = append(listed, k)
		} else {
			o.rep.DeclaredNotUsed = append(o.rep.DeclaredNotUsed, k)
		}
	}
	o.rep.OrderDiffers = !slices.Equal(both, listed)
}

// The token grammar: an opener, spaces, ids separated by , or ; (spaces
// around them allowed) or by spaces alone, spaces, the same pair's closer.
var (
	renderID    = `(?i:source)[_ ][0-9]{1,6}`
	renderIDs   = renderID + `(?:(?: *[,;] *| +)` + renderID + `)*`
	renderToken = regexp.MustCompile(`^(?:\[ *` + renderIDs + ` *\]|［ *` + renderIDs + ` *］|【 *` + renderIDs + ` *】)`)
	renderOneID = regexp.MustCompile(`(?i:source)[_ ]([0-9]{1,6})`)
)

// token returns the length of the token at the start of s and its ids as
// written, or 0.
func renderTok(s string) (n int, ks []int, raws []string) {
	m := renderToken.FindString(s[:min(len(s), renderMaxToken)])
	if m == "" {
		return 0, nil, nil
	}
	for _, id := range renderOneID.FindAllStringSubmatch(m, -1) {
		k, _ := strconv.Atoi(id[1])
		ks = append(ks, k)
		raws = append(raws, id[0])
	}
	return len(m), ks, raws
}

// inline renders markdown with inline tokens, line by line: lines of a
// fenced block are text; on other lines, code spans are text.
func (o *renderer) inline(s string) {
	var fenceChar byte
	fenceLen := 0
	for _, line := range strings.SplitAfter(s, "\n") {
		c, n := fenceRun(line)
		switch {
		case fenceChar != 0:
			if c == fenceChar && n >= fenceLen {
				fenceChar = 0
			}
			o.text(line)
		case n >= 3:
			fenceChar, fenceLen = c, n
			o.text(line)
		default:
			o.inlineLine(line)
		}
	}
}

// fenceRun returns the run of backticks or tildes that begins line after
// at most 3 spaces, if any.
func fenceRun(line string) (byte, int) {
	rest := strings.TrimLeft(line, " ")
	if len(line)-len(rest) > 3 || rest == "" || (rest[0] != '`' && rest[0] != '~') {
		return 0, 0
	}
	n := len(rest) - len(strings.TrimLeft(rest, rest[:1]))
	return rest[0], n
}

// inlineLine renders one line outside fenced blocks.
func (o *renderer) inlineLine(line string) {
	done := 0
	for i := 0; i < len(line); {
		if line[i] == '`' {
			open := len(line[i:]) - len(strings.TrimLeft(line[i:], "`"))
			i = spanEnd(line, i+open, open)
			continue
		}
		if c := line[i]; c == '[' || c == 0xE3 || c == 0xEF {
			if n, ks, raws := renderTok(line[i:]); n > 0 {
				o.text(line[done:i])
				o.citeOnce(ks, raws)
				i += n
				done = i
				continue
			}
		}
		i++
	}
	o.text(line[done:])
}

// spanEnd returns where a code span opened by open backticks and starting
// at i ends: after the next run of exactly open backticks, or at the end of
// the line.
func spanEnd(line string, i, open int) int {
	for i < len(line) {
		j := strings.IndexByte(line[i:], '`')
		if j < 0 {
			break
		}
		i += j
		run := len(line[i:]) - len(strings.TrimLeft(line[i:], "`"))
		i += run
		if run == open {
			return i
		}
	}
	return len(line)
}
