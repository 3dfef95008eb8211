// Package shareddata finds, for tests, the shared data folder: the
// real PDFs, question sets and recorded answers kept outside the
// repository in ../shared/data. One helper, so that no test builds the
// path by hand (and a wrong number of ".." cannot silently skip a test).
package shareddata

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ibid-dev/ibid/internal/modroot"
)

var (
	once sync.Once
	dir  string
)

// Dir is the shared data folder, or "" when there is none: the first
// folder "shared/data" found beside the module's root (the folder holding
// go.mod, found walking up from the working directory, which is the
// package's folder in a test) or beside one of the folders above it. So
// a checkout at /work/main and a worktree at /work/wt/NAME both find
// /work/shared/data.
func Dir() string {
	once.Do(func() { dir = find() })
	return dir
}

func find() string {
	root, ok := modroot.Here()
	if !ok {
		return ""
	}
	for d := filepath.Dir(root); ; d = filepath.Dir(d) {
		p := filepath.Join(d, "shared", "data")
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return p
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// Path is the file or folder elem names in the shared data folder. It
// skips t when there is no shared data folder (a fresh clone, CI without
// the data), and fails t when there is one but it lacks elem: a test
// whose data is misnamed must not pass by skipping.
func Path(t testing.TB, elem ...string) string {
	t.Helper()
	d := Dir()
	if d == "" {
		t.Skip("no shared data folder (../shared/data beside the repository)")
	}
	p := filepath.Join(append([]string{d}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("the shared data folder %s lacks %s: %v", d, filepath.Join(elem...), err)
	}
	return p
}
