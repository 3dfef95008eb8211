package rag

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ibid-dev/ibid/citations"
	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/store/keyword"
)

// ExtractiveNote is what every face says about an extractive answer.
const ExtractiveNote = "This answer is extractive: no model is configured, so it quotes the best-matching sentences of your documents. " +
	"To get written answers, set OPENAI_BASE_URL (and OPENAI_API_KEY) or pass --base-url and --model, or run a local Ollama."

// DeclineText opens the extractive answer when the library does not seem
// to answer the question.
const DeclineText = "Your library does not seem to answer this; the closest passages are"

// Extractive answerer limits: sentences come from the top
// extractivePassages passages, at most extractivePerPassage from each and
// extractiveSentences in all.
const (
	extractivePassages   = 4
	extractivePerPassage = 2
	extractiveSentences  = 5
	extractiveChunk      = 24  // bytes per write, so the answer streams
	extractiveRelative   = 0.5 // a sentence scoring under this share of the best is left out
	extractiveDuplicate  = 0.6 // a sentence sharing more of its terms than this with a chosen one is a near-duplicate
	extractiveEcho       = 0.7 // a sentence whose terms are more than this share the question's own merely echoes it
)

// sentence is a candidate sentence of the extractive answer.
type sentence struct {
	text  string
	span  ingest.Span // where it lies in its passage's segment text
	terms map[string]bool
	k     int // alias of its passage
	rank  int // its passage's rank
	pos   int // its position in the passage
	score float64
	why   string // how the score came about, for --explain
}

// extractiveAnswer writes to stream, without a model, the whole sentences
// of the top passages that best answer the question, each followed by its
// [source_k]; sentences of one passage form a paragraph, in passage rank
// order. When even the best passage covers too little of the question
// (relevance under AnswerFloor), it says that the library does not seem to
// answer it and names the two closest passages, quoting nothing. Sentence
// text is neutralised (neutralizeText), so a document can neither forge a
// citation nor show its own "[2]" where it would read as one of ibid's
// footnotes. explain, if
// not nil, is told why each sentence was chosen (or why none was).
//
// quoted, if not nil, is told, before anything is written, of each quoted
// sentence in the order the answer quotes it: the alias it is cited as,
// and the sentence's span in that passage's segment text (o.seg.Text of
// the passage offered as source_k, the passage's best hit).
func extractiveAnswer(ctx context.Context, r Retriever, question string, passages []offered, stream citations.Stream, explain func(string), quoted func(k int, sp ingest.Span)) error {
	if explain == nil {
		explain = func(string) {}
	}
	if quoted == nil {
		quoted = func(int, ingest.Span) {}
	}
	if len(passages) == 0 {
		writeString(stream, "No passage in the library matches the question.")
		return nil
	}
	terms := questionTerms(question)
	weights, weighted := termWeights(ctx, r, terms)
	floor := AnswerFloor
	if !weighted {
		floor = answerFloorPlain
	}
	qseq := keyword.Tokenize(question)
	rel, held := relevance(terms, weights, passages, qseq)
	if rel < floor || held < min(2, len(terms)) {
		explain(fmt.Sprintf("declined: the best passage holds %.2f of the question's terms%s (floor %.2f); terms: %s",
			rel, weightNote(weighted), floor, strings.Join(terms, ", ")))
		return stream2(ctx, stream, declineText(passages))
	}
	explain(fmt.Sprintf("answered: the best passage holds %.2f of the question's terms%s (floor %.2f)", rel, weightNote(weighted), floor))

	qset := map[string]bool{}
	for _, t := range terms {
		qset[t] = true
	}
	var cands []sentence
	for rank, o := range passages[:min(len(passages), extractivePassages)] {
		for pos, q := range splitQuotes(o.seg.Text) {
			toks := keyword.Tokenize(q.text)
			c := sentence{text: q.text, span: q.span, terms: contentTerms(toks), k: o.k, rank: rank, pos: pos}
			c.score, c.why = scoreSentence(&c, terms, weights, qset)
			if quotes(toks, qseq) {
				c.score *= 0.1
				c.why += ", down-weighted: it quotes the question itself"
			}
			cands = append(cands, c)
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	picked := pick(cands)
	for _, s := range picked {
		explain(fmt.Sprintf("[source_%d] %s: %q", s.k, s.why, clip(s.text, 80)))
	}
	sort.SliceStable(picked, func(i, j int) bool {
		if picked[i].rank != picked[j].rank {
			return picked[i].rank < picked[j].rank
		}
		return picked[i].pos < picked[j].pos
	})
	var b strings.Builder
	for i, s := range picked {
		if i > 0 {
			if s.rank != picked[i-1].rank {
				b.WriteString("\n\n")
			} else {
				b.WriteString(" ")
			}
		}
		b.WriteString(neutralizeText(s.text))
		b.WriteString(" [source_" + strconv.Itoa(s.k) + "]")
		quoted(s.k, s.span)
	}
	return stream2(ctx, stream, b.String())
}

func weightNote(weighted bool) string {
	if weighted {
		return ", weighted by rarity"
	}
	return ""
}

// scoreSentence scores a candidate by what the question asks: the share
// of the question's terms it holds, weighted by rarity; a little for its
// passage's rank; less for a sentence that merely repeats the question (its
// terms are mostly the question's), for a question, and for fragments or
// walls of text.
func scoreSentence(c *sentence, terms []string, weights []float64, qset map[string]bool) (float64, string) {
	cov := coverage(terms, weights, c.terms)
	var matched []string
	own := 0
	for t := range c.terms {
		if qset[t] {
			matched = append(matched, t)
		} else {
			own++
		}
	}
	sort.Strings(matched)
	rankBonus := 0.15 / float64(c.rank+1)
	score := cov + rankBonus
	why := fmt.Sprintf("holds %.2f of the question (%s), passage rank %d", cov, strings.Join(matched, " "), c.rank+1)
	if len(c.terms) > 0 && float64(len(matched))/float64(len(c.terms)) > extractiveEcho || own < 3 {
		score *= 0.4
		why += ", down-weighted: mostly the question's own words"
	}
	if strings.HasSuffix(strings.TrimSpace(c.text), "?") {
		score *= 0.5
		why += ", down-weighted: a question"
	}
	if n := len(c.text); n < 30 || n > 600 {
		score *= 0.7
		why += ", down-weighted: length"
	}
	return score, fmt.Sprintf("score %.2f: %s", score, why)
}

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

// pick chooses, from candidates sorted best first, up to
// extractiveSentences sentences, at most extractivePerPassage per passage,
// none far worse than the best and none a near-duplicate of one chosen.
func pick(cands []sentence) []sentence {
	per := map[int]int{}
	var picked []sentence
	for _, c := range cands {
		if len(picked) == extractiveSentences {
			break
		}
		if len(picked) > 0 && c.score < extractiveRelative*picked[0].score {
			break
		}
		if c.score <= 0 || per[c.k] == extractivePerPassage || nearDuplicate(c, picked) {
			continue
		}
		per[c.k]++
		picked = append(picked, c)
	}
	return picked
}

// nearDuplicate reports whether c shares most of its terms with a sentence
// already picked.
func nearDuplicate(c sentence, picked []sentence) bool {
	for _, p := range picked {
		both, either := 0, len(p.terms)
		for t := range c.terms {
			if p.terms[t] {
				both++
			} else {
				either++
			}
		}
		if either > 0 && float64(both)/float64(either) > extractiveDuplicate {
			return true
		}
	}
	return false
}

// declineText says that the library does not seem to answer the question,
// naming the two closest passages as sources (titles and pages, no quotes).
func declineText(passages []offered) string {
	var b strings.Builder
	b.WriteString(DeclineText)
	for i, o := range passages[:min(2, len(passages))] {
		if i > 0 {
			b.WriteString(" and")
		}
		b.WriteString(" in “" + neutralizeText(strings.Join(strings.FieldsFunc(DocTitle(o.doc), func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")) + "”")
		if p := Pages(o.pageStart, o.pageEnd); p != "" {
			b.WriteString(" (" + p + ")")
		}
		b.WriteString(" [source_" + strconv.Itoa(o.k) + "]")
	}
	b.WriteString(".")
	return b.String()
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// stream2 writes text to stream in small pieces, so that the answer
// streams as a model's would.
func stream2(ctx context.Context, stream citations.Stream, text string) error {
	for len(text) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(extractiveChunk, len(text))
		for n < len(text) && !utf8.RuneStart(text[n]) {
			n++
		}
		writeString(stream, text[:n])
		text = text[n:]
	}
	return nil
}
