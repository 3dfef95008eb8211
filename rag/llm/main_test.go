package llm

import (
	"flag"
	"testing"

	"github.com/ibid-dev/ibid/internal/testmain"
)

// TestMain runs up to eight tests at a time unless -test.parallel says
// otherwise: most tests here wait on a server's timers (Retry-After, idle
// and first-byte timeouts, backoff) rather than compute. It ends the test
// binary without the race detector's wait at exit.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", "8")
	}
	testmain.Main(m)
}
