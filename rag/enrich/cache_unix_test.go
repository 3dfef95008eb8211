//go:build unix

package enrich

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/rag/ingest"
)

// A named pipe where a cache entry belongs (left by a sync tool, or put
// there on purpose) is a miss, at once: enrichment asks the model again and
// writes a real entry in its place. Before, reading it waited for a writer
// for ever, and the add hung, deaf to SIGTERM.
func TestCacheEntryFIFO(t *testing.T) {
	srv, m := server(t, newFake())
	dir := t.TempDir()
	opt := Options{Strategy: ingest.Contextual, Model: m, CacheDir: dir}
	if _, err := Enrich(context.Background(), document(t, "doc", 3, 1, 60), opt); err != nil {
		t.Fatal(err)
	}
	files := cacheFiles(t, dir)
	for _, f := range files {
		os.Remove(f)
		if err := syscall.Mkfifo(f, 0o600); err != nil {
			t.Skipf("no named pipes here: %v", err)
		}
	}
	done := make(chan struct{})
	var rep Report
	var err error
	go func() {
		defer close(done)
		rep, err = Enrich(context.Background(), document(t, "doc", 3, 1, 60), opt)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("enrichment hangs on a named pipe in its cache")
	}
	if err != nil || rep.Calls != 3 || rep.CacheHits != 0 || rep.Failed != 0 {
		t.Fatalf("with pipes for entries: %+v, %v; want 3 calls", rep, err)
	}
	for _, f := range files {
		if fi, err := os.Lstat(f); err != nil || !fi.Mode().IsRegular() {
			t.Fatalf("%s after the run: %v, %v", f, fi.Mode(), err)
		}
	}
	if rep, _ := Enrich(context.Background(), document(t, "doc", 3, 1, 60), opt); rep.CacheHits != 3 || len(srv.Requests()) != 6 {
		t.Fatalf("third run: %+v", rep)
	}
}
