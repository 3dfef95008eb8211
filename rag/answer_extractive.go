package rag

import (
	"context"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ibid-dev/ibid/citations"
	"github.com/ibid-dev/ibid/rag/extractive"
	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/store"
)

// ExtractiveName is the extractive answerer's Label.
const ExtractiveName = "extractive (no model configured)"

// ExtractiveNote is what every face says about an extractive answer.
const ExtractiveNote = "This answer is extractive: no model is configured, so it quotes the best-matching sentences of your documents. " +
	"To get written answers, set OPENAI_BASE_URL (and OPENAI_API_KEY) or pass --base-url and --model, or run a local Ollama."

// DeclineText opens the extractive answer when the library does not seem
// to answer the question.
const DeclineText = "Your library does not seem to answer this; the closest passages are"

// extractiveChunk is how many bytes the extractive answerer writes at a
// time, so that its answer streams as a model's would.
const extractiveChunk = 24

// extractiveAnswerer writes what rag/extractive chooses: whole sentences
// of the passages, each followed by its [source_k], sentences of one
// passage a paragraph; or, when it declines, a sentence naming the
// closest passages. Quoted text is neutralised (neutralizeText), so a
// document can neither forge a citation nor show its own "[2]" where it
// would read as one of ibid's footnotes.
type extractiveAnswerer struct{}

// ExtractiveAnswerer answers with no model, quoting (package extractive).
func ExtractiveAnswerer() Answerer { return extractiveAnswerer{} }

func (extractiveAnswerer) Info() AnswerInfo {
	return AnswerInfo{Model: "extractive", Extractive: true, Note: ExtractiveNote}
}
func (extractiveAnswerer) Label() string                      { return ExtractiveName }
func (extractiveAnswerer) Mode(citations.Mode) citations.Mode { return citations.ModeInline }

// Answer chooses the sentences over each hit's own window (the relevance
// floor was calibrated on those, extractive.Views) and writes them, each
// cited as the segment that holds it (a neighbour of a hit gets an alias
// of its own, Request.Alias). It tells req.Quoted of every source it cites
// before writing anything.
func (extractiveAnswerer) Answer(ctx context.Context, req *Request, w io.Writer) error {
	stats, _ := req.Retriever.(store.TermCounter)
	res, err := extractive.Answer(ctx, extractive.Query{
		Question: req.Question,
		Carried:  req.Resolution.Carried,
		Passages: extractive.Views(req.Passages, req.Aliases, req.Neighbours),
		Stats:    stats,
		Explain:  req.Explain,
	})
	if err != nil {
		return err
	}
	quoted := req.Quoted
	if quoted == nil {
		quoted = func(int, ingest.Span) {}
	}
	hit := map[int]string{} // alias → the segment id it was offered as
	for i, p := range req.Passages {
		hit[req.Aliases[i]] = p.Segment.ID
	}
	var b strings.Builder
	switch {
	case res.Declined:
		b.WriteString(DeclineText)
		for i, o := range res.Closest {
			if i > 0 {
				b.WriteString(" and")
			}
			b.WriteString(" in “" + neutralizeText(strings.Join(strings.FieldsFunc(DocTitle(o.Document), func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")) + "”")
			// The pages of the segment cited, as its source shows them.
			if p := Pages(o.Segment.PageStart, o.Segment.PageEnd); p != "" {
				b.WriteString(" (" + p + ")")
			}
			b.WriteString(" [source_" + strconv.Itoa(o.K) + "]")
			quoted(o.K, ingest.Span{})
		}
		b.WriteString(".")
	case len(res.Quotes) == 0:
		b.WriteString(NothingToQuote)
	default:
		for i, q := range res.Quotes {
			k := q.K
			if q.Segment.ID != hit[q.K] && req.Alias != nil {
				k = req.Alias(q.Segment, req.Passages[slices.Index(req.Aliases, q.K)].Document)
			}
			ref := "[source_" + strconv.Itoa(k) + "]"
			quoted(k, q.Span)
			switch {
			case i == 0:
			case q.Para != res.Quotes[i-1].Para || q.Table || res.Quotes[i-1].Table || res.Quotes[i-1].Code != "":
				b.WriteString("\n\n")
			default:
				b.WriteString(" ")
			}
			if q.Table {
				b.WriteString(tableLead(q.Segment, ref) + "\n\n" + neutralizeText(q.Text))
				continue
			}
			b.WriteString(neutralizeText(q.Text) + " " + ref)
			if q.Code != "" {
				b.WriteString("\n\n" + neutralizeText(q.Code))
			}
		}
	}
	return writeChunked(ctx, w, b.String())
}

// NothingToQuote is the extractive answer when the passages hold no
// sentence that may be quoted (only fragments, code or tables).
const NothingToQuote = "No sentence of the closest passages answers this on its own; try asking with the words your documents use."

// tableLead introduces a quoted table, citing it: "From the table in
// “Keys” [source_3]:".
func tableLead(seg store.Segment, ref string) string {
	if len(seg.Section) > 0 {
		return "From the table in “" + neutralizeText(promptField(seg.Section[len(seg.Section)-1])) + "” " + ref + ":"
	}
	return "From a table " + ref + ":"
}

// writeChunked writes text to w in small pieces, never splitting a rune,
// so that the answer streams as a model's would.
func writeChunked(ctx context.Context, w io.Writer, text string) error {
	for len(text) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(extractiveChunk, len(text))
		for n < len(text) && !utf8.RuneStart(text[n]) {
			n++
		}
		io.WriteString(w, text[:n])
		text = text[n:]
	}
	return nil
}
