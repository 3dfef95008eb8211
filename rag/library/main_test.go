package library

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ibid-dev/ibid/internal/testmain"
)

// testCache is the XDG_CACHE_HOME of every test (and run): the PDF
// engine compiles once.
var testCache = filepath.Join(os.TempDir(), "ibid-rag-test-cache")

// TestMain gives the whole test binary (and the child processes its
// tests start) XDG folders of its own: the shared testCache, and a data
// folder removed at the end, so that no test reaches the user's. Tests
// that set them per test (testEnv) run alone; tests whose libraries all
// name their Store run in parallel (parallelDir). It ends the binary
// without the race detector's wait at exit.
func TestMain(m *testing.M) {
	data, err := os.MkdirTemp("", "ibid-library-test-data-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_DATA_HOME", data)
	os.Setenv("XDG_CACHE_HOME", testCache)
	code := testmain.Run(m)
	os.RemoveAll(data)
	testmain.Exit(code)
}
