// Package extractive is the answerer that needs no model: it quotes the
// sentences of the retrieved passages that answer a question, each cited
// as the segment that holds it, or, when the library does not seem to
// answer the question (the relevance floor), declines and names the
// closest passages. It chooses; package rag writes the choice into the
// citation stream (neutralised, streamed) as the extractive Answerer.
//
// A question is read for the shape of answer it wants (Kind: a
// definition, a list of names, a number, yes or no, a reason, how to do
// something), for what it is about (its terms, weighted by rarity, and
// the subject of a definition), and, for a follow-up, against the
// question before it (Resolve). Every sentence and table of the top
// passages' windows is scored against it; the best is quoted with the
// sentences it needs around it, and a second from elsewhere when it is
// nearly as good. Fragments are never quoted; captions, reference
// entries, printed prompts and code weigh less.
//
// It never imports rag: it reads passages as Passage (Views makes them
// from retrieval's passages) and a library's term statistics through
// store.TermCounter. (The chat's first-screen questions, each checked
// against the answer this package gives it, are rag.Suggest's.)
package extractive

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/store"
)

// trace, if not nil, is told of every answer's candidates and choice
// (set by the package's tests, which study the long-document set's misses).
var trace func(qu *question, cands []*cand, quotes []run, passages []Passage)

// explainOthers is how many of the sentences not quoted --explain names.
const explainOthers = 5

// maxPassages is how many passages the relevance floor reads (each hit's
// own window, as it was calibrated).
const maxPassages = 4

// Query is one question put to the answerer.
type Query struct {
	Question string
	// Carried are the words a follow-up carries over from the question
	// before it (Resolution.Carried); they count half.
	Carried []string
	// Passages are the turn's passages as Views makes them, best first.
	Passages []Passage
	// Stats, if not nil, gives the library's term statistics, which weigh
	// the question's terms by rarity; without it every term weighs 1 and
	// a plainer floor applies.
	Stats store.TermCounter
	// Explain, if not nil, is told why each sentence was chosen, or why
	// none was (ibid ask --explain).
	Explain func(line string)
}

// Result is the answerer's choice.
//
// Invariant: Declined and Quotes exclude each other; with no passages
// both are empty.
type Result struct {
	// Declined: the library does not seem to answer the question; Closest
	// are the passages to name instead (at most two, best first).
	Declined bool
	Closest  []Passage
	// Quotes are what to quote, in the order to write them (the best
	// first); quotes of one paragraph share Para.
	Quotes []Quote
}

// Quote is one quoted sentence, or a few sentences in a row, or a table.
type Quote struct {
	K int // alias of the passage that offered it
	// Segment is the segment that holds it: the passage's hit (K's
	// segment) or one of its neighbours, which the quote is cited as.
	Segment store.Segment
	Text    string // as quoted (white space runs single, markers off)
	// Span is where it lies in Segment.Text (for a table: the row).
	Span  ingest.Span
	Table bool // a Markdown table (header, separator, row): written as a block
	// Code is the fenced code block (fences included, as the document
	// writes it) that Text introduces, written as a block after Text and
	// its citation; Span covers both. "" when none.
	Code string
	// Para numbers the answer's paragraphs: a new Para starts one.
	Para int
}

// Answer chooses, without a model, what of the passages answers the
// question. When even the best passage covers too little of the question
// (relevance under AnswerFloor, or fewer than two of its terms) and no
// sentence of the passages holds the question's own terms, it declines
// and names the two closest passages, quoting nothing. ctx is checked for
// cancellation before the work starts.
func Answer(ctx context.Context, q Query) (Result, error) {
	explain := q.Explain
	if explain == nil {
		explain = func(string) {}
	}
	passages := q.Passages
	if err := ctx.Err(); err != nil || len(passages) == 0 {
		return Result{}, err
	}
	var carried []string
	for _, w := range q.Carried {
		carried = append(carried, analyse(w)...)
	}
	qu := newQuestion(q.Question, carried)
	qu.dropUnheld(ctx, q.Stats)
	raw, weighted := Weights(ctx, q.Stats, qu.terms)
	qu.weights = make([]float64, len(raw))
	for i, w := range raw {
		qu.weights[i] = w
		if !qu.own[i] {
			qu.weights[i] *= carriedWeight
		}
	}
	floor := AnswerFloor
	if !weighted {
		floor = answerFloorPlain
	}
	rel, held := relevance(qu.terms, qu.weights, passages, qu.seq)
	named := namedDocument(qu, passages)
	if named != nil {
		qu.named = named.Document.ID
		qu.namedTitle = termSet(named.Document.Title)
	}
	cands := candidates(qu, passages)
	explain(fmt.Sprintf("question: %s%s; terms: %s", qu.kind, subjectNote(qu), termsNote(qu)))
	if rel < floor || held < min(2, len(qu.terms)) {
		if d := named; d != nil && qu.kind == KindHowTo {
			explain(fmt.Sprintf("answered: the best passage holds %.2f of the question's terms%s (floor %.2f), but the question asks how to use “%s”, which it names",
				rel, weightNote(weighted), floor, d.Document.Title))
		} else if c := answering(qu, cands); c == nil {
			explain(fmt.Sprintf("declined: the best passage holds %.2f of the question's terms%s (floor %.2f), and no sentence holds all of them",
				rel, weightNote(weighted), floor))
			if trace != nil {
				trace(qu, cands, nil, passages)
			}
			return Result{Declined: true, Closest: passages[:min(2, len(passages))]}, nil
		} else {
			explain(fmt.Sprintf("answered: the best passage holds %.2f of the question's terms%s (floor %.2f), but a sentence holds all of them: %q",
				rel, weightNote(weighted), floor, ingest.Clip(c.text, 80)))
		}
	} else {
		explain(fmt.Sprintf("answered: the best passage holds %.2f of the question's terms%s (floor %.2f)", rel, weightNote(weighted), floor))
	}
	quotes := choose(qu, cands)
	if trace != nil {
		trace(qu, cands, quotes, passages)
	}
	chosen := map[*cand]bool{}
	for _, qt := range quotes {
		c := qt.first
		chosen[c] = true
		explain(fmt.Sprintf("[source_%d] %s: %q", c.k, strings.Join(c.why, ", "), ingest.Clip(c.text, 80)))
	}
	shown := 0
	for _, c := range cands {
		if shown == explainOthers {
			break
		}
		if !chosen[c] {
			shown++
			explain(fmt.Sprintf("also considered, %s: %q", strings.Join(c.why, ", "), ingest.Clip(c.text, 80)))
		}
	}
	return Result{Quotes: render(quotes)}, nil
}

// namedDocument is the document of the top passages that the question
// names: its title holds one of the question's own terms, a rare one
// ("ElegantPaper" of "How do I compile ElegantPaper?"). The answer then
// comes from that document; a question asking how to do something with
// it is answered from its instructions though its other words are not
// the document's. nil when the question names none.
func namedDocument(qu *question, passages []Passage) *Passage {
	names := map[string]bool{}
	for i, w := range strings.Fields(qu.text) {
		w = strings.Trim(w, "?.,!;:'\"()[]“”‘’")
		if i == 0 || !unicode.IsUpper(firstRune(w)) {
			continue // a name is capitalised, and not only because it opens the question
		}
		for _, t := range analyse(w) {
			names[t] = true
		}
	}
	for i := range passages[:min(len(passages), maxPassages)] {
		p := &passages[i]
		title := termSet(p.Document.Title)
		for j, t := range qu.terms {
			if qu.own[j] && names[t] && title[t] && qu.weights[j] >= namedWeight {
				return p
			}
		}
	}
	return nil
}

// namedWeight is the rarity (idf) a title's term must have to name a
// document: rarer than words that many documents hold.
const namedWeight = 2.0

// answering is a candidate that holds every one of the question's own
// terms (at least two) or its heading does, so that the question is
// answered though the floor would decline it; nil if there is none.
func answering(qu *question, cands []*cand) *cand {
	own := 0
	for _, o := range qu.own {
		if o {
			own++
		}
	}
	if own < 2 {
		return nil
	}
	var best *cand
	for _, c := range cands {
		if c.fragment || c.prompt || c.refs {
			continue
		}
		all := true
		for i, t := range qu.terms {
			if qu.own[i] && !c.terms[t] && !c.headingTerms()[t] {
				all = false
				break
			}
		}
		if all && (best == nil || c.score > best.score) {
			best = c
		}
	}
	return best
}

func weightNote(weighted bool) string {
	if weighted {
		return ", weighted by rarity"
	}
	return ""
}

func subjectNote(qu *question) string {
	var s []string
	for i, t := range qu.terms {
		if qu.focus[i] {
			s = append(s, t)
		}
	}
	if len(s) == 0 {
		return ""
	}
	return " of “" + strings.Join(s, " ") + "”"
}

func termsNote(qu *question) string {
	var s []string
	for i, t := range qu.terms {
		if !qu.own[i] {
			t += " (carried over)"
		}
		s = append(s, t)
	}
	return strings.Join(s, ", ")
}
