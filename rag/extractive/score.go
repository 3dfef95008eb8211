package extractive

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// Candidate limits: the units of the top candidatePassages passages'
// windows are scored.
const candidatePassages = 6

// candidates are the units of the top passages' windows, each scored
// against the question, best first. A segment that two passages' windows
// share is read once, for the better-ranked passage.
func candidates(qu *question, passages []Passage) []*cand {
	var out []*cand
	var segUnits [][]cand
	lastSeg := "" // the segment whose units segUnits ends with
	seen := map[string]bool{}
	sc := &scorer{qu: qu, context: map[string]map[string]bool{}, passage: map[int]float64{}, docTerms: map[string]map[string]bool{}}
	rank := 0
	for _, p := range passages {
		if p.Window == nil {
			continue // absorbed into a better hit's passage
		}
		if rank == candidatePassages {
			break
		}
		window := map[string]bool{}
		for i := range p.Window {
			seg := &p.Window[i]
			if seg.Text == "" {
				continue
			}
			ctx := termSet(seg.Text + "\n" + strings.Join(seg.Section, "\n") + "\n" + p.Document.Title)
			for t := range ctx {
				window[t] = true
			}
			if seen[seg.ID] {
				continue
			}
			seen[seg.ID] = true
			sc.context[seg.ID] = ctx
			prev, known := "", false
			if i > 0 && p.Window[i-1].Index == seg.Index-1 {
				prev, known = p.Window[i-1].Text, true
			}
			prompt := promptSegment(seg.Text)
			head, sep := windowTableHead(p.Window, i)
			us := unitsUnder(seg.Text, prev, known, head, sep)
			if len(us) > 0 && known && len(segUnits) > 0 && lastSeg == p.Window[i-1].ID {
				if last := segUnits[len(segUnits)-1]; len(last) > 0 {
					us[0].before = &last[len(last)-1]
					continueList(us, us[0].before)
				}
			}
			for j := range us {
				c := &us[j]
				if j > 0 {
					c.before = &us[j-1]
				}
				c.seg, c.doc, c.k, c.rank, c.segPos, c.hitID = seg, &p.Document, p.K, rank, i, p.Segment.ID
				c.prompt = c.prompt || prompt
				if c.row != "" {
					c.toks = analyse(c.row)
					c.frame = termSet(c.text)
				} else {
					c.toks = analyse(c.text)
					if c.list != nil && c.item {
						// An item completes its list's lead-in as a row
						// its table's header.
						c.frame = c.list.terms
					}
					if c.showsHow(qu) {
						// The command a how-to question's answer
						// introduces is quoted with it: its words
						// count as the lead-in's.
						c.frame = union(c.frame, termSet(seg.Text[c.block.Start:c.block.End]))
					}
				}
				c.terms = map[string]bool{}
				for _, t := range c.toks {
					c.terms[t] = true
				}
				out = append(out, c)
			}
			segUnits = append(segUnits, us)
			lastSeg = seg.ID
		}
		sc.passage[rank] = termsCovered(qu, window)
		if sc.docTerms[p.Document.ID] == nil {
			sc.docTerms[p.Document.ID] = map[string]bool{}
		}
		for t := range window {
			sc.docTerms[p.Document.ID][t] = true
		}
		rank++
	}
	sc.prepare(out)
	for _, us := range segUnits {
		for j := range us {
			sc.score(&us[j])
		}
	}
	slices.SortStableFunc(out, func(a, b *cand) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
	return out
}

// showsHow reports whether c introduces a code block that answers a
// how-to question: the command is quoted with it (choose).
func (c *cand) showsHow(qu *question) bool {
	return qu.kind == KindHowTo && c.block.End > c.block.Start
}

// union is the terms of a and b (a itself when b is empty).
func union(a, b map[string]bool) map[string]bool {
	if len(b) == 0 {
		return a
	}
	out := make(map[string]bool, len(a)+len(b))
	for t := range a {
		out[t] = true
	}
	for t := range b {
		out[t] = true
	}
	return out
}

// headingTerms are the terms of the candidate's section headings.
func (c *cand) headingTerms() map[string]bool {
	set := map[string]bool{}
	for _, h := range c.seg.Section {
		for _, t := range analyse(h) {
			set[t] = true
		}
	}
	return set
}

// Cues of an answer's shape, on the lower-cased sentence.
var (
	reDefCue     = regexp.MustCompile(`\b(is|are|was|were)\b|\brefers? to\b|\bmeans?\b|\bmeasures?\b|\bdenotes?\b|\bdefined?\b|\bcompute[sd]?\b|\bcalculated?\b|\bcalculates\b|\bif and only if\b|\biff\b|\bconsists? of\b|:`)
	reDigit      = regexp.MustCompile(`\d`)
	reNumber     = regexp.MustCompile(`(?:^|[^\pL\d@_-])\d|(?:^|\s)[-−]\d`) // a number, not a digit of a name ("ELI5", "recall-5", "R@5")
	reNumberWord = regexp.MustCompile(`\b(two|three|four|five|six|seven|eight|nine|ten|twice|half|once|dozen|hundred|thousand|million|billion)\b`)
	reIdiom      = regexp.MustCompile(`\b(at once|once again|all at once|once and for all|in half)\b`) // number words that count nothing
	reBound      = regexp.MustCompile(`\b(at most|at least|up to|no more than|maximum|minimum|limit|limits|over|under|more than|less than|fewer than)\b`)
	reCiteYear   = regexp.MustCompile(`\(([^()]*\b(et al\.|and) )?[^()]*\b(19|20)\d\d[a-z]?\)|\b(19|20)\d\d[a-z]?\b|§\s*\d+(\.\d+)*|\b(Table|Figure|Fig\.|Section|Appendix)\s*\d+|[¹²³⁴⁵⁶⁷⁸⁹⁰]+`)
	reCause      = regexp.MustCompile(`\b(because|since|due to|as a result|so that|in order to|to avoid|to prevent|thus|therefore|hence|as|reason|otherwise|cannot|can't|not)\b|因为|由于|所以|因此`)
	reHowToCue   = regexp.MustCompile("\\b(you can|you must|use|using|run|choose|set|add|type|press|install|select|put|create|pass|call|write|compile)\\b|`|\\\\[a-z]+")
	reContrast   = regexp.MustCompile(`\b(whereas|while|than|compared (with|to)|in contrast|unlike|outperforms?|outperformed|higher|lower|better|worse|more|less|fewer)\b`)
	reLimitCue   = regexp.MustCompile(`\b(limit(s|ed|ation|ations)?|cannot|can't|unable|fails?|failed|failure|overlooks?|overlooked|lacks?|lacking|drawbacks?|weakness(es)?|shortcomings?|struggles?|struggled|at the cost of|at most one|only one)\b`)
	reIfCue      = regexp.MustCompile(`\b(if|unless|whenever|in case|otherwise)\b|^(when|once|should)\b`)
	reNegation   = regexp.MustCompile(`\b(no|not|never|none|cannot|can't|only|all|without)\b|不|没有|无法`)
	reContinues  = regexp.MustCompile(`^(This|These|That|Those|It|Its|They|Their|Such|Then|Finally|Formally|Specifically|In particular|For example|For instance|For each|Thus|Therefore|Hence|Here|However|Moreover|In addition|Also|Note that|That is|Otherwise|Instead|Intuitively|Besides)\b`)
	reBackRef    = regexp.MustCompile(`^(This|These|That|Those|It|Its|They|Their|Such|Both|Thus|Therefore|Hence)\b`)
	reEnumerator = regexp.MustCompile(`\(\d\)|\(\w\)|^\d+\.\s`)
)

// scorer scores candidates against one question.
type scorer struct {
	qu *question
	// w are the question's term weights for sentences: rarity in the
	// library times rarity among the candidates (a term most candidates
	// hold, such as the name of the paper they come from, tells them
	// apart less), half for a carried term, more for a definition's
	// subject.
	w       []float64
	avgLen  float64
	context map[string]map[string]bool // segment id → the terms of its text, headings and document title
	passage map[int]float64            // passage rank → the share of the question's terms its window holds
	// docTerms are, for each document, the terms of its passages'
	// windows that are read: what the document says of the question.
	docTerms map[string]map[string]bool
}

// The parts of a candidate's score besides its own match, each a weight
// on a share in [0, 1], chosen on the in-repo long-document set
// (rag/retrieve/testdata/longdoc; docs/answers.md has the figures):
// the question's terms it lacks but its context holds, the question's
// terms it holds as a phrase, the question's terms in its headings (or
// in the lead-in before it), the share of the question its passage
// holds, its passage's rank (weight/rank), being in the segment
// retrieval found rather than a neighbour, and the share of the question
// its document's passages hold together (a question about one paper is
// answered from that paper, not from a passage of another that shares a
// few of its words; flat from 0.1 to 0.2, worse from 0.4).
const (
	contextWeight = 0.3
	phraseWeight  = 0.25
	headingWeight = 0.2
	passageWeight = 0.2
	rankWeight    = 0.1
	hitWeight     = 0.1
	docWeight     = 0.15
	// frameWeight is what a term of a table row's header or caption
	// counts for the row, against a term of the row itself.
	frameWeight = 0.7
	// leadFrameWeight is what a term of a list's lead-in counts for an
	// item of the list.
	leadFrameWeight = 0.7
)

// BM25's parameters, for sentences.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// prepare weighs the question's terms over all the candidates.
func (sc *scorer) prepare(cands []*cand) {
	qu := sc.qu
	sc.w = make([]float64, len(qu.terms))
	n := float64(len(cands))
	total := 0
	for _, c := range cands {
		total += len(c.toks)
	}
	if len(cands) > 0 {
		sc.avgLen = float64(total) / n
	}
	for i, t := range qu.terms {
		df := 0
		for _, c := range cands {
			if c.terms[t] {
				df++
			}
		}
		local := 1.0
		if n > 0 {
			local = 1 / (1 + 3*float64(df)/n)
		}
		sc.w[i] = qu.weights[i] * local
		if qu.focus[i] {
			sc.w[i] *= 1.5
		}
	}
}

// score weighs a candidate against the question: how well it matches the
// question's terms (BM25 over the candidates, each term weighted as
// prepare says), the terms it lacks but its segment, headings or document
// hold (a sentence is read in its context), the question's terms it holds
// as a phrase, its section's headings and the lead-in before it, how much
// of the question its whole passage holds and its rank, and the shape the
// question asks for; then less for what is rarely an answer (a fragment
// is out).
func (sc *scorer) score(c *cand) {
	qu := sc.qu
	var have, ctx, all float64
	var matched, own []string // own: matched by the unit's own words, not its table's frame
	norm := 1.0
	if sc.avgLen > 0 {
		norm = 1 - bm25B + bm25B*float64(len(c.toks))/sc.avgLen
	}
	tf := map[string]int{}
	for _, t := range c.toks {
		tf[t]++
	}
	around := sc.context[c.seg.ID]
	for i, t := range qu.terms {
		w := sc.w[i]
		all += w
		if c.doc.ID == qu.named && qu.namedTitle[t] {
			// Every sentence of the document the question names is about it.
			ctx += w
			continue
		}
		if n := float64(tf[t]); n > 0 {
			have += w * n * (bm25K1 + 1) / (n + bm25K1*norm)
			matched = append(matched, t)
			own = append(own, t)
		} else if c.frame[t] {
			fw := frameWeight
			if c.row == "" {
				fw = leadFrameWeight
			}
			have += fw * w * (bm25K1 + 1) / (1 + bm25K1*norm)
			matched = append(matched, t)
		} else if around[t] {
			ctx += w
		}
	}
	rel, inCtx := 0.0, 0.0
	if all > 0 {
		rel, inCtx = have/all, ctx/all
	}
	s := rel + contextWeight*inCtx
	c.why = append(c.why, fmt.Sprintf("matches %.2f of the question (%s)", rel, strings.Join(matched, " ")))
	if inCtx > 0 {
		c.why = append(c.why, fmt.Sprintf("context +%.2f", contextWeight*inCtx))
	}
	if len(qu.pairs) > 0 {
		n := 0
		for i := 0; i+1 < len(c.toks); i++ {
			if qu.pairs[[2]string{c.toks[i], c.toks[i+1]}] {
				n++
			}
		}
		if n > 0 {
			ph := phraseWeight * min(1, float64(n)/float64(len(qu.pairs)))
			s += ph
			c.why = append(c.why, fmt.Sprintf("phrase +%.2f", ph))
		}
	}
	if h := termsCovered(qu, c.headingTerms()); h > 0 {
		s += headingWeight * h
		c.why = append(c.why, fmt.Sprintf("heading +%.2f", headingWeight*h))
	}
	var lead map[string]bool // the terms of the lead-in before it, or of its list's
	switch {
	case c.before != nil && c.before.leadIn:
		lead = c.before.terms
	case c.list != nil:
		lead = c.list.terms
	}
	if h := termsCovered(qu, lead); h > 0 {
		s += headingWeight * h
		c.why = append(c.why, fmt.Sprintf("lead-in +%.2f", headingWeight*h))
	}
	pc := sc.passage[c.rank]
	s += passageWeight*pc + rankWeight/float64(c.rank+1)
	if dc := termsCovered(qu, sc.docTerms[c.doc.ID]); dc > 0 {
		s += docWeight * dc
	}
	if c.seg.ID == c.hitID {
		s += hitWeight
	}
	c.why = append(c.why, fmt.Sprintf("passage %d holds %.2f", c.rank+1, pc))

	f, why := shape(qu, c)
	s *= f
	if why != "" {
		c.why = append(c.why, why)
	}
	if qu.named != "" {
		if c.doc.ID != qu.named {
			s *= 0.3
			c.why = append(c.why, "not the document the question names ×0.3")
		} else if qu.kind == KindHowTo && !c.code {
			// How to use a document: its opening instructions first, not
			// its abstract, which describes.
			early := 0.3 / float64(1+c.seg.Index)
			if isAbstract(c.seg.Section) {
				early = 0
			}
			s += early
			c.why = append(c.why, fmt.Sprintf("early in the named document +%.2f", early))
		}
	}
	if own, ownHeld := qu.ownHeld(c); own > 0 && ownHeld == 0 {
		s *= 0.5
		c.why = append(c.why, "none of the question's own terms ×0.5")
	}
	f, why = plainness(qu, c, own)
	s *= f
	if why != "" {
		c.why = append(c.why, why)
	}
	c.score = s
	c.why = append([]string{fmt.Sprintf("score %.2f", s)}, c.why...)
}

// termsCovered is the weighted share of the question's own terms that
// set holds.
func termsCovered(qu *question, set map[string]bool) float64 {
	var have, all float64
	for i, t := range qu.terms {
		if !qu.own[i] {
			continue
		}
		all += qu.weights[i]
		if set[t] {
			have += qu.weights[i]
		}
	}
	if all == 0 {
		return 0
	}
	return have / all
}

// shape is how well the candidate has the shape of answer the question
// asks for, as a factor, and why.
func shape(qu *question, c *cand) (float64, string) {
	low := strings.ToLower(c.text)
	switch qu.kind {
	case KindDefinition:
		var subject []string
		has := 0
		heading := c.headingTerms()
		for i, t := range qu.terms {
			if qu.focus[i] {
				subject = append(subject, t)
				if c.terms[t] || heading[t] {
					has++
				}
			}
		}
		f, why := 1.0, ""
		if len(subject) > 0 && allIn(subject, heading) {
			// A section that names the subject is where it is defined.
			f, why = 1.3, ", its heading names the subject ×1.3"
		}
		switch {
		case len(subject) > 0 && defines(c.text, subject) && allIn(subject, c.terms):
			return 1.6 * f, "defines the subject ×1.6" + why
		case len(subject) > 0 && defines(c.text, subject) && has == len(subject):
			return 1.3 * f, "defines the subject named in its heading ×1.3" + why
		case len(subject) > 0 && has == len(subject) && reDefCue.MatchString(low):
			return 1.15 * f, "names the subject ×1.15" + why
		case len(subject) > 0 && has == 0:
			return 0.6, "not about the subject ×0.6"
		}
		return f, strings.TrimPrefix(why, ", ")
	case KindNumber:
		if !hasNumber(c) {
			return 0.6, "has no number ×0.6"
		}
		f, why := 1.3, "has a number ×1.3"
		if reBound.MatchString(low) {
			f, why = 1.5, "has a number and a bound ×1.5"
		}
		if share, n := qu.focusShare(c); n > 0 {
			// What is measured: "how long can a citation token be" wants
			// a number of a citation token, not of any token.
			g := 0.9 + 0.2*share
			f *= g
			why += fmt.Sprintf(", of %.0f%% of what is measured ×%.2g", 100*share, g)
		}
		return f, why
	case KindList:
		head := qu.hasFocus(c)
		items := listItems(qu, c)
		switch {
		case items && head:
			return 1.6, "lists what was asked ×1.6"
		case items:
			return 1.25, "a list ×1.25"
		case head:
			return 0.75, "no list ×0.75"
		default:
			return 0.6, "no list, not what was asked ×0.6"
		}
	case KindReason:
		if reCause.MatchString(low) {
			return 1.3, "gives a reason ×1.3"
		}
	case KindHowTo:
		if reHowToCue.MatchString(low) || c.showsHow(qu) {
			return 1.25, "says how ×1.25"
		}
	case KindCompare:
		// A comparison is best answered with the figures compared.
		switch contrast, number := reContrast.MatchString(low), hasNumber(c); {
		case contrast && number:
			return 1.5, "compares figures ×1.5"
		case contrast:
			return 1.2, "compares ×1.2"
		case number:
			return 1.1, "has a figure ×1.1"
		}
	case KindLimit:
		if reLimitCue.MatchString(low) {
			return 1.3, "names a limit ×1.3"
		}
	case KindCondition:
		if reIfCue.MatchString(low) {
			return 1.3, "says what happens then ×1.3"
		}
	case KindYesNo:
		if reNegation.MatchString(low) {
			return 1.1, "settles it ×1.1"
		}
	}
	return 1, ""
}

// hasNumber reports whether c states a number: a numeral that is not part
// of a name ("ELI5", "GPT-4"), a year, a citation or a reference to a
// table or section, or a number word.
func hasNumber(c *cand) bool {
	text := c.text
	if c.row != "" {
		text = c.row
	}
	return reNumber.MatchString(reCiteYear.ReplaceAllString(text, "")) || reNumberWord.MatchString(reIdiom.ReplaceAllString(strings.ToLower(text), ""))
}

// isAbstract reports whether a section path is a paper's abstract.
func isAbstract(path []string) bool {
	if len(path) == 0 {
		return false
	}
	h := strings.ToLower(strings.TrimSpace(path[len(path)-1]))
	return h == "abstract" || h == "摘要" || h == "摘 要" || h == "summary"
}

// allIn reports whether set holds every term.
func allIn(terms []string, set map[string]bool) bool {
	for _, t := range terms {
		if !set[t] {
			return false
		}
	}
	return true
}

// ownHeld counts the question's own terms, and how many of them c or
// its headings hold.
func (qu *question) ownHeld(c *cand) (own, held int) {
	heading := c.headingTerms()
	for i, t := range qu.terms {
		if qu.own[i] {
			own++
			if c.terms[t] || heading[t] || c.doc.ID == qu.named && qu.namedTitle[t] {
				held++
			}
		}
	}
	return own, held
}

// focusShare is the share of the question's focus terms that c or its
// headings hold, and how many focus terms there are.
func (qu *question) focusShare(c *cand) (float64, int) {
	heading := c.headingTerms()
	n, held := 0, 0
	for i, t := range qu.terms {
		if qu.focus[i] {
			n++
			if c.terms[t] || heading[t] || c.frame[t] {
				held++
			}
		}
	}
	if n == 0 {
		return 0, 0
	}
	return float64(held) / float64(n), n
}

// hasFocus reports whether c or its headings hold every focus term of
// the question (true when it has none).
func (qu *question) hasFocus(c *cand) bool {
	heading := c.headingTerms()
	for i, t := range qu.terms {
		if qu.focus[i] && !c.terms[t] && !heading[t] {
			return false
		}
	}
	return true
}

// listItems reports whether c lists things: a table, numbered items, a
// colon followed by a list, or three items or more ("ASQA, QAMPARI, and
// ELI5"; two with "or") each opening with a name that is not the
// question's own (capitalised or written with capitals or digits inside,
// not a pronoun or an article).
func listItems(qu *question, c *cand) bool {
	if c.table || len(reEnumerator.FindAllString(c.text, -1)) >= 2 {
		return true
	}
	if n := strings.Count(c.text, "、"); n >= 2 || n == 1 && strings.ContainsAny(c.text, "和及与或") {
		return true // Chinese enumerates with 、: "A、B 和 C"
	}
	if i := strings.Index(c.text, ": "); i > 0 {
		// "… the three dimensions: fluency, correctness, and citation quality."
		after := c.text[i+2:]
		if strings.Count(after, ",")+strings.Count(after, " and ")+strings.Count(after, " or ") >= 2 {
			return true
		}
	}
	text := reCiteYear.ReplaceAllString(c.text, "") // authors of references are no list
	alternatives := strings.Contains(text, " or ")
	text = strings.NewReplacer(" and ", ",", " or ", ",", "—", ",", ";", ",", "、", ",", "（", ",", "(", ",").Replace(text)
	names := 0
	for _, item := range strings.Split(text, ",") {
		f := strings.Fields(item)
		for len(f) > 1 && listOpeners[strings.ToLower(f[0])] {
			f = f[1:] // "including Alpaca-7B": the item is the name
		}
		if len(f) == 0 {
			continue
		}
		w := strings.Trim(f[0], "“”\"'‘’()[]`*")
		if !nameLike(w) || capsWords[w] {
			continue
		}
		if ts := analyse(w); len(ts) == 0 || slices.ContainsFunc(ts, func(t string) bool { return slices.Contains(qu.terms, t) }) {
			continue
		}
		names++
	}
	if alternatives && names < 2 {
		// "either PDFLaTeX or XeLaTeX": the names need not open items.
		names = 0
		for i, w := range strings.Fields(text) {
			w = strings.Trim(w, "“”\"'‘’()[]`*.,;:¹²³")
			if i > 0 && nameLike(w) && !capsWords[w] {
				names++
			}
		}
	}
	return names >= 3 || alternatives && names >= 2
}

// nameLike reports whether w is written as a name: capitalised, or with
// capitals or digits inside ("XeLaTeX", "ELI5", "gpt-3.5").
func nameLike(w string) bool {
	if w == "" {
		return false
	}
	if unicode.IsUpper(firstRune(w)) {
		return true
	}
	caps, digits := 0, 0
	for _, r := range w {
		switch {
		case unicode.IsUpper(r):
			caps++
		case unicode.IsDigit(r):
			digits++
		}
	}
	return caps > 0 || digits > 0 && strings.ContainsAny(w, "-.") || strings.Contains(w, "=") // "cite=numbers", an option
}

// listOpeners are the words that may open a list's first item ("…
// models, including Alpaca-7B, Vicuna-13B and Oasst-33B").
var listOpeners = map[string]bool{"including": true, "include": true, "includes": true, "namely": true, "e.g.": true, "i.e.": true, "like": true, "such": true, "as": true, "especially": true, "notably": true}

// capsWords are capitalised words that name nothing.
var capsWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("The A An We You It They This These That Those In On For With As To Our Its If When While And Or But Both Each All Some Most Their Here There Then Also However Table Figure Fig Section Appendix Which What How Why Who Where Specifically Finally First Second Third Although Because Since After Before I") {
		m[w] = true
	}
	return m
}()

// reConditional is a value given on a condition: "… of 1 if …".
var reConditional = regexp.MustCompile(`\b(of|is|equals|be) (0|1|one|zero|true|false)\b.*\b(if|iff|when|unless)\b`)

// defineVerbs are the words after which a sentence says what its subject
// is or how it is worked out.
var defineVerbs = map[string]bool{
	"is": true, "are": true, "was": true, "were": true, "means": true, "refers": true, "measures": true,
	"denotes": true, "indicates": true, "computes": true, "calculates": true, "determines": true,
	"equals": true, "consists": true, "represents": true, "describes": true, "identifies": true,
	"checks": true, "evaluates": true, "captures": true, "quantifies": true,
}

// defines reports whether sentence defines its subject: the subject's
// last term (its head: "token" of "citation token") comes within the
// first ten words and before a defining verb ("A token is …", "MAUVE
// measures …"), or the sentence works it out ("we calculate the citation
// recall of …", "… is defined as", "its X is 1 if and only if").
func defines(sentence string, subject []string) bool {
	head := subject[len(subject)-1]
	words := strings.FieldsFunc(strings.ToLower(sentence), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_'
	})
	seen := -1
	for i, w := range words {
		if i >= 12 {
			break
		}
		if seen < 0 && slices.Contains(analyse(w), head) {
			seen = i
			continue
		}
		if seen >= 0 && defineVerbs[w] {
			return true
		}
		if seen < 0 && (w == "calculate" || w == "compute" || w == "define") {
			for _, v := range words[i+1 : min(len(words), i+6)] {
				if slices.Contains(analyse(v), head) {
					return true
				}
			}
		}
	}
	low := strings.ToLower(sentence)
	if seen >= 0 && reConditional.MatchString(strings.Join(words[seen:min(len(words), seen+10)], " ")) {
		return true // "… has a citation precision of 1 if …"
	}
	return seen >= 0 && (strings.Contains(low, "defined as") || strings.Contains(low, "if and only if") ||
		strings.Contains(low, " iff ") || strings.Contains(low, "computed as") || strings.Contains(low, "calculated as"))
}

// asksAbout reports whether the question names what a prompt, a caption
// or code would be about.
func (qu *question) asksAbout(words ...string) bool {
	for _, w := range words {
		for _, t := range analyse(w) {
			if slices.Contains(qu.terms, t) {
				return true
			}
		}
	}
	return false
}

// plainness is the factor for what is rarely an answer: a fragment (out),
// a reference entry, a printed prompt or worked example, a caption alone,
// code (unless the question asks how to do something), a question, a
// sentence that echoes the question, a wall of text.
func plainness(qu *question, c *cand, matched []string) (float64, string) {
	f := 1.0
	var why []string
	down := func(by float64, what string) {
		f *= by
		why = append(why, fmt.Sprintf("%s ×%.2g", what, by))
	}
	switch {
	case c.fragment || c.bare && qu.kind != KindNumber:
		down(0, "a fragment")
	case c.refs:
		down(0.2, "a reference entry")
	}
	if c.prompt && !qu.asksAbout("prompt", "instruction", "example", "demonstration") {
		down(0.25, "a printed prompt or example")
	}
	if c.caption && !c.table && (qu.kind != KindNumber || !hasNumber(c)) && len(strings.Fields(c.text)) < 15 {
		down(0.5, "a caption alone")
	}
	if c.table && qu.kind != KindNumber && qu.kind != KindList {
		down(0.7, "a table")
	}
	if c.code {
		if qu.kind == KindHowTo {
			down(0.8, "code")
		} else {
			down(0.35, "code")
		}
	}
	if strings.HasSuffix(strings.TrimSpace(c.text), "?") {
		down(0.5, "a question")
	}
	own := 0
	for t := range c.terms {
		if !slices.Contains(qu.terms, t) {
			own++
		}
	}
	if len(c.terms) > 0 && float64(len(matched))/float64(len(c.terms)) > echo || own < 3 && !c.table && !isCJK(c.text) {
		down(0.4, "mostly the question's own words")
	}
	if quotes(c.toks, qu.seq) {
		down(0.1, "it quotes the question itself")
	}
	if n := len(c.text); n < 30 || n > 600 && !c.table {
		down(0.7, "length")
	}
	if r := firstRune(c.text); unicode.IsLower(r) && !c.code && leadFor(c) == nil {
		down(0.85, "starts in lower case")
	} else if reFootnoteBody.MatchString(c.text) {
		down(0.5, "a footnote's text")
	}
	return f, strings.Join(why, ", ")
}

// reFootnoteBody is a PDF footnote's text, its mark glued to its first
// word ("1with ctex package for Chinese fonts settings."): an aside.
var reFootnoteBody = regexp.MustCompile(`^[0-9¹²³⁴⁵⁶⁷⁸⁹⁰]{1,2}\p{Ll}`)

// echo: a sentence whose terms are more than this share the question's
// own merely echoes it.
const echo = 0.7

// quotes reports whether a sentence's terms hold the question's terms in
// order, one after another (a tip or a list of example questions that
// repeats the question): such a sentence asks, it does not answer. Short
// questions (under three terms) are never taken as quoted.
func quotes(sentence, question []string) bool {
	if len(question) < 3 || len(question) > len(sentence) {
		return false
	}
	for i := 0; i+len(question) <= len(sentence); i++ {
		if slices.Equal(sentence[i:i+len(question)], question) {
			return true
		}
	}
	return false
}
