package rag

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/internal/shareddata"
	"github.com/ibid-dev/ibid/rag/library"
	"github.com/ibid-dev/ibid/store"
)

// pdfLibrary is a library in memory of the bundled PDFs, built for the
// test; sharedPDFLibrary is the one built once per test binary.
func pdfLibrary(t *testing.T) *library.Library {
	t.Helper()
	return freshLibrary(t, shareddata.Path(t, "pdf"))
}

// TestSuggestLeadsToOwnSection: every suggestion on ibid's docs and on
// the bundled PDFs, asked as a user would (a pipeline of its own, a new
// conversation), gets an extractive answer whose first quote is a
// sentence of the section the question was drawn from.
func TestSuggestLeadsToOwnSection(t *testing.T) {
	for name, open := range map[string]func(*testing.T) *library.Library{"docs": sharedDocsLibrary, "pdf": sharedPDFLibrary} {
		t.Run(name, func(t *testing.T) {
			lib := open(t)
			ctx := context.Background()
			start := time.Now()
			got, err := Suggest(ctx, lib, 3)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d suggestions in %v", len(got), time.Since(start))
			if len(got) == 0 {
				t.Fatal("no suggestion")
			}
			docs := map[string]bool{}
			for _, s := range got {
				t.Logf("%q  (%s)", s.Question, strings.Join(s.Section, " / "))
				docs[s.Document] = true
				evs, err := collect(t, NewPipeline(lib, nil, PipelineOptions{}), NewConversation("t"), s.Question)
				if err != nil {
					t.Fatal(err)
				}
				var first *Source
				var text strings.Builder
				for _, e := range evs {
					if e.Type == EventText {
						text.WriteString(e.Text)
					}
					if e.Type == EventCitation && first == nil {
						first = e.Source
					}
				}
				if first == nil || first.FocusEnd == 0 || strings.HasPrefix(text.String(), DeclineText) {
					t.Errorf("%q: answer %q quotes nothing", s.Question, text.String())
					continue
				}
				seg, _, err := lib.Segment(ctx, first.SegmentID)
				if err != nil || len(seg.Section) < len(s.Section) || !slices.Equal(seg.Section[:len(s.Section)], s.Section) {
					t.Errorf("%q: first quote from %q, not from %q", s.Question, seg.Section, s.Section)
				}
				if strings.Contains(s.Question, "What do my documents say") {
					t.Errorf("%q: a template, not a question", s.Question)
				}
			}
			if name == "pdf" && len(docs) < 2 {
				t.Errorf("suggestions from %d document(s), want them spread over the library", len(docs))
			}
		})
	}
}

func TestQuestionFor(t *testing.T) {
	for _, c := range []struct{ heading, want string }{
		{"Citation Recall", "What is citation recall?"},
		{"Global Options", "What are global options?"},
		{"BM25 and dense retrieval", "What is BM25 and dense retrieval?"},
		{"Resuming a conversation", "How does resuming a conversation work?"},
		{"How footnotes are numbered", "How footnotes are numbered?"},
		{"Is it safe?", "Is it safe?"},
		{"PostgreSQL storage", "What is PostgreSQL storage?"},
		{"Open WebUI", "What is Open WebUI?"},
		{"列表环境", "什么是列表环境？"},
		{"ローカル環境の設定", "「ローカル環境の設定」とは何ですか？"},
	} {
		if got := questionFor(c.heading); got != c.want {
			t.Errorf("questionFor(%q) = %q, want %q", c.heading, got, c.want)
		}
	}
}

func TestCandidateHeadings(t *testing.T) {
	var segs []store.Segment
	for _, sec := range [][]string{
		{"1 Introduction"}, {"2 Task Setup and Datasets"}, {"2 Task Setup and Datasets"}, {"2 Task Setup and Datasets", "2.1 Which files"},
		{"Tools"}, {"File formats: what ibid reads"}, {"References"}, {"7 References", "Gao et al."}, {"E Human Evaluation", "E.2 Citation Recall"},
		{"B. Implementation Details"}, {"Packages (the rooms)"}, {"Dense search (int8 codes)"}, {"ibid add --strategy S"}, {"The request"}, {"摘要"}, {"1 模板介绍", "1.4 列表环境"},
	} {
		segs = append(segs, store.Segment{Section: sec})
	}
	var got []string
	for _, s := range candidates(store.Document{ID: "d"}, segs) {
		got = append(got, s.Question)
	}
	slices.Sort(got)
	want := []string{"What are implementation details?", "What are task setup and datasets?", "What is citation recall?", "What is dense search?", "什么是列表环境？"}
	if !slices.Equal(got, want) {
		t.Errorf("questions %q, want %q", got, want)
	}
}

// BenchmarkSuggest is the first screen's wait for its examples on ibid's
// docs (about 30 documents; the chat computes them in the background).
func BenchmarkSuggest(b *testing.B) {
	b.Setenv("XDG_DATA_HOME", b.TempDir())
	b.Setenv("XDG_CACHE_HOME", filepath.Join(os.TempDir(), "ibid-rag-test-cache"))
	ctx := context.Background()
	lib, err := library.Open(ctx, library.Options{InMemory: true})
	if err != nil {
		b.Fatal(err)
	}
	defer lib.Close()
	if _, err := lib.Add(ctx, []string{filepath.Join("..", "docs")}, nil); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if ss, err := Suggest(ctx, lib, 3); err != nil || len(ss) == 0 {
			b.Fatalf("%d suggestions, %v", len(ss), err)
		}
	}
}

// TestSuggestDeterministic: the first screen's suggestions, and their
// order, are the same every time, on the same library and on a library
// built again from the same files (the chat is started afresh on them).
func TestSuggestDeterministic(t *testing.T) {
	type opener struct {
		shared, fresh func(*testing.T) *library.Library
	}
	for name, open := range map[string]opener{"docs": {sharedDocsLibrary, docsLibrary}, "pdf": {sharedPDFLibrary, pdfLibrary}} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			var runs [][]string
			// Two libraries built apart (the one the other tests use and
			// one of this test's own) suggest the same, twice each.
			for _, lib := range []*library.Library{open.shared(t), open.fresh(t)} {
				for range 2 {
					ss, err := Suggest(ctx, lib, 5)
					if err != nil {
						t.Fatal(err)
					}
					var qs []string
					for _, s := range ss {
						qs = append(qs, s.Question)
					}
					runs = append(runs, qs)
				}
			}
			t.Logf("%q", runs[0])
			if len(runs[0]) == 0 {
				t.Fatal("no suggestion")
			}
			for i, r := range runs[1:] {
				if !slices.Equal(r, runs[0]) {
					t.Errorf("run %d: %q, first run %q", i+2, r, runs[0])
				}
			}
		})
	}
}
