package enrich

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/rag/llmtest"
	"github.com/ibid-dev/ibid/store"
)

// Calls that fail past the retry policy, and answers that are unusable,
// leave their chunk indexed without enrichment and are reported; the rest
// is enriched and no text changes.
func TestFailedChunksKept(t *testing.T) {
	for _, s := range []ingest.Strategy{ingest.Contextual, ingest.WindowSummary, ingest.Questions} {
		t.Run(string(s), func(t *testing.T) {
			f := newFake()
			srv, m := server(t, f)
			d := document(t, "doc", 4, 1, 60)
			before := texts(d.Segments)
			f.fail = func(user string) *llmtest.Reply {
				user = chunkOf(user)
				switch {
				case strings.Contains(user, "s1p0 opens"):
					return &llmtest.Reply{Status: 500}
				case strings.Contains(user, "s2p0 opens"):
					return &llmtest.Reply{Chunks: []string{"  \n "}} // empty
				case strings.Contains(user, "s3p0 opens") && s == ingest.Questions:
					return &llmtest.Reply{Chunks: []string{"I'm sorry, I can't help with that."}}
				}
				return nil
			}
			opt := Options{Strategy: s, Model: m, CacheDir: t.TempDir()}
			rep, err := Enrich(context.Background(), d, opt)
			if err != nil {
				t.Fatal(err)
			}
			failed := []int{1, 2}
			if s == ingest.Questions {
				failed = append(failed, 3)
			}
			if rep.Failed != len(failed) || len(rep.Failures) != len(failed) {
				t.Fatalf("report %+v, want %d failures", rep, len(failed))
			}
			all := strings.Join(rep.Failures, "\n")
			if !strings.Contains(all, "chunk 1: the server answered HTTP 500 (after 3 tries)") ||
				!strings.Contains(all, "chunk 2: the model's answer was empty") && !strings.Contains(all, "chunk 2: no question") {
				t.Errorf("failures %q", rep.Failures)
			}
			for _, line := range rep.Failures {
				if !strings.HasPrefix(line, d.Document.Path+": chunk ") || strings.Contains(line, "\n") {
					t.Errorf("failure line %q", line)
				}
			}
			// The 500 was retried as the policy says: 1 + 2 retries.
			var tries int
			for _, msgs := range chats(srv) {
				if strings.Contains(chunkOf(msgs[len(msgs)-1].Content), "s1p0 opens") {
					tries++
				}
			}
			if tries != 1+fast.Retries {
				t.Errorf("the failing chunk was tried %d times, want %d", tries, 1+fast.Retries)
			}
			if !slices.Equal(texts(d.Segments[:4]), before) {
				t.Error("a chunk's text changed")
			}
			for i := range 4 {
				enriched := d.Segments[i].IndexText != "" || slices.ContainsFunc(d.Segments[4:], func(r store.Segment) bool {
					return r.Parent == d.Segments[i].ID
				})
				if enriched == slices.Contains(failed, i) {
					t.Errorf("chunk %d: enriched %v, failed %v", i, enriched, slices.Contains(failed, i))
				}
			}
			if !strings.Contains(rep.String(), "chunks failed") {
				t.Errorf("summary %q", rep.String())
			}
			// Failures are not cached: once the server is well, a rerun
			// asks again for them only.
			// (A window summary is asked again after a failed one too: its
			// previous summary is now known.)
			f.fail = nil
			want := map[ingest.Strategy]int{ingest.Contextual: 2, ingest.WindowSummary: 3, ingest.Questions: 3}[s]
			rep, err = Enrich(context.Background(), document(t, "doc", 4, 1, 60), opt)
			if err != nil || rep.Calls != want || rep.CacheHits != 4-want || rep.Failed != 0 {
				t.Errorf("rerun %+v, %v; want %d calls", rep, err, want)
			}
		})
	}
}

// A failure that will not pass (a refused key) stops the asking: the
// remaining chunks fail at once instead of each paying the retries, and
// Enrich says the model fails (ErrModelFailing), changing no document, so
// that the add stops instead of indexing every file without enrichment.
func TestLastingFailureStopsAsking(t *testing.T) {
	f := newFake()
	srv, m := server(t, f)
	f.fail = func(string) *llmtest.Reply { return &llmtest.Reply{Status: 401} }
	d := document(t, "doc", 30, 1, 40)
	before := texts(d.Segments)
	rep, err := Enrich(context.Background(), d, Options{Strategy: ingest.Contextual, Model: m, Concurrency: 2})
	if !errors.Is(err, ErrModelFailing) || !strings.Contains(err.Error(), "API key") {
		t.Fatalf("Enrich error %v, want one wrapping ErrModelFailing that says why", err)
	}
	if rep.Failed != 30 {
		t.Fatalf("report %+v", rep)
	}
	if n := len(srv.Requests()); n > 2 {
		t.Errorf("%d requests after the key was refused, want at most the 2 in flight", n)
	}
	for _, s := range d.Segments {
		if s.IndexText != "" {
			t.Error("a failed chunk got an IndexText")
		}
	}
	if !slices.Equal(texts(d.Segments), before) || d.Document.Meta[ingest.MetaStrategy] == "contextual" {
		t.Error("the document was changed")
	}
}

// An endpoint that fails every call (HTTP 500 always, or every answer cut
// off) is asked DefaultFailureRun times in a row, each past the retry
// policy, and no more, across the documents that share a Breaker: the
// first documents' answers are kept in the cache, and Enrich says the
// model fails. Before, every chunk of every document paid the retries
// (about 25 minutes for a thousand chunks).
func TestFailingEndpointStops(t *testing.T) {
	for _, how := range []string{"500", "cut"} {
		t.Run(how, func(t *testing.T) {
			f := newFake()
			srv, m := server(t, f)
			dir := t.TempDir()
			b := NewBreaker()
			opt := Options{Strategy: ingest.Contextual, Model: m, Concurrency: 2, CacheDir: dir, Breaker: b}
			if _, err := Enrich(context.Background(), document(t, "first", 3, 1, 40), opt); err != nil {
				t.Fatal(err)
			}
			f.fail = func(string) *llmtest.Reply {
				if how == "cut" {
					return &llmtest.Reply{Chunks: []string{"half an ", "answer"}, Cut: 1}
				}
				return &llmtest.Reply{Status: 500}
			}
			asked := len(srv.Requests())
			var err error
			docs := 0
			for ; docs < 50 && err == nil; docs++ {
				_, err = Enrich(context.Background(), document(t, fmt.Sprintf("doc%d", docs), 3, 1, 40), opt)
			}
			if !errors.Is(err, ErrModelFailing) || !strings.Contains(err.Error(), "calls in a row failed") {
				t.Fatalf("after %d documents: %v, want an error wrapping ErrModelFailing", docs, err)
			}
			calls := len(srv.Requests()) - asked
			// DefaultFailureRun calls failed, each tried 1+Retries times,
			// and at most the calls in flight besides.
			if most := (DefaultFailureRun + opt.Concurrency) * (1 + fast.Retries); calls > most {
				t.Errorf("%d requests to a failing endpoint, want at most %d", calls, most)
			}
			// Once tripped, nothing more is asked.
			before := len(srv.Requests())
			if _, err := Enrich(context.Background(), document(t, "later", 3, 1, 40), opt); !errors.Is(err, ErrModelFailing) || len(srv.Requests()) != before {
				t.Errorf("after the trip: %v, %d more requests", err, len(srv.Requests())-before)
			}
			// The first document's answers are cached: a rerun once the
			// server answers pays nothing for them.
			f.fail = nil
			rep, err := Enrich(context.Background(), document(t, "first", 3, 1, 40), Options{Strategy: ingest.Contextual, Model: m, CacheDir: dir})
			if err != nil || rep.CacheHits != 3 || rep.Calls != 0 {
				t.Errorf("rerun of the first document: %+v, %v", rep, err)
			}
		})
	}
}

// A success in between starts the count again: an endpoint that fails
// often but not always is never given up on.
func TestFlakyEndpointKeptOn(t *testing.T) {
	f := newFake()
	_, m := server(t, f)
	// Two chunks of three fail past the retries, the third is answered.
	f.fail = func(user string) *llmtest.Reply {
		sec := -1
		for i := range 12 {
			if strings.Contains(chunkOf(user), fmt.Sprintf("s%dp0 opens", i)) {
				sec = i
			}
		}
		if sec%3 != 2 {
			return &llmtest.Reply{Status: 500}
		}
		return nil
	}
	// Window summaries go in order, so the runs are as written.
	opt := Options{Strategy: ingest.WindowSummary, Model: m, Breaker: &Breaker{Limit: 3}}
	rep, err := Enrich(context.Background(), document(t, "doc", 12, 1, 40), opt)
	if err != nil || rep.Failed != 8 {
		t.Fatalf("a flaky endpoint: %v, %+v; want 8 chunks failed and no stop", err, rep)
	}
}

// chunkOf is the chunk a prompt asks about.
func chunkOf(user string) string {
	if c := between(user, "<chunk>\n", "\n</chunk>"); c != "" {
		return c
	}
	return between(user, "<passage>\n", "\n</passage>")
}
