package rag

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ibid-dev/ibid/citations"
	"github.com/ibid-dev/ibid/rag/bib"
	"github.com/ibid-dev/ibid/rag/llm"
	"github.com/ibid-dev/ibid/rag/retrieve"
	"github.com/ibid-dev/ibid/store"
)

// historyTurns is how many earlier turns of a conversation go back to the
// model with a new question.
const historyTurns = 6

// instructions is the system prompt common to every cite format.
const instructions = `You answer a researcher's questions using only the passages given with each question. Each passage starts on its own line with its id in square brackets, for example [source_3], then its title, authors, page and section. A passage may include neighbouring text from its document for context; that text may not bear on the question.

Rules:
- Right after each claim, cite the passage or passages that support it with their ids in square brackets, for example [source_3] or [source_3, source_5].
- Use only the ids of the passages given; never invent an id, and do not cite anything else.
- Do not write a list of sources, references or a bibliography: the reader sees the sources already.
- The documents' own reference markers appear in parentheses, for example (12) or (3, 4); they are not ids: never copy them into your answer.
- If the passages do not answer the question, say so plainly instead of guessing.
- Answer in the language of the question.`

const jsonInstructions = `
Reply with a single JSON object and nothing else: {"body": "<your answer in Markdown, citing with [source_k] right after each claim>", "citedSourceIds": ["source_k", ...]}, where citedSourceIds lists the ids you cited, in the order they first appear in the body.`

const sectionsInstructions = `
Reply with a single JSON object and nothing else: {"sections": [{"text": "<one paragraph or sentence of your answer, without ids in it>", "source_ids": ["source_k", ...]}, ...]}, where each section's source_ids are the ids of the passages that support that section.`

// offered is one passage of this turn's prompt.
type offered struct {
	k   int
	seg store.Segment
	doc store.Document
	// text is the passage as the model sees it (with its neighbours),
	// neutralised; pageStart/pageEnd cover it.
	text               string
	pageStart, pageEnd int
	// focusStart, focusEnd: where in seg.Text its best child hit lies
	// (see focus); both 0: none.
	focusStart, focusEnd int
	// window is the passage's segments in reading order: seg and its
	// neighbours, what the model reads and the support check weighs.
	window []store.Segment
}

// header is the context block's first line after the alias:
// "Title — Authors (Year) — p. 3 — §2.1", the authors and year from the
// document's bibliography entry when it has one (bib.MetaAuthors,
// bib.MetaYear), else its own author. Every field is metadata a document
// or a bibliography controls, so each passes through promptField: the
// header stays one line and cannot forge an id.
func (o *offered) header() string {
	parts := []string{promptField(DocTitle(o.doc))}
	who := o.doc.Author
	if names := bib.MetaAuthorList(o.doc.Meta[bib.MetaAuthors]); len(names) > 0 {
		if len(names) > 3 {
			names = append(names[:3:3], "et al.")
		}
		who = strings.Join(names, "; ")
	}
	if y := promptField(o.doc.Meta[bib.MetaYear]); y != "" {
		who = strings.TrimSpace(who + " (" + y + ")")
	}
	if a := promptField(who); a != "" {
		parts = append(parts, a)
	}
	if p := Pages(o.pageStart, o.pageEnd); p != "" {
		parts = append(parts, p)
	}
	if sec := promptField(SectionText(o.doc, o.seg.Section)); sec != "" {
		parts = append(parts, "§"+sec)
	}
	return strings.Join(parts, " — ")
}

// newOffered assembles passage p, offered as source_k: the hit with its
// neighbours in reading order, citation-like tokens neutralised.
func newOffered(k int, p retrieve.Passage) offered {
	segs := []store.Segment{p.Segment}
	for _, s := range p.Context {
		if s.ID != p.Segment.ID {
			segs = append(segs, s)
		}
	}
	slices.SortFunc(segs, func(a, b store.Segment) int { return a.Index - b.Index })
	o := offered{k: k, seg: p.Segment, doc: p.Document, pageStart: p.Segment.PageStart, pageEnd: p.Segment.PageEnd, window: segs}
	o.focusStart, o.focusEnd = focus(p.Segment, p.Hits)
	texts := make([]string, len(segs))
	for i, s := range segs {
		texts[i] = strings.TrimSpace(s.Text)
		if s.PageStart > 0 && (o.pageStart == 0 || s.PageStart < o.pageStart) {
			o.pageStart = s.PageStart
		}
		if s.PageEnd > o.pageEnd {
			o.pageEnd = s.PageEnd
		}
	}
	o.text = neutralizeText(strings.Join(texts, "\n\n"))
	return o
}

// buildMessages assembles the chat: instructions for mode, up to
// historyTurns of the earlier turns (answers with their references written
// back as the aliases the model used), then the passages and the question.
func buildMessages(turns []Turn, passages []offered, question string, mode citations.Mode) []llm.Message {
	sys := instructions
	switch mode {
	case citations.ModeJSON:
		sys += "\n" + jsonInstructions
	case citations.ModeSections:
		sys += "\n" + sectionsInstructions
	}
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: sys}}
	if len(turns) > historyTurns {
		turns = turns[len(turns)-historyTurns:]
	}
	for i := range turns {
		t := &turns[i]
		msgs = append(msgs,
			llm.Message{Role: llm.RoleUser, Content: t.Question},
			llm.Message{Role: llm.RoleAssistant, Content: t.aliasText()})
	}
	var b strings.Builder
	b.WriteString("Passages:\n")
	for _, o := range passages {
		b.WriteString("\n[source_" + strconv.Itoa(o.k) + "] " + o.header() + "\n")
		b.WriteString(o.text)
		b.WriteString("\n")
	}
	if len(passages) == 0 {
		b.WriteString("\n(no passage matched the question)\n")
	}
	b.WriteString("\nQuestion: " + question)
	msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: b.String()})
	return msgs
}

// JSON shapes of the json and sections cite formats.
var (
	jsonBodySchema = json.RawMessage(`{"type":"object","properties":{` +
		`"body":{"type":"string"},` +
		`"citedSourceIds":{"type":"array","items":{"type":"string"}}},` +
		`"required":["body","citedSourceIds"],"additionalProperties":false}`)
	sectionsSchema = json.RawMessage(`{"type":"object","properties":{` +
		`"sections":{"type":"array","items":{"type":"object","properties":{` +
		`"text":{"type":"string"},"source_ids":{"type":"array","items":{"type":"string"}}},` +
		`"required":["text","source_ids"],"additionalProperties":false}}},` +
		`"required":["sections"],"additionalProperties":false}`)
)

// responseFormat is the JSON shape asked of the model in mode, or nil.
func responseFormat(mode citations.Mode) *llm.Format {
	switch mode {
	case citations.ModeJSON:
		return &llm.Format{Name: "cited_answer", Schema: jsonBodySchema}
	case citations.ModeSections:
		return &llm.Format{Name: "cited_sections", Schema: sectionsSchema}
	}
	return nil
}

// aliasText is the turn's answer with each reference written as the alias
// the model used, [source_k], so the model sees its own earlier answers.
func (t *Turn) aliasText() string {
	alias := map[int]string{}
	for _, s := range t.Sources {
		alias[s.Number] = s.Alias
	}
	var b strings.Builder
	for _, e := range t.Events {
		switch e.Type {
		case EventText:
			b.WriteString(e.Text)
		case EventRef:
			if a, ok := alias[e.Number]; ok && !e.Inferred {
				b.WriteString("[" + a + "]")
			}
		}
	}
	return b.String()
}

// DocTitle is how a document is named wherever it is shown: its title, or
// its file name, or its id.
func DocTitle(d store.Document) string {
	if d.Title != "" {
		return d.Title
	}
	if d.Path != "" {
		return filepath.Base(d.Path)
	}
	return d.ID
}

// SectionText is a segment's heading path as shown, outermost first
// ("Methods › Data"), without a leading heading that only repeats the
// document's title.
func SectionText(doc store.Document, path []string) string {
	if len(path) > 0 && strings.EqualFold(strings.TrimSpace(path[0]), strings.TrimSpace(DocTitle(doc))) {
		path = path[1:]
	}
	return strings.Join(path, " › ")
}
