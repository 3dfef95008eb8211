package postgres

import (
	"testing"

	"github.com/ibid-dev/ibid/internal/testmain"
	"github.com/ibid-dev/ibid/store/storetest"
)

func TestMain(m *testing.M) {
	storetest.Child()
	testmain.Main(m)
}

// TestConformance runs the store contract's suite, each test in a database
// of its own.
func TestConformance(t *testing.T) {
	testLocation(t)
	storetest.Run(t, storetest.Harness{Location: freshDatabase, Processes: true,
		// The suite's damage is to files behind the store's back: a cut
		// log, lost vectors, a cut manifest. A library in PostgreSQL has
		// none of them: its commits go through the database's write-ahead
		// log, and its embedder is a row of the same database.
		Damage: func(testing.TB, string, string, storetest.Damage) bool { return false },
		Repair: func(testing.TB, string, string) error { return nil },
	})
}
