package tokens

import (
	"testing"

	"github.com/ibid-dev/ibid/internal/testmain"
)

func TestMain(m *testing.M) { testmain.Main(m) }
