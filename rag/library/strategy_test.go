package library

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/rag/retrieve"
	"github.com/ibid-dev/ibid/store"
)

// longNotes are documents long enough to have several chunks per section,
// so that hierarchical parents hold several children.
func longNotes() map[string]string {
	var a, b strings.Builder
	a.WriteString("# Methods\n\n")
	for i := range 40 {
		a.WriteString("The sampler draws a fresh batch of particles at step " + strings.Repeat("x", i%3+1) + " and weighs them by the likelihood of the observation; resampling keeps the heavy ones.\n\n")
	}
	b.WriteString("# Results\n\nThe filter tracked the drone within two metres on the windy days.\n\n# Limits\n\nCalibration drifts after an hour of flight.\n")
	return map[string]string{"methods.md": a.String(), "results.md": b.String()}
}

// longNotesDir sets up the test's folders (testEnv) and writes
// longNotes into a folder of them, which it returns.
func longNotesDir(t *testing.T) string {
	docs := filepath.Join(testEnv(t), "docs")
	writeFiles(t, docs, longNotes())
	return docs
}

func TestLibraryStrategyRecordedRefusedAndReindexed(t *testing.T) {
	docs := longNotesDir(t)
	ctx := context.Background()
	l := mustOpen(t, Options{})
	mustAdd(t, l, docs)
	if s, mixed, err := l.Strategy(ctx); err != nil || s != ingest.Recursive || mixed {
		t.Fatalf("Strategy = %s, %v, %v; want recursive", s, mixed, err)
	}
	before := mustLen(t, l)

	// Another strategy is refused, and nothing changes.
	_, err := l.AddWith(ctx, []string{docs}, AddOptions{Strategy: ingest.Hierarchical}, nil)
	var se *StrategyError
	if !errors.As(err, &se) || se.Have != ingest.Recursive || se.Want != ingest.Hierarchical {
		t.Fatalf("add with another strategy: %v, want a StrategyError recursive→hierarchical", err)
	}
	if n := mustLen(t, l); n != before {
		t.Fatalf("refused add changed the library: %d segments, had %d", n, before)
	}

	// A re-index with no paths indexes every document again.
	var stages []string
	rep, err := l.AddWith(ctx, nil, AddOptions{Strategy: ingest.Hierarchical, Reindex: true}, func(p AddProgress) {
		if p.Stage == StageFile {
			stages = append(stages, p.Status)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Reindexed) != 2 || len(rep.Added)+len(rep.Replaced)+len(rep.Unchanged) != 0 {
		t.Fatalf("re-index: %d re-indexed, %s; want 2 re-indexed", len(rep.Reindexed), counts(rep))
	}
	if !slices.Equal(stages, []string{"re-indexed", "re-indexed"}) {
		t.Errorf("progress statuses %v", stages)
	}
	checkWhole(t, l)
	if s, mixed, _ := l.Strategy(ctx); s != ingest.Hierarchical || mixed {
		t.Fatalf("after re-index: strategy %s (mixed %v)", s, mixed)
	}
	checkHierarchical(t, l)

	// A later add without a strategy keeps the library's.
	writeFiles(t, docs, map[string]string{"more.md": "# Extra\n\nA third note about particle filters.\n"})
	rep = mustAdd(t, l, docs)
	if got := counts(rep); got != "1/2/0/0/0" {
		t.Fatalf("add to a hierarchical library: %s", got)
	}
	checkHierarchical(t, l)

	// Search reads parents, found through their children.
	ps, err := l.Search(ctx, "drone windy metres", retrieve.Options{K: 3})
	if err != nil || len(ps) == 0 {
		t.Fatalf("search: %v, %d passages", err, len(ps))
	}
	if ps[0].Segment.Parent != "" || !strings.Contains(ps[0].Segment.Text, "two metres") {
		t.Errorf("first passage %s %q: want the parent holding the answer", ps[0].Segment.ID, ps[0].Segment.Text)
	}
}

// checkHierarchical checks every document of l is indexed hierarchically:
// passages (parents, zero vectors) first, then children with vectors, and
// the library's Segments lists the passages only.
func checkHierarchical(t *testing.T, l *Library) {
	t.Helper()
	ctx := context.Background()
	for _, d := range mustDocs(t, l) {
		if DocumentStrategy(d) != ingest.Hierarchical {
			t.Errorf("%s: strategy %s", d.Path, DocumentStrategy(d))
		}
		all := mustSegs(t, l, d.ID)
		passages, err := l.Segments(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(passages) == 0 || len(passages) >= len(all) {
			t.Fatalf("%s: %d passages of %d segments", d.Path, len(passages), len(all))
		}
		vecs, _ := l.Store().Vectors(ctx, d.ID)
		named, err := store.Parents(all)
		if err != nil {
			t.Fatalf("%s: %v", d.Path, err)
		}
		for i, s := range all {
			zero := !slices.ContainsFunc(vecs[i], func(x float32) bool { return x != 0 })
			switch {
			case i < len(passages) && (s.Parent != "" || !named[i] || !zero):
				t.Errorf("%s: passage %s (parent %q, named %v, zero vector %v)", d.Path, s.ID, s.Parent, named[i], zero)
			case i >= len(passages) && (s.Parent == "" || zero):
				t.Errorf("%s: row %s (parent %q, zero vector %v)", d.Path, s.ID, s.Parent, zero)
			}
		}
	}
}

func TestLibraryStrategyNeedsModel(t *testing.T) {
	docs := longNotesDir(t)
	l := mustOpen(t, Options{Name: "fresh"})
	for _, s := range []ingest.Strategy{ingest.Contextual, ingest.WindowSummary, ingest.Questions} {
		_, err := l.AddWith(context.Background(), []string{docs}, AddOptions{Strategy: s}, nil)
		if !errors.Is(err, ErrNeedsModel) {
			t.Errorf("%s without an enricher: %v, want ErrNeedsModel", s, err)
		}
	}
	if n := mustLen(t, l); n != 0 {
		t.Fatalf("refused adds wrote %d segments", n)
	}
}

// tagEnricher writes "generated about <first word>" as each chunk's
// context, as a model-written context would be.
type tagEnricher struct {
	mu    sync.Mutex
	calls int
}

func (e *tagEnricher) Enrich(ctx context.Context, ld *ingest.Loaded, progress func(done, total int)) error {
	for i := range ld.Segments {
		s := &ld.Segments[i]
		s.IndexText = "zeppelin context for " + strings.Fields(s.Text)[0] + "\n\n" + s.Text
		progress(i+1, len(ld.Segments))
	}
	e.mu.Lock()
	e.calls++
	e.mu.Unlock()
	return nil
}

func TestLibraryEnricher(t *testing.T) {
	docs := longNotesDir(t)
	ctx := context.Background()
	emb := &recordingEmbedder{fakeEmbedder: fakeEmbedder{name: "fake", dim: 16}}
	l := mustOpen(t, Options{Name: "ctx", Embedder: emb})
	e := &tagEnricher{}
	var enrichSeen bool
	rep, err := l.AddWith(ctx, []string{docs}, AddOptions{Strategy: ingest.Contextual, Enrich: e}, func(p AddProgress) {
		enrichSeen = enrichSeen || (p.Stage == StageEnrich && p.ToEnrich > 0)
	})
	if err != nil || len(rep.Added) != 2 {
		t.Fatalf("add: %v, %s", err, counts(rep))
	}
	if !enrichSeen || e.calls != 2 {
		t.Errorf("enrich progress seen %v, %d enrich calls", enrichSeen, e.calls)
	}
	checkWhole(t, l)
	for _, d := range mustDocs(t, l) {
		if DocumentStrategy(d) != ingest.Contextual {
			t.Errorf("%s: strategy %s", d.Path, DocumentStrategy(d))
		}
		for _, s := range mustSegs(t, l, d.ID) {
			if strings.Contains(s.Text, "zeppelin") || !strings.HasPrefix(s.IndexText, "zeppelin") {
				t.Fatalf("segment %s: text %q, index text %q", s.ID, s.Text, s.IndexText)
			}
		}
	}
	if !slices.ContainsFunc(emb.texts(), func(s string) bool { return strings.HasPrefix(s, "zeppelin") }) {
		t.Error("the embedder never saw the generated context")
	}
	// The generated words find the chunk; the passage shows its own text.
	ps, err := l.Search(ctx, "zeppelin", retrieve.Options{K: 1, Mode: retrieve.Lexical})
	if err != nil || len(ps) != 1 || strings.Contains(ps[0].Segment.Text, "zeppelin") {
		t.Fatalf("search on generated words: %v, %+v", err, ps)
	}
	// Re-adding the same files pays nothing.
	rep, err = l.AddWith(ctx, []string{docs}, AddOptions{Enrich: e}, nil)
	if err != nil || len(rep.Unchanged) != 2 || e.calls != 2 {
		t.Fatalf("second add: %v, %s, %d enrich calls", err, counts(rep), e.calls)
	}
}

// recordingEmbedder is a fakeEmbedder that keeps the texts it embedded.
type recordingEmbedder struct {
	fakeEmbedder
	mu   sync.Mutex
	seen []string
}

func (r *recordingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	r.mu.Lock()
	r.seen = append(r.seen, texts...)
	r.mu.Unlock()
	return r.fakeEmbedder.Embed(ctx, texts)
}

func (r *recordingEmbedder) texts() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.seen)
}

func TestLibraryReindexKeepsGoneFiles(t *testing.T) {
	docs := longNotesDir(t)
	ctx := context.Background()
	l := mustOpen(t, Options{})
	mustAdd(t, l, docs)
	gone := filepath.Join(docs, "results.md")
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	rep, err := l.AddWith(ctx, nil, AddOptions{Strategy: ingest.Semantic, Reindex: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Reindexed) != 1 || len(rep.Notes) != 1 || rep.Notes[0].Path != gone {
		t.Fatalf("re-index with a file gone: %d re-indexed, notes %+v", len(rep.Reindexed), rep.Notes)
	}
	if n := len(mustDocs(t, l)); n != 2 {
		t.Fatalf("%d documents after the re-index, want both kept", n)
	}
	s, mixed, _ := l.Strategy(ctx)
	if !mixed {
		t.Error("a library with a document left as it was is not reported mixed")
	}
	// A mixed library takes its most common strategy (a tie: the first
	// in ingest.Strategies) for later adds, without a refusal.
	writeFiles(t, docs, map[string]string{"late.md": "# Late\n\nA late note.\n"})
	rep, err = l.AddWith(ctx, []string{docs}, AddOptions{}, nil)
	if err != nil || len(rep.Added) != 1 || DocumentStrategy(rep.Added[0]) != s {
		t.Fatalf("add to a mixed library: %v, %s", err, counts(rep))
	}
}

// A semantic add whose embedder fails stops with the embedder's error,
// as an add that cannot embed does, instead of skipping every file.
func TestLibrarySemanticEmbedderFailureStops(t *testing.T) {
	docs := longNotesDir(t)
	emb := &fakeEmbedder{name: "fake", dim: 8}
	l := mustOpen(t, Options{Name: "sem", Embedder: emb})
	emb.fail = errors.New("connection refused")
	rep, err := l.AddWith(context.Background(), []string{docs}, AddOptions{Strategy: ingest.Semantic}, nil)
	if err == nil || !strings.Contains(err.Error(), "connection refused") || !strings.Contains(err.Error(), "semantic") {
		t.Fatalf("err = %v, want the embedder's error naming the strategy", err)
	}
	if len(rep.Skipped) != 0 || mustLen(t, l) != 0 {
		t.Fatalf("%d skipped, %d segments stored", len(rep.Skipped), mustLen(t, l))
	}
}
