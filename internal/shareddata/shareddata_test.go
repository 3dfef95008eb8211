package shareddata

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFind: from a package folder two levels under the module root, the
// folder beside the root is found, and, failing that, the one beside the
// root's parent (a worktree under wt/); with neither, none.
func TestFind(t *testing.T) {
	top := t.TempDir()
	root := filepath.Join(top, "wt", "repo")
	pkg := filepath.Join(root, "rag", "library")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(pkg)
	if got := find(); got != "" {
		t.Errorf("no shared folder: found %q", got)
	}
	far := filepath.Join(top, "shared", "data")
	os.MkdirAll(far, 0o755)
	if got := find(); !sameFile(got, far) {
		t.Errorf("found %q, want %q", got, far)
	}
	near := filepath.Join(top, "wt", "shared", "data")
	os.MkdirAll(near, 0o755)
	if got := find(); !sameFile(got, near) {
		t.Errorf("found %q, want the nearer %q", got, near)
	}
}

func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// recorder is a testing.TB that records a Skip or a Fatal instead of
// ending the test.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper()                      {}
func (r *recorder) Skip(args ...any)             { r.skipped = "skip"; panic(r) }
func (r *recorder) Fatalf(f string, args ...any) { r.failed = f; panic(r) }

func run(tb testing.TB, f func(testing.TB)) (r *recorder) {
	r = &recorder{TB: tb}
	defer func() {
		if p := recover(); p != nil && p != r {
			panic(p)
		}
	}()
	f(r)
	return r
}

// TestPathMissing: with the shared folder present, a path it lacks fails
// the test rather than skipping it; with no folder, the test skips.
func TestPathMissing(t *testing.T) {
	d := t.TempDir()
	once.Do(func() {})
	old := dir
	t.Cleanup(func() { dir = old })

	dir = d
	os.WriteFile(filepath.Join(d, "there.txt"), nil, 0o644)
	if r := run(t, func(tb testing.TB) { Path(tb, "there.txt") }); r.failed != "" || r.skipped != "" {
		t.Errorf("a present path: %+v", r)
	}
	if r := run(t, func(tb testing.TB) { Path(tb, "pdf", "gone.pdf") }); !strings.Contains(r.failed, "lacks") {
		t.Errorf("a missing path did not fail: %+v", r)
	}
	dir = ""
	if r := run(t, func(tb testing.TB) { Path(tb, "pdf") }); r.skipped == "" || r.failed != "" {
		t.Errorf("no shared folder did not skip: %+v", r)
	}
}
