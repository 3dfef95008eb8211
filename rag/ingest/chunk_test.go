package ingest

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ibid-dev/ibid/rag/ingest/tokens"
	"github.com/ibid-dev/ibid/store"
)

func spanTexts(text string, spans []span) []string {
	var out []string
	for _, s := range spans {
		out = append(out, text[s.start:s.end])
	}
	return out
}

func TestParagraphs(t *testing.T) {
	in := "\n\nfirst line\nsecond line\n \t\nnext\n\n\n\nlast  \n"
	got := spanTexts(in, paragraphs(in, 0, len(in)))
	want := []string{"first line\nsecond line", "next", "last"}
	if !slices.Equal(got, want) {
		t.Errorf("paragraphs = %q, want %q", got, want)
	}
}

// checkChunks asserts chunk's contract on text: segments in order, within
// one section each, trimmed, within budget, and together holding every
// non-space byte of every section.
func checkChunks(t *testing.T, text string, secs []section, pageStarts []int, budget int) []store.Segment {
	t.Helper()
	segs, err := chunk(context.Background(), text, secs, pageStarts, budget)
	if err != nil {
		t.Fatal(err)
	}
	checkSections(t, segs, secs)
	prev := 0
	covered := make([]bool, len(text))
	for i, s := range segs {
		if s.Start < prev || s.End <= s.Start || text[s.Start:s.End] != s.Text {
			t.Fatalf("segment %d [%d,%d) bad after %d", i, s.Start, s.End, prev)
		}
		if !utf8.ValidString(s.Text) {
			t.Errorf("segment %d splits a rune", i)
		}
		if n := tokens.Count(s.Text); n > budget {
			t.Errorf("segment %d: %d tokens > %d", i, n, budget)
		}
		for k := s.Start; k < s.End; k++ {
			covered[k] = true
		}
		prev = s.End
	}
	for _, sec := range secs {
		for k := sec.start; k < sec.end; k++ {
			if !covered[k] && !isSpaceOnly(text[k:k+1]) && text[k] < utf8.RuneSelf {
				t.Fatalf("byte %d (%q) is in no segment", k, text[max(0, k-20):min(len(text), k+20)])
			}
		}
	}
	return segs
}

func TestChunkBudgetAndSections(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	words := []string{"citation", "model", "the", "of", "retrieval", "passage", "引用", "模型", "a", "number"}
	sentence := func() string {
		n := 3 + rng.Intn(30)
		var w []string
		for range n {
			w = append(w, words[rng.Intn(len(words))])
		}
		return strings.Join(w, " ") + []string{".", "!", "?", "。"}[rng.Intn(4)]
	}
	for _, budget := range []int{5, 20, 60, 300} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			var b strings.Builder
			var secs []section
			for s := range 6 {
				start := b.Len()
				fmt.Fprintf(&b, "## Section %d\n\n", s)
				for range rng.Intn(6) {
					for range 1 + rng.Intn(12) {
						b.WriteString(sentence() + " ")
					}
					b.WriteString("\n\n")
				}
				secs = append(secs, section{path: []string{fmt.Sprint("Section ", s)}, start: start, end: b.Len()})
			}
			segs := checkChunks(t, b.String(), secs, nil, budget)
			if len(segs) < len(secs) {
				t.Errorf("%d segments for %d sections", len(segs), len(secs))
			}
		})
	}
}

// A segment packs whole paragraphs while they fit, and a paragraph that
// does not fit is split at sentences, not mid-sentence.
func TestChunkPrefersStructure(t *testing.T) {
	p1 := "Short paragraph one."
	p2 := "Short paragraph two."
	long := strings.Repeat("This sentence has exactly eight tokens in it. ", 12)
	text := p1 + "\n\n" + p2 + "\n\n" + strings.TrimSpace(long)
	secs := []section{{start: 0, end: len(text)}}
	segs := checkChunks(t, text, secs, nil, 40)
	if !strings.HasPrefix(segs[0].Text, p1+"\n\n"+p2) {
		t.Errorf("first segment %q does not pack the short paragraphs", segs[0].Text)
	}
	for i, s := range segs[1:] {
		if !strings.HasPrefix(s.Text, "This sentence") || !strings.HasSuffix(s.Text, "in it.") {
			t.Errorf("segment %d cuts a sentence: %q", i+1, s.Text)
		}
	}
}

// Text without any punctuation or line breaks is cut at the budget on rune
// boundaries; CJK text too.
func TestChunkLongRuns(t *testing.T) {
	for _, text := range []string{
		strings.Repeat("word ", 2000),
		strings.Repeat("大型语言模型经常产生幻觉", 300),
		strings.Repeat("x", 5000),
		strings.Repeat("🙂é", 1000),
	} {
		text = strings.TrimSpace(text)
		segs := checkChunks(t, text, []section{{start: 0, end: len(text)}}, nil, 50)
		total := 0
		for _, s := range segs {
			total += len(strings.Join(strings.Fields(s.Text), ""))
		}
		if want := len(strings.Join(strings.Fields(text), "")); total != want {
			t.Errorf("segments hold %d non-space bytes, text %d", total, want)
		}
		for i, s := range segs[:len(segs)-1] {
			if tokens.Count(s.Text) < 40 {
				t.Errorf("segment %d of a long run has only %d tokens", i, tokens.Count(s.Text))
			}
		}
	}
}

func TestChunkPages(t *testing.T) {
	pages := []string{"Page one text. More.", "Page two text.", "", "Page four."}
	var b strings.Builder
	var starts []int
	for i, p := range pages {
		if i > 0 {
			b.WriteString("\n\n")
		}
		starts = append(starts, b.Len())
		b.WriteString(p)
	}
	text := b.String()
	segs := checkChunks(t, text, []section{{start: 0, end: len(text)}}, starts, 300)
	if len(segs) != 1 || segs[0].PageStart != 1 || segs[0].PageEnd != 4 {
		t.Errorf("one segment over pages 1-4 expected, got %+v", segs)
	}
	segs = checkChunks(t, text, []section{{start: 0, end: len(text)}}, starts, 4)
	var got []string
	for _, s := range segs {
		got = append(got, fmt.Sprintf("%d-%d", s.PageStart, s.PageEnd))
	}
	if want := []string{"1-1", "1-1", "2-2", "4-4"}; !slices.Equal(got, want) {
		t.Errorf("pages %q, want %q (segments %+v)", got, want, segs)
	}
}
