package rag

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/store"
)

// This file writes the questions the chat's first screen offers ("Try
// asking"): questions drawn from a library's section headings, written as
// a person would ask them in the document's language, and kept only when
// the extractive answerer, asked each one, quotes a sentence of the
// heading's own section first. A library whose headings make no such
// question gets none: a suggestion that leads to a decline or to another
// section is worse than no suggestion.

// Outline is what Suggest reads of a library besides answering: its
// documents and each one's segments. *library.Library implements it.
type Outline interface {
	Retriever
	Documents(ctx context.Context) ([]store.Document, error)
	Segments(ctx context.Context, docID string) ([]store.Segment, error)
}

// Suggestion is a question Suggest checked: asked on its own, the
// extractive answer's first quote is a sentence of Section of Document.
type Suggestion struct {
	Question string
	Document string   // the document's id
	Section  []string // the section path the question was drawn from
}

// SuggestTries is how many candidate questions Suggest asks at most: each
// is a search and an extractive answer (a few milliseconds on a library
// of a few documents), so the first screen's examples come within about a
// second even on a large library.
const SuggestTries = 24

// Suggest returns up to n questions about lib's documents that the
// extractive answerer answers from the section they were drawn from (see
// the file's comment), spread over the documents (one from each in turn,
// each document's from sections spread over it), in that order. Headings
// that make poor questions (Introduction, References, a bare number) give
// none. It asks at most SuggestTries questions; none passing is no
// suggestion, not an error. It reads the segments of at most
// SuggestTries documents, so its cost does not grow with the library.
// Only a failure to read lib is an error.
func Suggest(ctx context.Context, lib Outline, n int) ([]Suggestion, error) {
	docs, err := lib.Documents(ctx)
	if err != nil {
		return nil, err
	}
	if len(docs) > SuggestTries {
		// A question per document is asked at most: read no more
		// documents than that, spread over the library.
		picked := make([]store.Document, SuggestTries)
		for i := range picked {
			picked[i] = docs[i*len(docs)/SuggestTries]
		}
		docs = picked
	}
	var perDoc [][]Suggestion
	for _, d := range docs {
		segs, err := lib.Segments(ctx, d.ID)
		if err != nil {
			return nil, err
		}
		if c := candidates(d, store.Passages(segs)); len(c) > 0 {
			perDoc = append(perDoc, c)
		}
	}
	p := NewPipeline(lib, ExtractiveAnswerer(), PipelineOptions{})
	var out []Suggestion
	tries := 0
	for round := 0; len(out) < n && tries < SuggestTries; round++ {
		asked := false
		for _, cs := range perDoc {
			if round >= len(cs) || len(out) == n || tries == SuggestTries {
				continue
			}
			asked = true
			tries++
			ok, err := answersFrom(ctx, p, lib, cs[round])
			if err != nil {
				return out, err
			}
			if ok {
				out = append(out, cs[round])
			}
		}
		if !asked {
			break
		}
	}
	return out, ctx.Err()
}

// answersFrom asks s.Question on a new conversation and reports whether
// the answer's first quote comes from s's section: not a decline, its
// first citation a segment of s's document whose section path starts
// with s.Section, with the quoted sentence marked (FocusEnd > 0).
func answersFrom(ctx context.Context, p *Pipeline, r Retriever, s Suggestion) (bool, error) {
	var first *Source
	var text strings.Builder
	err := p.Answer(ctx, NewConversation(""), s.Question, func(e Event) {
		switch e.Type {
		case EventText:
			text.WriteString(e.Text)
		case EventCitation:
			if first == nil {
				first = e.Source
			}
		}
	})
	if err != nil {
		return false, err
	}
	if first == nil || first.FocusEnd == 0 || first.DocumentID != s.Document ||
		strings.HasPrefix(strings.TrimSpace(text.String()), DeclineText) {
		return false, nil
	}
	seg, _, err := r.Segment(ctx, first.SegmentID)
	if err != nil {
		return false, nil // removed meanwhile: not a question to offer
	}
	return len(seg.Section) >= len(s.Section) && slices.Equal(seg.Section[:len(s.Section)], s.Section), nil
}

// candidates are the questions drawn from doc's sections (passages in
// reading order), one per section path with a usable heading, spread:
// the first, the last, then those between, so that the few asked cover
// the document.
func candidates(doc store.Document, passages []store.Segment) []Suggestion {
	var all []Suggestion
	seen := map[string]bool{}
	for _, s := range passages {
		if len(s.Section) == 0 || slices.Equal(s.Section, lastSection(all)) {
			continue
		}
		if isReferences(s.Section) {
			continue
		}
		h := cleanHeading(s.Section[len(s.Section)-1])
		key := strings.ToLower(h)
		if seen[key] || !usableHeading(h) {
			continue
		}
		seen[key] = true
		all = append(all, Suggestion{Question: questionFor(h), Document: doc.ID, Section: slices.Clone(s.Section)})
	}
	return spread(all)
}

func lastSection(ss []Suggestion) []string {
	if len(ss) == 0 {
		return nil
	}
	return ss[len(ss)-1].Section
}

// isReferences reports whether a section path is under a list of
// references (ingest.ReferencesHeadings, as retrieval leaves them out).
func isReferences(path []string) bool {
	top := store.TopHeading(path)
	for _, h := range ingest.ReferencesHeadings {
		if strings.EqualFold(h, top) {
			return true
		}
	}
	for _, p := range path {
		c := cleanHeading(p) // once a heading, not once a name in the list
		for _, h := range ingest.ReferencesHeadings {
			if strings.EqualFold(h, c) {
				return true
			}
		}
	}
	return false
}

// spread orders cs so that any prefix covers the document: halving
// intervals (first, middle, quarters, …) rather than reading order.
func spread(cs []Suggestion) []Suggestion {
	if len(cs) <= 2 {
		return cs
	}
	var out []Suggestion
	taken := make([]bool, len(cs))
	for step := len(cs); step >= 1; step /= 2 {
		for i := 0; i < len(cs); i += step {
			if !taken[i] {
				taken[i] = true
				out = append(out, cs[i])
			}
		}
		if step == 1 {
			break
		}
	}
	return out
}

// boringHeading matches headings that make poor questions, in the
// languages ibid's bundled documents use.
var boringHeading = regexp.MustCompile(`(?i)^(abstract|introduction|conclusions?|references|bibliography|acknowledg(e)?ments?|contents|table of contents|appendix.*|notes?|summary|background|discussion|methods?|results|index|overview|examples?|limitations|related work|see also|摘要|引言|前言|结论|致谢|目录|附录.*|概要|はじめに|まとめ|おわりに|謝辞|目次)$`)

// numbering matches a heading's leading section number ("2.1 ", "IV. ",
// an appendix's "E.2 ", "第一章 "); appendixLetter an appendix's letter
// before a capitalised word ("B Implementation Details").
var (
	numbering      = regexp.MustCompile(`^([0-9]+(\.[0-9]+)*\.?|[IVXLC]+\.|[A-Z](\.[0-9]+)+\.?|第[0-9一二三四五六七八九十]+[章节節])\s*`)
	appendixLetter = regexp.MustCompile(`^[A-Z]\.?\s+(\p{Lu})`)
)

// cleanHeading is a heading without its number, Markdown marks, code
// quotes and a closing aside in brackets ("Packages (the rooms)" is
// "Packages": "What is packages (the rooms)?" is no question a person
// asks).
func cleanHeading(h string) string {
	h = strings.TrimSpace(h)
	h = strings.TrimLeft(h, "# ")
	h = numbering.ReplaceAllString(h, "")
	h = appendixLetter.ReplaceAllString(h, "$1")
	h = strings.ReplaceAll(h, "`", "")
	h = strings.Trim(h, "*_ :：")
	if strings.HasSuffix(h, ")") {
		if i := strings.LastIndex(h, " ("); i > 0 {
			h = strings.TrimSpace(h[:i])
		}
	}
	return h
}

// usableHeading reports whether h can make a question: some letters,
// two words at least, not too long, not a generic heading, a title with
// a subtitle or a command line.
func usableHeading(h string) bool {
	n := utf8.RuneCountInString(h)
	// A title with a subtitle ("File formats: what ibid reads, …") reads
	// badly as a question.
	if n > 70 || boringHeading.MatchString(h) || strings.HasPrefix(h, "ibid ") || strings.HasPrefix(h, "-") ||
		strings.ContainsAny(h, ":：—") || strings.Contains(h, " - ") {
		return false
	}
	if cjk(h) {
		return n >= 2
	}
	letters := 0
	for _, r := range h {
		if unicode.IsLetter(r) {
			letters++
		}
	}
	// One word ("Tools") or a question stub ("Which files") is too vague
	// a question without the document around it.
	words := strings.Fields(h)
	if len(words) > 1 && (strings.EqualFold(words[0], "the") || strings.EqualFold(words[0], "a") || strings.EqualFold(words[0], "an")) {
		words = words[1:]
	}
	if len(words) < 2 || questionWords[strings.ToLower(words[0])] && len(words) < 3 {
		return false
	}
	return n >= 4 && letters >= 3
}

// cjk reports whether s holds Chinese, Japanese or Korean letters.
func cjk(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
			return true
		}
	}
	return false
}

// kana reports whether s holds Japanese kana.
func kana(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Hiragana, unicode.Katakana) {
			return true
		}
	}
	return false
}

var questionWords = map[string]bool{"how": true, "why": true, "what": true, "when": true, "where": true, "which": true, "who": true, "can": true, "does": true, "is": true, "are": true, "should": true}

// questionFor writes a heading as a question a person would ask, in the
// heading's language: a heading that is a question already stays one
// ("How it works" → "How it works?"); a gerund asks how it is done
// ("Resuming a conversation" → "How does resuming a conversation
// work?"); a noun phrase asks what it is or they are ("Citation
// Recall" → "What is citation recall?"); Chinese asks 什么是…？, Japanese
// 「…」とは何ですか？.
func questionFor(h string) string {
	switch {
	case kana(h):
		return "「" + h + "」とは何ですか？"
	case cjk(h):
		return "什么是" + h + "？"
	case strings.HasSuffix(h, "?"):
		return h
	}
	first, _, _ := strings.Cut(h, " ")
	if questionWords[strings.ToLower(first)] {
		return upperFirst(h) + "?"
	}
	np := lowerTitle(h)
	if len(first) > 5 && strings.HasSuffix(strings.ToLower(first), "ing") {
		return "How does " + np + " work?"
	}
	last := np[strings.LastIndexByte(np, ' ')+1:]
	if strings.HasSuffix(last, "s") && !strings.HasSuffix(last, "ss") && !strings.HasSuffix(last, "is") && !strings.HasSuffix(last, "us") && strings.ToLower(last) == last {
		return "What are " + np + "?"
	}
	return "What is " + np + "?"
}

// lowerTitle lower-cases the words of a heading written in title case or
// starting a sentence ("Citation Recall", "Task setup"); a heading with
// an acronym or a name with capitals inside ("BM25", "PostgreSQL", "Open
// WebUI") is left as it is.
func lowerTitle(h string) string {
	words := strings.Fields(h)
	for _, w := range words {
		_, size := utf8.DecodeRuneInString(w)
		if strings.ToLower(w[size:]) != w[size:] {
			return h // a name with capitals inside may span its neighbours: "Open WebUI"
		}
	}
	for i, w := range words {
		r, size := utf8.DecodeRuneInString(w)
		if unicode.IsUpper(r) && strings.ToLower(w[size:]) == w[size:] && (len(w) > 1 || i == 0) {
			words[i] = strings.ToLower(w[:size]) + w[size:]
		}
	}
	return strings.Join(words, " ")
}

func upperFirst(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[size:]
}
