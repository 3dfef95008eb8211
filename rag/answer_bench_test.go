package rag

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/ibid-dev/ibid/internal/synthtext"
	"github.com/ibid-dev/ibid/rag/library"
)

// benchDocs and benchSections size the library BenchmarkExtractiveAnswer
// answers from: 1,000 Markdown documents of five sections of about 225
// words (one segment each), 5,000 segments in all.
const (
	benchDocs     = 1000
	benchSections = 5
)

// BenchmarkExtractiveAnswer measures a whole answer without a model, as
// the chat and ibid ask give it: retrieval (BM25 and the local embedder,
// fused, with neighbours), the relevance floor, sentence selection and
// the citation stream, over a library of 1,000 documents (synthetic prose
// with Zipf-distributed words; questions of eight words taken from its
// sentences). The goal is under 50 ms an answer:
//
//	go test -run '^$' -bench ExtractiveAnswer -benchtime 50x ./rag
func BenchmarkExtractiveAnswer(b *testing.B) {
	b.Setenv("XDG_DATA_HOME", b.TempDir())
	b.Setenv("XDG_CACHE_HOME", filepath.Join(os.TempDir(), "ibid-rag-test-cache"))
	ctx := context.Background()
	dir := b.TempDir()
	texts := synthtext.Segments(benchDocs*benchSections, 225)
	for d := range benchDocs {
		var md strings.Builder
		fmt.Fprintf(&md, "# Document %d\n\n", d)
		for s := range benchSections {
			fmt.Fprintf(&md, "## Section %d\n\n%s\n\n", s+1, sentences(texts[d*benchSections+s]))
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("doc%04d.md", d)), []byte(md.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	lib, err := library.Open(ctx, library.Options{InMemory: true})
	if err != nil {
		b.Fatal(err)
	}
	defer lib.Close()
	if _, err := lib.Add(ctx, []string{dir}, nil); err != nil {
		b.Fatal(err)
	}
	questions := make([]string, 50)
	for i := range questions {
		w := strings.Fields(strings.ReplaceAll(texts[(i*97)%len(texts)], ".", ""))
		questions[i] = "What is said about " + strings.Join(w[20:28], " ") + "?"
	}
	p := NewPipeline(lib, nil, PipelineOptions{})
	b.ReportAllocs()
	b.ResetTimer()
	i, declined := 0, 0
	for b.Loop() {
		var text strings.Builder
		err := p.Answer(ctx, NewConversation("bench"), questions[i%len(questions)], func(e Event) {
			if e.Type == EventText {
				text.WriteString(e.Text)
			}
		})
		if err != nil || text.Len() == 0 {
			b.Fatalf("question %q: err %v, answer %q", questions[i%len(questions)], err, text.String())
		}
		if strings.HasPrefix(text.String(), DeclineText) {
			declined++
		}
		i++
	}
	if declined*2 > i {
		b.Fatalf("%d of %d questions declined: the benchmark would time declines, not answers", declined, i)
	}
	b.ReportMetric(float64(declined)/float64(i), "declined/op")
}

// sentences capitalises the first word of each of synthetic text's
// sentences, so that they read as sentences rather than fragments.
func sentences(s string) string {
	parts := strings.SplitAfter(s, ". ")
	for i, p := range parts {
		r := []rune(p)
		if len(r) > 0 {
			r[0] = unicode.ToUpper(r[0])
		}
		parts[i] = string(r)
	}
	return strings.Join(parts, "")
}
