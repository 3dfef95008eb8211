package rag

import (
	"slices"
	"strconv"
	"strings"
)

// Verdicts are the footnotes' support checks of one answer, by display
// number: the last support event of each (a refined verdict replaces the
// first). The faces keep one to mark what the passages do not support.
type Verdicts map[int]*Support

// Add takes e into v when it is a support event; a nil v is made on the
// first, so a face's zero value is ready to use.
func (v *Verdicts) Add(e Event) {
	if e.Type == EventSupport && e.Support != nil {
		if *v == nil {
			*v = Verdicts{}
		}
		(*v)[e.Support.Number] = e.Support
	}
}

// TurnVerdicts are the verdicts of a turn's events.
func TurnVerdicts(t *Turn) Verdicts {
	v := Verdicts{}
	for _, e := range t.Events {
		v.Add(e)
	}
	return v
}

// Unsupported are the display numbers whose verdict is Unsupported, in
// increasing order.
func (v Verdicts) Unsupported() []int {
	var out []int
	for n, s := range v {
		if s.Verdict == Unsupported {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// VerdictNote says a verdict in words for plain faces (text, Markdown):
// what a reader must know, "" for a supported or unchecked footnote.
func VerdictNote(s *Support) string {
	if s == nil {
		return ""
	}
	switch s.Verdict {
	case Unsupported:
		return "unsupported: the passage does not say this"
	case Partial:
		return "partly supported: the passage says only some of this"
	}
	return ""
}

// Quote is what a footnote quotes of its source: the sentence that
// supports the claim when the check found one, else the start of the
// passage (the snippet).
func Quote(s Source, sup *Support) string {
	if sup != nil && sup.Sentence != "" {
		return oneLine(sup.Sentence)
	}
	return s.Snippet
}

// RefList writes numbers as references, "[2], [5]".
func RefList(numbers []int) string {
	parts := make([]string, len(numbers))
	for i, n := range numbers {
		parts[i] = "[" + strconv.Itoa(n) + "]"
	}
	return strings.Join(parts, ", ")
}
