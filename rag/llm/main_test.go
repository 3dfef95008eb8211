package llm

import (
	"testing"

	"github.com/ibid-dev/ibid/internal/testmain"
)

// TestMain ends the test binary without the race detector's wait at exit.
func TestMain(m *testing.M) { testmain.Main(m) }
