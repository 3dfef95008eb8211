package enrich

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/rag/llmtest"
	"github.com/ibid-dev/ibid/store"
)

// cacheFiles lists the cache's entries.
func cacheFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() && strings.HasSuffix(p, ".json") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// A second run over the same documents is all cache hits and no calls,
// for every strategy, and gives the same segments.
func TestSecondRunFromCache(t *testing.T) {
	for _, s := range []ingest.Strategy{ingest.Contextual, ingest.WindowSummary, ingest.Questions} {
		t.Run(string(s), func(t *testing.T) {
			srv, m := server(t, newFake())
			dir := t.TempDir()
			first := document(t, "doc", 3, 1, 60)
			again := document(t, "doc", 3, 1, 60)
			opt := Options{Strategy: s, Model: m, CacheDir: dir}
			rep, err := Enrich(context.Background(), first, opt)
			if err != nil || rep.Calls != 3 || rep.CacheHits != 0 {
				t.Fatalf("first run %+v, %v", rep, err)
			}
			if n := len(cacheFiles(t, dir)); n != 3 {
				t.Fatalf("%d cache entries, want 3", n)
			}
			rep, err = Enrich(context.Background(), again, opt)
			if err != nil || rep.Calls != 0 || rep.CacheHits != 3 || rep.InputTokens != 0 {
				t.Fatalf("second run %+v, %v; want 3 cache hits and no call", rep, err)
			}
			if n := len(srv.Requests()); n != 3 {
				t.Errorf("%d requests in all, want 3", n)
			}
			if !sameSegments(first.Segments, again.Segments) {
				t.Error("the cached run indexed differently")
			}
			// Another model's answers are not reused.
			other := document(t, "doc", 3, 1, 60)
			opt.Model = modelNamed(srv, "other-model")
			if rep, _ := Enrich(context.Background(), other, opt); rep.Calls != 3 || rep.CacheHits != 0 {
				t.Errorf("another model: %+v", rep)
			}
		})
	}
}

func sameSegments(a, b []store.Segment) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Text != b[i].Text || a[i].IndexText != b[i].IndexText || a[i].Parent != b[i].Parent {
			return false
		}
	}
	return true
}

// A corrupt cache entry is a miss, asked again and replaced, never an
// error.
func TestCorruptCacheEntry(t *testing.T) {
	srv, m := server(t, newFake())
	dir := t.TempDir()
	opt := Options{Strategy: ingest.Contextual, Model: m, CacheDir: dir}
	if _, err := Enrich(context.Background(), document(t, "doc", 3, 1, 60), opt); err != nil {
		t.Fatal(err)
	}
	files := cacheFiles(t, dir)
	if err := os.WriteFile(files[0], []byte(`{"key":"trunc`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(files[1], []byte(`{"key":"0000","text":"another key's answer"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	d := document(t, "doc", 3, 1, 60)
	rep, err := Enrich(context.Background(), d, opt)
	if err != nil || rep.Calls != 2 || rep.CacheHits != 1 || rep.Failed != 0 {
		t.Fatalf("with two corrupt entries: %+v, %v", rep, err)
	}
	for _, s := range d.Segments {
		if strings.Contains(s.IndexText, "another key") || !strings.HasPrefix(s.IndexText, "Context of ") {
			t.Errorf("IndexText %q", s.IndexText)
		}
	}
	rep, _ = Enrich(context.Background(), document(t, "doc", 3, 1, 60), opt)
	if rep.Calls != 0 || rep.CacheHits != 3 || len(srv.Requests()) != 5 {
		t.Errorf("the corrupt entries were not replaced: %+v", rep)
	}
}

// A run interrupted midway keeps what it finished: the rerun asks only for
// the rest.
func TestResumeAfterCancel(t *testing.T) {
	for _, s := range []ingest.Strategy{ingest.Contextual, ingest.WindowSummary} {
		t.Run(string(s), func(t *testing.T) {
			f := newFake()
			srv, m := server(t, f)
			dir := t.TempDir()
			const chunks = 20
			ctx, cancel := context.WithCancel(context.Background())
			var n atomic.Int32
			srv.Handle(func(r llmtest.Request) llmtest.Reply {
				if n.Add(1) == 8 {
					cancel()
				}
				return f.reply(r)
			})
			d := document(t, "doc", chunks, 1, 60)
			if len(d.Segments) != chunks {
				t.Fatalf("%d chunks", len(d.Segments))
			}
			opt := Options{Strategy: s, Model: m, CacheDir: dir}
			_, err := Enrich(ctx, d, opt)
			if err != context.Canceled {
				t.Fatalf("cancelled run: %v", err)
			}
			for _, seg := range d.Segments {
				if seg.IndexText != "" {
					t.Fatal("a cancelled run changed the document")
				}
			}
			kept := len(cacheFiles(t, dir))
			if kept == 0 || kept >= chunks {
				t.Fatalf("%d answers kept of %d", kept, chunks)
			}
			srv.Handle(f.reply)
			rep, err := Enrich(context.Background(), d, opt)
			if err != nil || rep.CacheHits != kept || rep.Calls != chunks-kept || rep.Failed != 0 {
				t.Fatalf("rerun %+v, %v; want %d hits and %d calls", rep, err, kept, chunks-kept)
			}
			for i, seg := range d.Segments {
				if seg.IndexText == "" {
					t.Errorf("chunk %d not enriched after the rerun", i)
				}
			}
		})
	}
}
