// Package testmain ends a test binary without the race detector's
// one-second wait at exit.
//
// A program built with -race that exits with status 0 sleeps a second
// (ThreadSanitizer's atexit_sleep_ms) in racefini, so that goroutines
// still running can report a race. `go test -race ./...` pays it once per
// package and once per child process a test starts, with nothing run.
// What is lost by skipping it: a race that a goroutine left running
// after the last test would have reported in that second. That is safe:
// testing fails the run on every race it counted, in a test or outside
// one, before m.Run returns, so a passing m.Run saw none. Children keep
// racefini (and its exit status 66 on a race), without the wait.
// rooms_test.go checks every package's TestMain goes through here.
package testmain

import (
	"os"
	"strings"
	"syscall"
	"testing"
)

// Main runs m's tests and exits with their status: the TestMain of a
// package with nothing to do before or after its tests.
func Main(m *testing.M) {
	Exit(Run(m))
}

// Run runs m's tests and returns their exit status, for a TestMain that
// cleans up after them and then calls Exit. Child processes the tests
// start from now on (with the environment of this one) skip the race
// detector's wait at exit: GORACE gains atexit_sleep_ms=0 unless it sets
// that option itself.
func Run(m *testing.M) int {
	if raceEnabled {
		os.Setenv("GORACE", noWait(os.Getenv("GORACE")))
	}
	return m.Run()
}

// noWait is the GORACE options gorace with atexit_sleep_ms=0 added,
// unless they set it.
func noWait(gorace string) string {
	if strings.Contains(gorace, "atexit_sleep_ms=") {
		return gorace
	}
	return strings.TrimSpace(gorace + " atexit_sleep_ms=0")
}

// Exit ends the test binary with code: at once when the tests passed
// under the race detector without coverage, otherwise through os.Exit.
func Exit(code int) {
	if code == 0 && raceEnabled && testing.CoverMode() == "" {
		syscall.Exit(0) // not os.Exit: it would wait in the race detector's exit
	}
	os.Exit(code)
}
