package extractive

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/ibid-dev/ibid/rag/ingest"
)

// A list's lead-in is the sentence that ends with a colon just before
// its first item ("`--repair`:", "What is retried:"). An item that opens
// in lower case continues it ("- moves the damaged files into …") and
// says little without it: the item is read with the lead-in's words
// (score) and quoted after it (grow), whichever item of the list it is.

// listLead is a list's lead-in as an item of the list sees it.
type listLead struct {
	text  string // as quoted, its colon kept
	span  ingest.Span
	terms map[string]bool
}

// reItemMark is what comes before an item's first word on its line: a
// bullet or a number, indented or not.
var reItemMark = regexp.MustCompile(`^[ \t>]*([-*+•]|\d{1,3}[.)])[ \t]+(\*\*|__)?$`)

// lists follows the lists of one segment's text, unit by unit.
type lists struct {
	text    string
	colon   *listLead // the sentence just read, when it ends with a colon
	lead    *listLead // the lead-in of the list being read (nil: none known)
	inList  bool      // the last unit read is (in) an item
	opening bool      // that list opens the segment: its lead-in may be in the segment before
	lastEnd int       // where the last unit read ends
}

// sentence tells the lists of a sentence that is not kept as a unit (too
// short, a heading) but may be a lead-in.
func (l *lists) sentence(sp ingest.Span, s string) {
	l.colon = nil
	if strings.HasSuffix(s, ":") && !strings.HasPrefix(s, "#") {
		l.colon = &listLead{text: s, span: sp, terms: termSet(s)}
	}
	l.inList = false
	l.lastEnd = sp.End
}

// unit places unit c (prose, in the segment's text) in its list, if it
// is in one: c.list is the list's lead-in, c.inList and c.opensList say
// whether it is (in) an item and whether the list opened the segment.
func (l *lists) unit(c *cand, first bool) {
	line := strings.LastIndexByte(l.text[:c.span.Start], '\n') + 1
	before := l.text[line:c.span.Start]
	item := reItemMark.MatchString(before)
	between := l.text[min(l.lastEnd, c.span.Start):c.span.Start]
	switch {
	case item && l.colon != nil:
		l.lead, l.inList, l.opening = l.colon, true, false
	case item && l.inList:
		// The next item of the same list.
	case item:
		l.lead, l.inList, l.opening = nil, true, first
	case first:
		// The segment may open inside an item of a list of the segment
		// before (continueList tells).
		l.lead, l.inList, l.opening = nil, true, true
	case l.inList && (!strings.Contains(between, "\n\n") || strings.HasPrefix(before, " ")):
		// A sentence of the item: on its line, or indented under it.
	default:
		l.lead, l.inList, l.opening = nil, false, false
	}
	c.inList, c.list, c.opensList, c.item = l.inList, l.lead, l.inList && l.opening, item
	c.leadHere = item && l.colon != nil && l.lead == l.colon
	c.leadGap = !c.leadHere
	l.colon = nil
	if strings.HasSuffix(c.text, ":") {
		l.colon = &listLead{text: c.text, span: c.span, terms: c.terms}
		if l.colon.terms == nil {
			l.colon.terms = termSet(c.text)
		}
		c.asLead = l.colon
	}
	l.lastEnd = c.span.End
}

// reset ends the list being read (a table, a fence).
func (l *lists) reset() {
	l.colon, l.lead, l.inList, l.opening = nil, nil, false, false
}

// continueList gives the units of a segment that opens inside a list the
// lead-in of that list, from before, the unit that ends the segment
// before it in the window.
func continueList(us []cand, before *cand) {
	if before == nil || len(us) == 0 || !us[0].opensList {
		return
	}
	lead := before.list
	if !before.inList {
		lead = nil
	}
	if before.asLead != nil && us[0].item {
		lead = before.asLead
	}
	if lead == nil {
		return
	}
	for i := range us {
		if !us[i].opensList {
			break
		}
		us[i].list = lead
		us[i].leadGap = i > 0 || lead != before.asLead
	}
}

// leadFor is the lead-in to quote before a quote that opens with c: its
// list's, when c is an item (or a sentence of one) that opens in lower
// case; nil otherwise.
func leadFor(c *cand) *listLead {
	if c.list == nil || !c.inList || !unicode.IsLower(firstRune(c.text)) {
		return nil
	}
	return c.list
}

// entersList reports whether a quote that reads on from prev to c enters
// a list there, at an item (or a sentence of one) in lower case that says
// little without its lead-in: "… until it is repaired. `--repair`: writes
// …", never "… until it is repaired. writes …".
func entersList(prev, c *cand) bool {
	lead := leadFor(c)
	return lead != nil && (prev.list != lead || !prev.inList)
}

// withLead is the text of a quote that opens with c, after its list's
// lead-in: "`--repair`: moves the damaged files …", or, with items
// between them, "`--repair`: … moves …".
func withLead(lead *listLead, c *cand, text string) string {
	if c.leadGap {
		return lead.text + " … " + text
	}
	return lead.text + " " + text
}
