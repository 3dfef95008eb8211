package rag

import (
	"strconv"
	"strings"

	"github.com/ibid-dev/ibid/citations"
	"github.com/ibid-dev/ibid/store/keyword"
)

// Inference thresholds: a paragraph is attributed to the offered passage
// that shares the largest fraction of its distinct words, when that
// fraction is at least inferMinOverlap and at least inferMinShared words
// are shared.
const (
	inferMinOverlap = 0.35
	inferMinShared  = 3
)

// attribution places an inferred reference to source_k at byte offset
// off of the answer's text.
type attribution struct {
	off, k int
}

// attribute finds, for each paragraph of text, its best-matching passage.
func attribute(text string, passages []offered) []attribution {
	words := make([]map[string]bool, len(passages))
	for i := range passages {
		words[i] = wordSet(passages[i].text)
	}
	var out []attribution
	start := 0
	for start < len(text) {
		end := strings.Index(text[start:], "\n\n")
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		para := text[start:end]
		start = end + 2
		pw := wordSet(para)
		if len(pw) == 0 {
			continue
		}
		best, bestScore, bestShared := -1, 0.0, 0
		for i, w := range words {
			shared := 0
			for t := range pw {
				if w[t] {
					shared++
				}
			}
			if score := float64(shared) / float64(len(pw)); score > bestScore {
				best, bestScore, bestShared = i, score, shared
			}
		}
		if best >= 0 && bestScore >= inferMinOverlap && bestShared >= inferMinShared {
			off := end - (len(para) - len(strings.TrimRight(para, " \t\r\n")))
			out = append(out, attribution{off: off, k: passages[best].k})
		}
	}
	return out
}

// wordSet is the set of a text's content words: keyword search's tokens, less
// very short ones (most function words).
func wordSet(text string) map[string]bool {
	set := map[string]bool{}
	for _, t := range keyword.Tokenize(text) {
		if len(t) >= 3 || len([]rune(t)) >= 2 && t[0] >= 0x80 {
			set[t] = true
		}
	}
	return set
}

// infer attributes the finished answer's paragraphs to passages by overlap
// and emits them as inferred citations and references, numbered by the
// citation engine (so conversation numbering holds) and placed, in the
// turn, at the end of their paragraphs.
func (r *answerRun) infer(passages []offered) {
	text := r.text.String()
	atts := attribute(text, passages)
	if len(atts) == 0 {
		return
	}
	r.turn.Inferred = true
	var refs []Event
	i := 0
	stream := citations.NewStream(citations.ModeInline, func(e citations.Event) {
		switch e.Kind {
		case citations.KindCitation:
			src := r.source(e.Source, e.Number)
			src.Inferred = true
			r.turn.Sources = append(r.turn.Sources, src)
			ev := Event{Type: EventCitation, Number: e.Number, Source: &src, Inferred: true, Offset: atts[i].off}
			r.emit(ev)
			refs = append(refs, ev)
		case citations.KindRef:
			ev := Event{Type: EventRef, Number: e.Number, Inferred: true, Offset: atts[i].off}
			i++
			r.emit(ev)
			refs = append(refs, ev)
		}
	}, r.opt)
	for _, a := range atts {
		writeString(stream, "[source_"+strconv.Itoa(a.k)+"]")
	}
	stream.Flush()
	r.turn.Events = placeRefs(r.turn.Events, refs)
}

// placeRefs inserts inferred citation and ref events (in offset order)
// into the turn's events at their offsets in the text, splitting text
// events as needed, so that the turn redraws with each reference at the
// end of its paragraph.
func placeRefs(events, refs []Event) []Event {
	out := make([]Event, 0, len(events)+2*len(refs))
	pos, j := 0, 0
	for _, e := range events {
		if e.Type != EventText {
			out = append(out, e)
			continue
		}
		t := e.Text
		for {
			for j < len(refs) && refs[j].Offset <= pos {
				out = append(out, refs[j])
				j++
			}
			if len(t) == 0 {
				break
			}
			next := len(t)
			if j < len(refs) && refs[j].Offset-pos < next {
				next = refs[j].Offset - pos
			}
			out = append(out, Event{Type: EventText, Text: t[:next]})
			t = t[next:]
			pos += next
		}
	}
	return append(out, refs[j:]...)
}
