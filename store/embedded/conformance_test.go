package embedded

import (
	"os"
	"testing"

	"github.com/ibid-dev/ibid/store/storetest"
)

func TestMain(m *testing.M) {
	storetest.Child()
	compactChild()
	code := m.Run()
	cleanupBench()
	os.Exit(code)
}

func TestConformance(t *testing.T) {
	storetest.Run(t, storetest.Harness{
		Location:  func(t testing.TB) string { return t.TempDir() },
		Processes: true,
	})
}
