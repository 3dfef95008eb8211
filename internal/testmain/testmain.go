// Package testmain runs a package's tests and ends its test binary
// without the race detector's wait at exit.
//
// A program built with -race sleeps a second when it exits with status 0
// (ThreadSanitizer's atexit_sleep_ms, 1000 by default), so that goroutines
// still running can report a race before the end. `go test -race ./...`
// pays that second once for every package's test binary and every child
// process a test starts, about fifty seconds of a slot on 2 cores that
// run nothing. The wait adds no check to a test binary: testing fails the
// run on every race it counted, during a test or outside one, before
// m.Run returns. Every package with tests has a TestMain that goes
// through Main (or Run and Exit); rooms_test.go checks it.
//
// Invariants: a failing run exits as os.Exit does; a run with coverage
// (go test -cover) exits as os.Exit does, so its counters are written;
// child processes the tests start keep the race detector's exit status
// (66 on a race), only without the wait.
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
