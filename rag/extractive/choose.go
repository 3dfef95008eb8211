package extractive

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ibid-dev/ibid/rag/ingest"
)

// Choice limits: at most maxQuotes quotes, each at most maxRun sentences
// in a row of one segment; a quote after the first only when it scores at
// least secondShare of the first (and says something of what was
// asked); none scoring under minScore.
const (
	maxQuotes   = 3
	maxRun      = 3
	secondShare = 0.5
	minScore    = 0.05
	duplicate   = 0.6 // a candidate sharing more of its terms than this with a quoted one is a near-duplicate
	shortQuote  = 40  // a quote of fewer runes than this takes the sentence after it
)

// run is a quote being chosen: candidates in a row of one segment.
type run struct {
	first *cand     // the candidate that earned the quote
	units []*cand   // in reading order
	lead  *listLead // quoted first: the lead-in of the list units[0] is an item of (leadFor)
	block bool      // quoted with the code block its one unit introduces (cand.block)
}

// choose picks the quotes: the best candidate with what it needs around
// it (the sentence before, when it starts by pointing back; those after,
// when it leads into them or they go on with it; a table's caption), then
// up to maxQuotes-1 more from other places, each nearly as good and none
// a near-duplicate of a quote already chosen.
func choose(qu *question, cands []*cand) []run {
	bySeg := map[string][]*cand{}
	for _, c := range cands {
		bySeg[c.seg.ID] = append(bySeg[c.seg.ID], c)
	}
	for _, cs := range bySeg {
		slices.SortFunc(cs, func(a, b *cand) int { return a.pos - b.pos })
	}
	var out []run
	used := map[*cand]bool{}
	for _, c := range cands {
		if len(out) == maxQuotes {
			break
		}
		if c.score < minScore || used[c] {
			continue
		}
		if len(out) > 0 && (c.score < secondShare*out[0].first.score || nearDuplicate(c, out) || !holdsOwn(qu, c)) {
			continue
		}
		var r run
		if c.showsHow(qu) {
			// The sentence that introduces a command is quoted with the
			// command's block, and nothing after it.
			r = run{first: c, units: []*cand{c}, block: true}
		} else {
			r = grow(c, bySeg[c.seg.ID], used)
		}
		if len(r.units) == 1 && c.leadIn && !r.block {
			continue // a run-in heading whose text is in the next segment says nothing alone
		}
		for _, u := range r.units {
			used[u] = true
		}
		out = append(out, r)
	}
	return out
}

// grow makes a quote of c and its neighbours in seg (its segment's
// candidates in reading order).
func grow(c *cand, seg []*cand, used map[*cand]bool) run {
	at := 0
	for i, u := range seg {
		if u == c {
			at = i
		}
	}
	lo, hi := at, at
	ok := func(i int) bool {
		return i >= 0 && i < len(seg) && !used[seg[i]] && !seg[i].fragment && !seg[i].refs && seg[i].pos == seg[at].pos+(i-at)
	}
	if c.table {
		// A table is quoted with its caption, just before or after it
		// (a PDF table's row holds it already).
		if dotRow(c.row) {
			return run{first: c, units: seg[at : at+1]}
		}
		switch {
		case ok(at+1) && seg[at+1].caption:
			hi = at + 1
		case ok(at-1) && seg[at-1].caption:
			lo = at - 1
		}
		return run{first: c, units: seg[lo : hi+1]}
	}
	if reBackRef.MatchString(c.text) && ok(at-1) && !seg[at-1].table {
		lo = at - 1
	}
	for hi-lo+1 < maxRun && ok(hi+1) && !seg[hi+1].table {
		cur, next := seg[hi], seg[hi+1]
		if !(cur.leadIn || strings.HasSuffix(cur.text, ":") || reContinues.MatchString(next.text) || next.score >= 0.8*c.score) {
			break
		}
		hi++
	}
	// A short quote says little on its own: it takes the sentence after
	// it (a reason and its remedy, a rule and its limit).
	for hi-lo+1 < maxRun && ok(hi+1) && !seg[hi+1].table && runLen(seg[lo:hi+1]) < shortQuote {
		hi++
	}
	return run{first: c, units: seg[lo : hi+1], lead: leadFor(seg[lo])}
}

// holdsOwn reports whether c, or its headings, holds one of the
// question's own terms, if the question has any: a quote after the first
// must say something of what was asked.
func holdsOwn(qu *question, c *cand) bool {
	own, held := qu.ownHeld(c)
	return own == 0 || held > 0
}

// nearDuplicate reports whether c shares most of its terms with a quote
// already chosen.
func nearDuplicate(c *cand, chosen []run) bool {
	for _, r := range chosen {
		for _, p := range r.units {
			both, either := 0, len(p.terms)
			for t := range c.terms {
				if p.terms[t] {
					both++
				} else {
					either++
				}
			}
			if either > 0 && float64(both)/float64(either) > duplicate {
				return true
			}
		}
	}
	return false
}

// render turns the chosen runs into quotes: a run of sentences is one
// quote (its span from the first to the last, its text theirs joined by
// a space, or by none where the document has none, as between Chinese
// sentences); a Markdown table is a quote of its own; each run a paragraph.
func render(runs []run) []Quote {
	var out []Quote
	for i, r := range runs {
		var prose []*cand
		flush := func() {
			if len(prose) == 0 {
				return
			}
			var text strings.Builder
			for j, u := range prose {
				if j > 0 && gap(prose[j-1], u) {
					text.WriteByte(' ')
				}
				if j > 0 && entersList(prose[j-1], u) {
					text.WriteString(withLead(u.list, u, u.text))
					continue
				}
				text.WriteString(u.text)
			}
			first, last := prose[0], prose[len(prose)-1]
			span := ingest.Span{Start: first.span.Start, End: last.span.End}
			t := text.String()
			if r.lead != nil && first == r.units[0] {
				t = withLead(r.lead, first, t)
				if first.leadHere {
					span.Start = r.lead.span.Start
				}
			}
			q := Quote{K: first.k, Segment: *first.seg, Text: t, Span: span, Para: i}
			if r.block {
				// The sentence as the document ends it, with a colon, and
				// its block.
				q.Text = strings.TrimSuffix(t, ".") + ":"
				q.Code = strings.TrimSpace(first.seg.Text[first.block.Start:first.block.End])
				q.Span.End = first.block.End
			}
			out = append(out, q)
			prose = nil
		}
		for _, u := range r.units {
			if u.table && strings.Contains(u.text, "\n") {
				flush()
				out = append(out, Quote{K: u.k, Segment: *u.seg, Text: u.text, Span: u.span, Table: true, Para: i})
				continue
			}
			prose = append(prose, u)
		}
		flush()
	}
	return out
}

// runLen is the length in runes of units quoted together.
func runLen(units []*cand) int {
	n := 0
	for _, u := range units {
		n += utf8.RuneCountInString(u.text) + 1
	}
	return n
}

// gap reports whether the document puts white space between a and b,
// units in a row of one segment (a Chinese text puts none between its
// sentences).
func gap(a, b *cand) bool {
	if a.seg != b.seg || a.span.End > b.span.Start || b.span.Start > len(a.seg.Text) {
		return true
	}
	return strings.IndexFunc(a.seg.Text[a.span.End:b.span.Start], unicode.IsSpace) >= 0
}
