package support

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// sharedData is the path of name under the shared data folder
// (../shared/data beside the repository), found by walking up from the
// package's folder; the test is skipped when it is absent.
func sharedData(t testing.TB, name string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		p := filepath.Join(dir, "shared", "data", name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Skipf("shared data %s not found above the package", name)
		}
		dir = up
	}
}

var (
	sciFactOnce sync.Once
	sciFactSet  *Set
	sciFactErr  error
)

// sciFactTrain is SciFact's training set, read once per test binary.
func sciFactTrain(t testing.TB) *Set {
	t.Helper()
	dir := sharedData(t, "scifact-rationale")
	sciFactOnce.Do(func() { sciFactSet, sciFactErr = ReadSciFact(dir, "claims_train.jsonl") })
	if sciFactErr != nil {
		t.Fatal(sciFactErr)
	}
	return sciFactSet
}
