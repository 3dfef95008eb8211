package rag

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/ibid-dev/ibid/citations"
	"github.com/ibid-dev/ibid/rag/retrieve"
	"github.com/ibid-dev/ibid/store"
)

// historyTurns is how many earlier turns of a conversation go back to the
// model with a new question.
const historyTurns = 6

// instructions is the system prompt common to every cite format.
const instructions = `You answer a researcher's questions using only the passages given with each question. Each passage starts on its own line with its id in square brackets, for example [source_3], then its title, page and section.

Rules:
- Right after each claim, cite the passage or passages that support it with their ids in square brackets, for example [source_3] or [source_3, source_5].
- Use only the ids of the passages given; never invent an id, and do not cite anything else.
- Do not write a list of sources, references or a bibliography: the reader sees the sources already.
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
}

// header is the context block's first line after the alias:
// "Title — p. 3 — §2.1".
func (o *offered) header() string {
	parts := []string{docTitle(o.doc)}
	if p := Pages(o.pageStart, o.pageEnd); p != "" {
		parts = append(parts, p)
	}
	if sec := sectionText(o.doc, o.seg.Section); sec != "" {
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
	o := offered{k: k, seg: p.Segment, doc: p.Document, pageStart: p.Segment.PageStart, pageEnd: p.Segment.PageEnd}
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
	o.text = citations.Neutralize(strings.Join(texts, "\n\n"))
	return o
}

// buildMessages assembles the chat: instructions for mode, up to
// historyTurns earlier turns (answers with their references written back as
// the aliases the model used), then the passages and the question.
func buildMessages(conv *Conversation, passages []offered, question string, mode citations.Mode) []openai.ChatCompletionMessage {
	sys := instructions
	switch mode {
	case citations.ModeJSON:
		sys += "\n" + jsonInstructions
	case citations.ModeSections:
		sys += "\n" + sectionsInstructions
	}
	msgs := []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleSystem, Content: sys}}
	turns := conv.Turns
	if len(turns) > historyTurns {
		turns = turns[len(turns)-historyTurns:]
	}
	for i := range turns {
		t := &turns[i]
		msgs = append(msgs,
			openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: t.Question},
			openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: t.aliasText()})
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
	msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: b.String()})
	return msgs
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

func docTitle(d store.Document) string {
	if d.Title != "" {
		return d.Title
	}
	if d.Path != "" {
		return filepath.Base(d.Path)
	}
	return d.ID
}

// sectionText is a segment's heading path, outermost first, without a
// leading heading that only repeats the document's title.
func sectionText(doc store.Document, path []string) string {
	if len(path) > 0 && strings.EqualFold(strings.TrimSpace(path[0]), strings.TrimSpace(docTitle(doc))) {
		path = path[1:]
	}
	return strings.Join(path, " › ")
}
