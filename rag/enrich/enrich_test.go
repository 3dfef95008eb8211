package enrich

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/rag/ingest/tokens"
)

func TestContextual(t *testing.T) {
	f := newFake()
	srv, m := server(t, f)
	d := document(t, "paper", 4, 1, 60)
	before := texts(d.Segments)
	if len(before) != 4 {
		t.Fatalf("%d chunks, want 4", len(before))
	}
	var progress []int
	rep, err := Enrich(context.Background(), d, Options{Strategy: ingest.Contextual, Model: m,
		Progress: func(done, total int) {
			if total != 4 {
				t.Errorf("progress total %d, want 4", total)
			}
			progress = append(progress, done)
		}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Calls != 4 || rep.CacheHits != 0 || rep.Failed != 0 || rep.EstimatedCalls != 0 || rep.InputTokens == 0 || rep.OutputTokens == 0 {
		t.Errorf("report %+v", rep)
	}
	if !slices.Equal(progress, []int{1, 2, 3, 4}) {
		t.Errorf("progress %v", progress)
	}
	// The prefix (system and the document) is byte-identical for every
	// chunk; the chunk comes after it.
	prefix := documentPrefix(d.Text)
	reqs := chats(srv)
	seen := map[string]bool{}
	for _, msgs := range reqs {
		if len(msgs) != 2 || msgs[0] != reqs[0][0] || msgs[0].Role != "system" {
			t.Fatalf("messages %+v", msgs)
		}
		user := msgs[1].Content
		if !strings.HasPrefix(user, prefix) || !strings.Contains(user, "succinct context") {
			t.Errorf("user message does not start with the document: %.200q", user)
		}
		seen[between(user[len(prefix):], "<chunk>\n", "\n</chunk>")] = true
	}
	for i, s := range d.Segments {
		if s.Text != before[i] {
			t.Errorf("chunk %d's text changed", i)
		}
		if !seen[s.Text] {
			t.Errorf("chunk %d was not asked about", i)
		}
		want := "Context of " + firstWords(s.Text) + "\n\n" + s.Text
		if s.IndexText != want {
			t.Errorf("chunk %d IndexText = %q, want %q", i, s.IndexText, want)
		}
	}
	if d.Document.Meta[ingest.MetaStrategy] != "contextual" || d.Document.Segments != 4 {
		t.Errorf("document %+v", d.Document)
	}
	// The fake caches prefixes: all but the first call read it from cache.
	if rep.CachedInputTokens == 0 || !strings.Contains(rep.String(), "cached") {
		t.Errorf("cached input tokens not reported: %v", rep)
	}
}

// A long document: one call per section, one for the document, then the
// chunks with both summaries as their prefix.
func TestContextualLongDocument(t *testing.T) {
	f := newFake()
	srv, m := server(t, f)
	d := document(t, "long", 3, 2, 150) // 3 sections of more than one chunk
	n := len(d.Segments)
	if n < 6 {
		t.Fatalf("%d chunks, want 2 or more per section", n)
	}
	total := tokens.Count(d.Text)
	rep, err := Enrich(context.Background(), d, Options{Strategy: ingest.Contextual, Model: m, LongDocument: total - 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Calls != 3+1+n || rep.Failed != 0 {
		t.Fatalf("report %+v, want %d calls", rep, 3+1+n)
	}
	var sections, docs int
	prefixes := map[string]string{} // section label → prefix of its chunks
	for i, msgs := range chats(srv) {
		user := msgs[1].Content
		switch {
		case strings.Contains(user, "<chunk>"):
			if sections != 3 || docs != 1 {
				t.Errorf("request %d: a chunk asked before the summaries", i)
			}
			if strings.Contains(user, "<document>") {
				t.Error("a long document was sent whole")
			}
			label := between(user, "<section_summary section=\"", "\"")
			p := user[:strings.Index(user, "Here is the chunk")]
			if old, ok := prefixes[label]; ok && old != p {
				t.Errorf("section %q: prefixes differ:\n%q\n%q", label, old, p)
			}
			prefixes[label] = p
			if want := summaryPrefix("Document summary.", label, "Summary of "+label); p != want {
				t.Errorf("prefix %q, want %q", p, want)
			}
		case strings.Contains(user, "<section_summaries>"):
			docs++
			if sections != 3 || !strings.Contains(user, "Summary of long section 2") {
				t.Errorf("document summary asked before, or without, the section summaries: %q", user)
			}
		case strings.Contains(user, "<section title="):
			sections++
			if tokens.Count(user) > total {
				t.Error("a section summary was asked with more than its section")
			}
		}
	}
	if len(prefixes) != 3 {
		t.Errorf("%d distinct sections among the chunks, want 3", len(prefixes))
	}
	for i, s := range d.Segments {
		if !strings.HasPrefix(s.IndexText, "Context of "+firstWords(s.Text)+"\n\n") || !strings.HasSuffix(s.IndexText, s.Text) {
			t.Errorf("chunk %d IndexText %q", i, s.IndexText)
		}
	}
}

func TestWindowSummary(t *testing.T) {
	f := newFake()
	srv, m := server(t, f)
	a, b := document(t, "a", 3, 1, 60), document(t, "b", 2, 1, 60)
	rep, err := EnrichAll(context.Background(), []*ingest.Loaded{a, b}, Options{Strategy: ingest.WindowSummary, Model: m})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Calls != 5 || rep.Failed != 0 {
		t.Errorf("report %+v", rep)
	}
	// Within a document, each chunk is asked with the summary of the one
	// before it (and the first with none).
	prev := map[string]string{} // passage → the previous summary it was asked with
	for _, msgs := range chats(srv) {
		u := msgs[1].Content
		prev[between(u, "<passage>\n", "\n</passage>")] = between(u, "<previous_summary>\n", "\n</previous_summary>")
	}
	for _, d := range []*ingest.Loaded{a, b} {
		for i, s := range d.Segments {
			want := "(none: this is the first passage)"
			if i > 0 {
				want = "Summary of " + firstWords(d.Segments[i-1].Text)
			}
			if got, ok := prev[s.Text]; !ok || got != want {
				t.Errorf("%s chunk %d asked with previous %q, want %q", d.Document.Title, i, got, want)
			}
			if s.IndexText != "Summary of "+firstWords(s.Text)+"\n\n"+s.Text {
				t.Errorf("IndexText %q", s.IndexText)
			}
		}
		if d.Document.Meta[ingest.MetaStrategy] != "window-summary" {
			t.Errorf("meta %v", d.Document.Meta)
		}
	}
}

func TestQuestions(t *testing.T) {
	f := newFake()
	_, m := server(t, f)
	d := document(t, "q", 2, 1, 60)
	passages := slices.Clone(d.Segments)
	rep, err := Enrich(context.Background(), d, Options{Strategy: ingest.Questions, Model: m})
	if err != nil || rep.Calls != 2 || rep.Failed != 0 {
		t.Fatalf("%+v, %v", rep, err)
	}
	// Per passage: a mirror row and three questions.
	if len(d.Segments) != 2+2*4 || d.Document.Meta[ingest.MetaPassages] != "2" || d.Document.Meta[ingest.MetaStrategy] != "questions" {
		t.Fatalf("%d segments, meta %v", len(d.Segments), d.Document.Meta)
	}
	for i, p := range passages {
		if d.Segments[i].Text != p.Text || d.Segments[i].IndexText != "" || d.Segments[i].Parent != "" {
			t.Errorf("passage %d changed", i)
		}
		var qs []string
		for _, s := range d.Segments[2:] {
			if s.Parent == p.ID && s.Text == "" {
				qs = append(qs, s.IndexText)
			}
		}
		w := firstWords(p.Text)
		want := []string{"What does " + w + " say?", "Why does " + w + " cool?", "How slowly does " + w + " cool?"}
		if !slices.Equal(qs, want) {
			t.Errorf("passage %d questions %q, want %q", i, qs, want)
		}
	}
}

func TestRefusedWithoutModel(t *testing.T) {
	d := document(t, "x", 1, 1, 20)
	_, err := Enrich(context.Background(), d, Options{Strategy: ingest.Contextual})
	if err == nil || !strings.Contains(err.Error(), "chat model") || !strings.Contains(err.Error(), "--base-url") ||
		!strings.Contains(err.Error(), "--model") || !strings.Contains(err.Error(), "--enrich-model") {
		t.Errorf("no model: %v", err)
	}
	_, m := server(t, newFake())
	if _, err := Enrich(context.Background(), d, Options{Strategy: ingest.Recursive, Model: m}); err == nil {
		t.Error("a strategy without a model was accepted")
	}
	if d.Segments[0].IndexText != "" || d.Document.Meta != nil {
		t.Error("a refused enrichment changed the document")
	}
}
