package testmain

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) { Main(m) }

func TestNoWait(t *testing.T) {
	for in, want := range map[string]string{
		"":                      "atexit_sleep_ms=0",
		"halt_on_error=1":       "halt_on_error=1 atexit_sleep_ms=0",
		"atexit_sleep_ms=50":    "atexit_sleep_ms=50",
		"log_path=/tmp/r  ":     "log_path=/tmp/r   atexit_sleep_ms=0",
		"atexit_sleep_ms=0 a=1": "atexit_sleep_ms=0 a=1",
	} {
		if got := noWait(in); got != want {
			t.Errorf("noWait(%q) = %q, want %q", in, got, want)
		}
	}
}

// Children of the tests inherit GORACE without the wait.
func TestRunSetsChildrensGORACE(t *testing.T) {
	if !raceEnabled {
		t.Skip("built without -race")
	}
	if g := os.Getenv("GORACE"); !strings.Contains(g, "atexit_sleep_ms=") {
		t.Errorf("GORACE = %q after Run, want atexit_sleep_ms set", g)
	}
}

// childEnv makes this test binary a child that runs TestChild.
const childEnv = "IBID_TESTMAIN_CHILD"

// TestChild passes or fails as its parent asks; alone it does nothing.
func TestChild(t *testing.T) {
	if os.Getenv(childEnv) == "fail" {
		t.Fatal("failing as asked")
	}
}

// runChild runs this binary's TestChild with GORACE asking the race
// detector to wait 20 s at exit, and returns its exit status and time.
func runChild(t *testing.T, mode string) (int, time.Duration) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"="+mode, "GORACE=atexit_sleep_ms=20000")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	took := time.Since(start)
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, took
	case errors.As(err, &exit):
		return exit.ExitCode(), took
	}
	t.Fatalf("child: %v\n%s", err, out)
	return 0, 0
}

// A passing binary exits without the race detector's wait (20 s asked:
// the child takes well under 10 unless Exit waited); a failing one keeps
// its status.
func TestExit(t *testing.T) {
	code, took := runChild(t, "pass")
	if code != 0 {
		t.Fatalf("passing child exited %d", code)
	}
	if raceEnabled && took > 10*time.Second {
		t.Errorf("passing child took %v: it waited in the race detector's exit", took)
	}
	if code, _ := runChild(t, "fail"); code != 1 {
		t.Errorf("failing child exited %d, want 1", code)
	}
}
