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
	extractiveChunk      = 24  // bytes per write, so the answer streams
	extractiveRelative   = 0.5 // a sentence scoring under this share of the best is left out
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
// order. Sentence text is neutralised (neutralizeText), so a document can
// neither forge a citation nor show its own "[2]" where it would read as
// one of ibid's footnotes.
func extractiveAnswer(ctx context.Context, question string, passages []offered, stream citations.Stream) error {
	if len(passages) == 0 {
		writeString(stream, "No passage in the library matches the question.")
		return nil
	}
	q := wordSet(question)
	var cands []sentence
	var words []map[string]bool
	df := map[string]int{} // how many candidate sentences hold each question word
	for rank, o := range passages {
		if rank == extractivePassages {
			break
		}
		for pos, s := range splitSentences(o.seg.Text) {
			w := wordSet(s)
			for t := range w {
				if q[t] {
					df[t]++
				}
			}
			words = append(words, w)
			cands = append(cands, sentence{text: s, k: o.k, rank: rank, pos: pos})
		}
	}
	for i := range cands {
		// Question words shared, the rarer among the candidates a
		// little more; better-ranked passages a little preferred,
		// and sentences of a readable length.
		sc := 0.0
		for t := range words[i] {
			if q[t] {
				sc += 1 + 0.5/float64(df[t])
			}
		}
		sc += 0.5 / float64(cands[i].rank+1)
		if n := len(cands[i].text); n < 30 || n > 600 {
			sc -= 0.5
		}
		cands[i].score = sc
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	per := map[int]int{}
	var picked []sentence
	for _, c := range cands {
		if len(picked) == extractiveSentences {
			break
		}
		// Leave out sentences that match far worse than the best.
		if len(picked) > 0 && c.score < extractiveRelative*cands[0].score {
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
		b.WriteString(neutralizeText(s.text))
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
// their full-width forms when followed by a space or the end, and at line
// breaks before blank lines, list items, headings and table rows. Fenced
// code blocks, headings, table rows and very short fragments are dropped;
// list markers and bold markers are taken off, and a lead-in's final ':'
// becomes '.'.
func splitSentences(text string) []string {
	text = dropFences(text)
	var out []string
	add := func(s string) {
		s = strings.Join(strings.Fields(s), " ")
		s = strings.TrimLeft(s, "-*+> ")
		s = strings.NewReplacer("**", "", "__", "").Replace(s)
		if len(s) < 12 || strings.HasPrefix(s, "#") || strings.HasPrefix(s, "|") {
			return
		}
		if strings.HasSuffix(s, ":") {
			s = s[:len(s)-1] + "."
		}
		out = append(out, s)
	}
	start := 0
	for i, r := range text {
		end := -1
		switch r {
		case '.', '!', '?':
			if next := i + 1; next == len(text) || unicode.IsSpace(rune(text[next])) {
				end = next
			}
		case '。', '！', '？':
			end = i + utf8.RuneLen(r)
		case '\n':
			line := strings.TrimLeft(text[i+1:], " \t")
			for _, p := range []string{"\n", "- ", "* ", "+ ", "#", "|"} {
				if strings.HasPrefix(line, p) {
					end = i
					break
				}
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

// dropFences removes fenced code blocks (``` or ~~~ lines and what lies
// between them), which are no sentences to quote.
func dropFences(text string) string {
	if !strings.Contains(text, "```") && !strings.Contains(text, "~~~") {
		return text
	}
	var b strings.Builder
	in := false
	for line := range strings.Lines(text) {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			in = !in
			b.WriteString("\n")
			continue
		}
		if !in {
			b.WriteString(line)
		}
	}
	return b.String()
}
