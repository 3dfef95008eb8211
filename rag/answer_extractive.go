package rag

import (
	"context"
	"io"
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
// floor was calibrated on those, extractive.Views) and writes them. It
// tells req.Quoted of every source it cites before writing anything.
func (extractiveAnswerer) Answer(ctx context.Context, req *Request, w io.Writer) error {
	stats, _ := req.Retriever.(store.TermCounter)
	res, err := extractive.Answer(ctx, extractive.Query{
		Question: req.Question,
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
	var b strings.Builder
	switch {
	case res.Declined:
		b.WriteString(DeclineText)
		for i, o := range res.Closest {
			if i > 0 {
				b.WriteString(" and")
			}
			b.WriteString(" in “" + neutralizeText(strings.Join(strings.FieldsFunc(DocTitle(o.Document), func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")) + "”")
			if p := Pages(o.PageStart, o.PageEnd); p != "" {
				b.WriteString(" (" + p + ")")
			}
			b.WriteString(" [source_" + strconv.Itoa(o.K) + "]")
			quoted(o.K, ingest.Span{})
		}
		b.WriteString(".")
	default:
		for i, q := range res.Quotes {
			if i > 0 {
				if q.Rank != res.Quotes[i-1].Rank {
					b.WriteString("\n\n")
				} else {
					b.WriteString(" ")
				}
			}
			b.WriteString(neutralizeText(q.Text))
			b.WriteString(" [source_" + strconv.Itoa(q.K) + "]")
			quoted(q.K, q.Span)
		}
	}
	return writeChunked(ctx, w, b.String())
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
