package rag

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ibid-dev/ibid/citations"
)

// ExtractiveNote is what every face says about an extractive answer.
const ExtractiveNote = "This answer is extractive: no model is configured, so it quotes the best-matching sentences of your documents. " +
	"To get written answers, set OPENAI_BASE_URL (and OPENAI_API_KEY) or pass --base-url and --model, or run a local Ollama."

// Extractive answerer limits: sentences come from the top
// extractivePassages passages, at most extractivePerPassage from each and
// extractiveSentences in all.
const (
	extractivePassages   = 4
	extractivePerPassage = 2
	extractiveSentences  = 5
	extractiveChunk      = 24 // bytes per write, so the answer streams
)

// sentence is a candidate sentence of the extractive answer.
type sentence struct {
	text  string
	k     int // alias of its passage
	rank  int // its passage's rank
	pos   int // its position in the passage
	score float64
}

// extractiveAnswer writes to stream, without a model, the sentences of the
// top passages that best match the question, each followed by its
// [source_k]; sentences of one passage form a paragraph, in passage rank
// order. Sentence text is neutralised, so a document cannot forge a
// citation.
func extractiveAnswer(ctx context.Context, question string, passages []offered, stream citations.Stream) error {
	if len(passages) == 0 {
		writeString(stream, "No passage in the library matches the question.")
		return nil
	}
	q := wordSet(question)
	var cands []sentence
	for rank, o := range passages {
		if rank == extractivePassages {
			break
		}
		for pos, s := range splitSentences(o.seg.Text) {
			sc := 0.0
			for t := range wordSet(s) {
				if q[t] {
					sc++
				}
			}
			// Prefer better-ranked passages a little, and sentences of
			// a readable length.
			sc += 0.5 / float64(rank+1)
			if n := len(s); n < 30 || n > 600 {
				sc -= 0.5
			}
			cands = append(cands, sentence{text: s, k: o.k, rank: rank, pos: pos, score: sc})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	per := map[int]int{}
	var picked []sentence
	for _, c := range cands {
		if len(picked) == extractiveSentences {
			break
		}
		if per[c.k] == extractivePerPassage {
			continue
		}
		per[c.k]++
		picked = append(picked, c)
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
		b.WriteString(citations.Neutralize(s.text))
		b.WriteString(" [source_" + strconv.Itoa(s.k) + "]")
	}
	text := b.String()
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

// splitSentences splits a passage into sentences: after '.', '!', '?' and
// their full-width forms when followed by a space or the end, and at blank
// lines. Markdown headings and very short fragments are dropped.
func splitSentences(text string) []string {
	var out []string
	add := func(s string) {
		s = strings.Join(strings.Fields(s), " ")
		if len(s) < 12 || strings.HasPrefix(s, "#") {
			return
		}
		out = append(out, s)
	}
	start := 0
	for i, r := range text {
		end := -1
		switch r {
		case '.', '!', '?':
			next := i + 1
			if next == len(text) || unicode.IsSpace(rune(text[next])) {
				end = next
			}
		case '。', '！', '？':
			end = i + utf8.RuneLen(r)
		case '\n':
			if strings.HasPrefix(text[i+1:], "\n") {
				end = i
			}
		}
		if end > start {
			add(text[start:end])
			start = end
		}
	}
	add(text[start:])
	return out
}
