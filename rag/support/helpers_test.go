package support

import (
	"sync"
	"testing"

	"github.com/ibid-dev/ibid/internal/shareddata"
)

// sharedData is the path of name in the shared data folder
// (internal/shareddata: the test is skipped without it, failed when it
// lacks name).
func sharedData(t testing.TB, name string) string {
	t.Helper()
	return shareddata.Path(t, name)
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
