package library

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/internal/xdg"
	"github.com/ibid-dev/ibid/store"
)

// testEnv points XDG_DATA_HOME at a temp dir, so a test's libraries
// live there, and XDG_CACHE_HOME at a cache shared by the package's tests.
func testEnv(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	t.Setenv("XDG_CACHE_HOME", testCache)
	return dir
}

// parallelDir runs t in parallel with the package's other such tests and
// returns a temporary folder of its own: for a test whose libraries all
// name their Store (the XDG folders are TestMain's, shared).
func parallelDir(t *testing.T) string {
	t.Helper()
	t.Parallel()
	return t.TempDir()
}

// writeFiles writes files (name → content) under dir.
func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func mustOpen(t *testing.T, opt Options) *Library {
	t.Helper()
	l, err := Open(context.Background(), opt)
	if err != nil {
		t.Fatalf("OpenLibrary: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func mustAdd(t *testing.T, l *Library, paths ...string) *AddReport {
	t.Helper()
	rep, err := l.Add(context.Background(), paths, nil)
	if err != nil {
		t.Fatalf("Add(%v): %v", paths, err)
	}
	return rep
}

// counts is "added/unchanged/replaced/moved/skipped".
func counts(r *AddReport) string {
	return strconv.Itoa(len(r.Added)) + "/" + strconv.Itoa(len(r.Unchanged)) + "/" +
		strconv.Itoa(len(r.Replaced)) + "/" + strconv.Itoa(len(r.Moved)) + "/" + strconv.Itoa(len(r.Skipped))
}

// checkWhole fails unless every document in l is whole: its segments
// are all there, indexed 0..n-1 with the right ids, each with a vector of
// the library's dimension; and the library's segment count adds up.
func checkWhole(t *testing.T, l *Library) {
	t.Helper()
	ctx := context.Background()
	total := 0
	for _, d := range mustDocs(t, l) {
		segs := mustSegs(t, l, d.ID)
		if len(segs) != d.Segments || len(segs) == 0 {
			t.Errorf("document %s (%s) has %d segments, records %d", d.ID, d.Path, len(segs), d.Segments)
		}
		vecs, err := l.Store().Vectors(ctx, d.ID)
		if err != nil || len(vecs) != len(segs) {
			t.Errorf("document %s: %d vectors for %d segments (%v)", d.ID, len(vecs), len(segs), err)
		}
		for i, s := range segs {
			if s.Index != i || s.ID != d.ID+":"+strconv.Itoa(i) || s.DocumentID != d.ID {
				t.Errorf("document %s: segment %d is %+v", d.ID, i, s)
			}
			if i < len(vecs) && len(vecs[i]) != l.Store().Info().Dimension {
				t.Errorf("segment %s: vector of dimension %d", s.ID, len(vecs[i]))
			}
		}
		total += len(segs)
	}
	if total != mustLen(t, l) {
		t.Errorf("documents hold %d segments, library says %d", total, mustLen(t, l))
	}
}

func mustDocs(t testing.TB, l *Library) []store.Document {
	t.Helper()
	docs, err := l.Documents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

func mustLen(t testing.TB, l *Library) int {
	t.Helper()
	n, err := l.Len(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// mustSegs is a document's segments, index rows included; none for a
// document not there.
func mustSegs(t testing.TB, l *Library, docID string) []store.Segment {
	t.Helper()
	segs, err := l.Store().Segments(context.Background(), docID, 0, -1)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return segs
}

// folderOf is the folder of the embedded library called name, under the
// test's XDG_DATA_HOME.
func folderOf(name string) string {
	data, err := xdg.DataDir()
	if err != nil {
		panic(err)
	}
	return filepath.Join(data, "libraries", name)
}

// fakeEmbedder is a deterministic embedder with another name than the
// local one: each text's vector is built from the hashes of its words.
type fakeEmbedder struct {
	name string
	dim  int
	fail error  // if set, Embed returns it
	hook func() // if set, called by Embed before it works
}

func (f *fakeEmbedder) Name() string   { return f.name }
func (f *fakeEmbedder) Dimension() int { return f.dim }
func (f *fakeEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if f.hook != nil {
		f.hook()
	}
	if f.fail != nil {
		return nil, f.fail
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, f.dim)
		for _, w := range strings.Fields(strings.ToLower(t)) {
			h := sha256.Sum256([]byte(w))
			v[binary.LittleEndian.Uint32(h[:])%uint32(f.dim)] += 1
		}
		var n float64
		for _, x := range v {
			n += float64(x * x)
		}
		if n == 0 {
			v[0], n = 1, 1
		}
		for j := range v {
			v[j] /= float32(math.Sqrt(n))
		}
		out[i] = v
	}
	return out, nil
}
