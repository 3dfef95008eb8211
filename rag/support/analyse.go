package support

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/store/keyword"
)

// Segment is one segment of a passage: its id ("doc:idx") and its text,
// the document's own text as stored.
type Segment struct {
	ID   string
	Text string
}

// Passage is what a citation offers as evidence: the cited segment with
// its window (neighbours, merged windows, a hierarchical parent), each
// segment once, in reading order, and the headings around it (the
// document's title, the section path), which are never evidence.
type Passage struct {
	Segments []Segment
	Headings []string
}

// Evidence is a passage analysed for checking: its sentences (headings
// left out), each with its distinct analysed terms and adjacent term
// pairs. It is built once per passage (Analyse) and never changed, so it
// may check claims from several goroutines at once.
type Evidence struct {
	segs  []Segment
	vocab map[string]int32 // analysed term → id, over all sentences
	words []string         // id → analysed term
	sents []sentence       // in reading order, headings left out
	// numbers and names are the ids of vocab's terms that hold a digit.
	hasDigit []bool
}

// sentence is one sentence of a passage.
type sentence struct {
	seg        int      // index into Evidence.segs
	start, end int      // byte offsets into that segment's text
	terms      []termID // distinct, in order of first appearance
	pairs      []uint64 // distinct adjacent term pairs (pairKey), either order; sorted
	cues       uint8    // cue flags (cues)
}

type termID = int32

// pairKey is the key of an unordered pair of term ids.
func pairKey(a, b termID) uint64 {
	if a > b {
		a, b = b, a
	}
	return uint64(uint32(a))<<32 | uint64(uint32(b))
}

// Analyse analyses p for checking. It splits each segment into sentences
// as documents are split (ingest.Sentences, white space and list or quote
// markers around a sentence left out), drops headings (lines of Markdown
// heading syntax, and lines equal to one of p.Headings, compared without
// case, punctuation or spacing; a heading line that leads a sentence is
// cut off it) and sentences without a letter, and analyses what is
// left. Segments with an empty text add nothing.
func Analyse(p Passage) *Evidence {
	e := &Evidence{segs: p.Segments, vocab: map[string]int32{}}
	heads := map[string]bool{}
	for _, h := range p.Headings {
		if k := headKey(h); k != "" {
			heads[k] = true
		}
	}
	var toks []termID
	var defs []abbreviation
	var mark []int32 // per term: 1 + the sentence that last took it
	for si, seg := range p.Segments {
		for _, sp := range ingest.Sentences(seg.Text) {
			start, end := trimSpan(seg.Text, sp.Start, sp.End)
			start = skipHeadings(seg.Text, start, end, heads)
			if start >= end || !hasLetter(seg.Text[start:end]) {
				continue // a heading, a list number, a table's row of figures
			}
			text := seg.Text[start:end]
			toks = toks[:0]
			for _, t := range tokenize(text) {
				toks = append(toks, e.id(t))
			}
			if len(toks) == 0 {
				continue
			}
			if strings.IndexByte(text, '(') >= 0 {
				defs = append(defs, abbreviations(text, tokenize)...)
			}
			s := sentence{seg: si, start: start, end: end, cues: cues(text)}
			mark = slices.Grow(mark, len(e.words)-len(mark))[:len(e.words)]
			n := int32(len(e.sents) + 1)
			for _, t := range toks {
				if mark[t] != n {
					mark[t] = n
					s.terms = append(s.terms, t)
				}
			}
			for i := 1; i < len(toks); i++ {
				if toks[i] != toks[i-1] {
					s.pairs = append(s.pairs, pairKey(toks[i-1], toks[i]))
				}
			}
			slices.Sort(s.pairs)
			s.pairs = slices.Compact(s.pairs)
			e.sents = append(e.sents, s)
		}
	}
	e.expand(defs)
	return e
}

// expand lets each short form a passage defines stand for its long form:
// a sentence that holds the short form holds the long form's terms (and
// their adjacent pairs) too, and one that holds all of the long form's
// terms holds the short form. The first definition of a short form wins.
func (e *Evidence) expand(defs []abbreviation) {
	seen := map[string]bool{}
	for _, d := range defs {
		if seen[d.short] {
			continue
		}
		seen[d.short] = true
		short := e.id(d.short)
		long := make([]termID, len(d.long))
		for i, t := range d.long {
			long[i] = e.id(t)
		}
		for i := range e.sents {
			s := &e.sents[i]
			if slices.Contains(s.terms, short) {
				for k, id := range long {
					if !slices.Contains(s.terms, id) {
						s.terms = append(s.terms, id)
					}
					if k > 0 && long[k-1] != id {
						if p := pairKey(long[k-1], id); !hasPair(s.pairs, p) {
							s.pairs = append(s.pairs, p)
							slices.Sort(s.pairs)
						}
					}
				}
			} else if containsAll(s.terms, long) {
				s.terms = append(s.terms, short)
			}
		}
	}
}

func containsAll(set, want []termID) bool {
	for _, w := range want {
		if !slices.Contains(set, w) {
			return false
		}
	}
	return true
}

// id is the id of analysed term t, added to the vocabulary if new.
func (e *Evidence) id(t string) termID {
	if id, ok := e.vocab[t]; ok {
		return id
	}
	id := termID(len(e.vocab))
	e.vocab[t] = id
	e.words = append(e.words, t)
	e.hasDigit = append(e.hasDigit, hasDigit(t))
	return id
}

// hasPair reports whether the sorted ps holds k.
func hasPair(ps []uint64, k uint64) bool {
	_, ok := slices.BinarySearch(ps, k)
	return ok
}

func hasLetter(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

func hasDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			return true
		}
	}
	return false
}

// trimSpan trims white space and list or quote markers ("- ", "* ",
// "1. ", "> ") off the start of text[start:end] and white space off its
// end.
func trimSpan(text string, start, end int) (int, int) {
	for {
		s := start
		for s < end && (text[s] == ' ' || text[s] == '\t' || text[s] == '\n' || text[s] == '\r') {
			s++
		}
		if s+1 < end && (text[s] == '-' || text[s] == '*' || text[s] == '+' || text[s] == '>') &&
			(text[s+1] == ' ' || text[s+1] == '\t') {
			s += 2
		} else if s < end && text[s] == '>' {
			s++
		} else {
			d := s
			for d < end && d-s < 9 && text[d] >= '0' && text[d] <= '9' {
				d++
			}
			if d > s && d+1 < end && (text[d] == '.' || text[d] == ')') && (text[d+1] == ' ' || text[d+1] == '\t') {
				s = d + 2
			}
		}
		if s == start {
			break
		}
		start = s
	}
	for end > start {
		r, n := utf8.DecodeLastRuneInString(text[start:end])
		if !unicode.IsSpace(r) {
			break
		}
		end -= n
	}
	return start, end
}

// skipHeadings moves start past the heading lines that lead
// text[start:end]: a line of Markdown heading syntax ("# …", a line
// followed by a setext underline) or a line whose headKey is in heads.
// A sentence that is all heading returns end.
func skipHeadings(text string, start, end int, heads map[string]bool) int {
	for start < end {
		nl := strings.IndexByte(text[start:end], '\n')
		line := text[start:end]
		if nl >= 0 {
			line = line[:nl]
		}
		next := end
		if nl >= 0 {
			next = start + nl + 1
		}
		switch {
		case isATXHeading(line) || len(heads) > 0 && heads[headKey(line)]:
		case nl >= 0 && isSetextUnderline(firstLine(text[next:end])):
			next = next + len(firstLine(text[next:end]))
		default:
			return start
		}
		for next < end && (text[next] == ' ' || text[next] == '\t' || text[next] == '\n' || text[next] == '\r') {
			next++
		}
		start = next
	}
	return end
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// isATXHeading reports whether line is a Markdown ATX heading: up to three
// spaces, one to six '#', then a space or the line's end.
func isATXHeading(line string) bool {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return false
	}
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	return n >= 1 && n <= 6 && (n == len(t) || t[n] == ' ' || t[n] == '\t')
}

// isSetextUnderline reports whether line is a run of '=' or '-' (at least
// three, spaces around allowed), which makes the line above a heading.
func isSetextUnderline(line string) bool {
	t := strings.TrimSpace(line)
	if len(t) < 3 {
		return false
	}
	return strings.Trim(t, "=") == "" || strings.Trim(t, "-") == ""
}

// headKey is the key headings are compared by: letters and digits only,
// lower case. It is "" for a text that has none.
func headKey(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// tokenize is store/keyword's analyser with Greek letters spelled out
// ("TNF-α" and "TNF-alpha" share their terms).
func tokenize(text string) []string {
	toks := keyword.Tokenize(text)
	for i, t := range toks {
		if n, ok := greek[t]; ok {
			toks[i] = n
		}
	}
	return toks
}

// greek spells out the lower-case Greek letters.
var greek = func() map[string]string {
	names := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma sigma tau upsilon phi chi psi omega")
	m := map[string]string{}
	for i, n := range names {
		m[string(rune('α'+i))] = n
	}
	return m
}()
