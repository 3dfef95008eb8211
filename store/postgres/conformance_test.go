package postgres

import (
	"os"
	"testing"

	"github.com/ibid-dev/ibid/store/storetest"
)

func TestMain(m *testing.M) {
	storetest.Child()
	os.Exit(m.Run())
}

// TestConformance runs the store contract's suite, each test in a database
// of its own.
func TestConformance(t *testing.T) {
	testLocation(t)
	storetest.Run(t, storetest.Harness{Location: freshDatabase, Processes: true})
}
