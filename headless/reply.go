package headless

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/store"
)

// SegmentReader reads a segment with its document by id: what Reply
// needs of a library to quote the passage a citation rests on.
// *library.Library and ragtest.Library implement it.
type SegmentReader interface {
	Segment(ctx context.Context, id string) (store.Segment, store.Document, error)
}

// Footnote is a cited source as the chat-completions endpoint and the MCP
// server hand it to their clients: every field of the citation event's
// source (so whatever the pipeline adds to rag.Source reaches them as it
// is) and the words of the passage the citation rests on.
//
// This is the one place where the faces without a terminal turn a cited
// source into what they show, its support check included: the footnote
// as its citation event describes it, then, once its support event has
// come (after the sentence that cites it; Reply.Add), that event's
// verdict, segment, focus and sentence.
type Footnote struct {
	rag.Source
	// Quote is the part of the cited segment that supports the citation:
	// the support check's sentence once its event has come, else the text
	// of the source's focus span (rag.Source.FocusStart and FocusEnd); on
	// one line, cut to at most quoteBytes at a word; empty when the
	// pipeline marked none or the segment could not be read.
	Quote string `json:"quote,omitempty"`
	// Verdict is the support check's (docs/support.md): "supported",
	// "partial", "unsupported" or "unchecked"; empty when no check came
	// (an answer cut off before the sentence ended).
	Verdict rag.Verdict `json:"verdict,omitempty"`
	// Claim is the answer's sentence that was checked against the passage.
	Claim string `json:"claim,omitempty"`
	// Refined: a model judged the claim after the lexical check
	// (--verify-model).
	Refined bool `json:"refined,omitempty"`
	// Quoted: the extractive answerer quoted Quote itself, so the passage
	// supports the footnote by construction; nothing was computed.
	Quoted bool `json:"quoted,omitempty"`
	// passage is the cited segment's whole text ("" if it could not be
	// read), for a client that shows the passage itself.
	passage string
}

// unsupportedLine starts the line that names the unsupported footnotes.
const unsupportedLine = "Not supported by the passages they cite: "

// quoteBytes bounds a footnote's quote.
const quoteBytes = 600

// newFootnote describes src, reading its segment from lib for the quote.
func newFootnote(ctx context.Context, lib SegmentReader, src rag.Source) Footnote {
	fn := Footnote{Source: src}
	if lib == nil || src.SegmentID == "" {
		return fn
	}
	seg, _, err := lib.Segment(ctx, src.SegmentID)
	if err != nil {
		return fn
	}
	fn.passage = seg.Text
	if s, e := src.FocusStart, src.FocusEnd; 0 <= s && s < e && e <= len(seg.Text) {
		fn.Quote = cutAtWord(strings.Join(strings.Fields(seg.Text[s:e]), " "), quoteBytes)
	}
	return fn
}

// support takes footnote fn's support check: its verdict and claim, and
// its sentence as the quote and the focus (in a neighbour of the segment
// cited when the check found it there: SegmentID then names it and
// PassageID the segment offered).
func (fn *Footnote) support(sp *rag.Support) {
	fn.Verdict, fn.Claim, fn.Refined, fn.Quoted = sp.Verdict, sp.Claim, sp.Refined, sp.Quoted
	if sp.SegmentID != "" && sp.FocusStart < sp.FocusEnd {
		if sp.SegmentID != fn.SegmentID {
			if fn.PassageID == "" {
				fn.PassageID = fn.SegmentID
			}
			fn.SegmentID, fn.passage = sp.SegmentID, ""
		}
		fn.FocusStart, fn.FocusEnd = sp.FocusStart, sp.FocusEnd
	}
	if sp.Sentence != "" {
		fn.Quote = cutAtWord(strings.Join(strings.Fields(sp.Sentence), " "), quoteBytes)
	}
}

// cutAtWord returns s when it fits in max bytes, else its start cut at a
// word (never inside a rune) with "…".
func cutAtWord(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if i := strings.LastIndexByte(s[:cut], ' '); i > max/2 {
		cut = i
	}
	return s[:cut] + "…"
}

// ReplyOptions choose what a Reply writes besides the answer itself.
type ReplyOptions struct {
	// Sources ends the reply with a list of its sources, one line each:
	// "[n] title, pages, section, URL or path" and the quote.
	Sources bool
	// SegmentIDs names each source's segment id in that list, for a reader
	// that fetches passages by id (an assistant, over MCP).
	SegmentIDs bool
	// Markdown writes for a client that renders Markdown: document data in
	// the list (titles, paths, quotes) and notes are escaped, the list is a
	// Markdown list under a bold heading.
	Markdown bool
}

// Reply renders one answer's events as the text of a chat message, for
// the chat-completions endpoint and the MCP server's ask tool: the answer
// with its references as [n] and ids the model made up as [?]; text of
// the answer's own that would read as a footnote ("[2]", "[?]") is
// written "\[2]", "\[?]", so that every unescaped bracketed numeral is
// ibid's (as in the text face; Markdown renders "\[" as "["). At the end:
// the error that cut the answer off, the references inferred by text
// overlap, the sources (ReplyOptions.Sources; a footnote whose passage
// does not support the sentence citing it, or only partly, says so at the
// start of its line), a line naming the unsupported footnotes, and the
// note of an extractive answer. Verdicts arrive after the references they
// judge, so the text already sent is never changed: they show at the end
// and in the footnotes.
//
// Invariants: footnotes[i].Number is i+1 (citation events arrive in
// display order); text is only ever appended, so the concatenation of
// Add's results is the whole message.
type Reply struct {
	lib       SegmentReader
	opt       ReplyOptions
	esc       textEscaper
	footnotes []Footnote
	inferred  []int
	verdicts  rag.Verdicts
	info      *rag.AnswerInfo
	err       string
	started   bool // some text or reference was written
	lastNL    bool // the text so far ends a line
}

// NewReply returns a Reply that quotes cited passages read from lib (nil:
// no quotes).
func NewReply(lib SegmentReader, opt ReplyOptions) *Reply {
	return &Reply{lib: lib, opt: opt}
}

// Add renders e, the answer's next event, and returns what to append to
// the message ("" for nothing) and, for a citation, its footnote (nil
// otherwise). Text that ends in '[' keeps the bracket back until the next
// event decides its form. A support event updates its footnote in
// Footnotes and returns nothing.
func (r *Reply) Add(ctx context.Context, e rag.Event) (string, *Footnote) {
	var s string
	switch e.Type {
	case rag.EventText:
		s = r.esc.text(e.Text)
	case rag.EventCitation:
		fn := newFootnote(ctx, r.lib, *e.Source)
		r.footnotes = append(r.footnotes, fn)
		return "", &fn
	case rag.EventSupport:
		if sp := e.Support; sp != nil && 0 < sp.Number && sp.Number <= len(r.footnotes) {
			r.verdicts.Add(e)
			r.footnotes[sp.Number-1].support(sp)
		}
		return "", nil
	case rag.EventRef:
		if e.Inferred {
			r.inferred = append(r.inferred, e.Number)
			return "", nil
		}
		s = r.esc.flush() + rag.RefText(e.Number)
	case rag.EventUnknown:
		s = r.esc.flush() + rag.UnknownText
	case rag.EventError:
		r.err = e.Text
		return "", nil
	case rag.EventDone:
		r.info = e.Info
		s = r.esc.flush()
		r.note(s)
		return s + r.end(), nil
	}
	r.note(s)
	return s, nil
}

// note records that s was written.
func (r *Reply) note(s string) {
	if s != "" {
		r.started = true
		r.lastNL = strings.HasSuffix(s, "\n")
	}
}

// Started reports whether any of the answer (text or a reference) has
// been written: an answer that failed before it began has none.
func (r *Reply) Started() bool { return r.started }

// Err is the message of the answer's error event, or "".
func (r *Reply) Err() string { return r.err }

// Info is how the answer was made, from its done event (nil before it).
func (r *Reply) Info() *rag.AnswerInfo { return r.info }

// Footnotes are the answer's cited sources in display order.
func (r *Reply) Footnotes() []Footnote { return r.footnotes }

// end is what follows the answer: the interruption, inferred references,
// the sources and the note, each a paragraph of its own.
func (r *Reply) end() string {
	var b strings.Builder
	para := func() {
		if r.started || b.Len() > 0 {
			if b.Len() == 0 && !r.lastNL {
				b.WriteString("\n")
			}
			b.WriteString("\n")
		}
	}
	if r.err != "" {
		para()
		if r.opt.Markdown {
			b.WriteString("*(answer interrupted: " + escapeMarkdown(r.err) + ")*\n")
		} else {
			b.WriteString("(answer interrupted: " + r.err + ")\n")
		}
	}
	if len(r.inferred) > 0 {
		para()
		b.WriteString("The model cited no passage; these sources were inferred by text overlap:")
		for _, n := range r.inferred {
			b.WriteString(" " + rag.RefText(n))
		}
		b.WriteString("\n")
	}
	if r.opt.Sources && len(r.footnotes) > 0 {
		para()
		if r.opt.Markdown {
			b.WriteString("**Sources**\n\n")
		} else {
			b.WriteString("Sources:\n")
		}
		for _, fn := range r.footnotes {
			b.WriteString(r.sourceLine(fn) + "\n")
		}
	}
	if bad := r.verdicts.Unsupported(); len(bad) > 0 {
		para()
		line := unsupportedLine + rag.RefList(bad) + "."
		if r.opt.Markdown {
			line = "**" + line + "**"
		}
		b.WriteString(line + "\n")
	}
	if r.info != nil && r.info.Note != "" {
		para()
		if r.opt.Markdown {
			b.WriteString("*Note: " + escapeMarkdown(r.info.Note) + "*\n")
		} else {
			b.WriteString("Note: " + r.info.Note + "\n")
		}
	}
	return b.String()
}

// sourceLine is fn's line in the sources list: "[n]", the verdict when
// the passage does not (fully) support the claim ("Unsupported: the
// passage does not say this."), "title, pages, section, URL or path
// (inferred)", the segment id, then the quote.
func (r *Reply) sourceLine(fn Footnote) string {
	esc := func(s string) string { return s }
	prefix := ""
	if r.opt.Markdown {
		esc, prefix = escapeMarkdown, "- "
	}
	line := prefix + rag.RefText(fn.Number) + " "
	if note := rag.VerdictNote(r.verdicts[fn.Number]); note != "" {
		note = strings.ToUpper(note[:1]) + note[1:] + "."
		if r.opt.Markdown {
			note = "*" + note + "*"
		}
		line += note + " "
	}
	line += esc(rag.SourceLine(fn.Source, false))
	if r.opt.SegmentIDs {
		line += " (segment " + esc(fn.SegmentID) + ")"
	}
	if fn.Quote != "" {
		line += ": “" + esc(fn.Quote) + "”"
	}
	return line
}
