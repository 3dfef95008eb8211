// Package fifotest makes named pipes for tests of what ibid does when a
// file is swapped for one (never waits on it, says what it is). Tests
// skip where the system has none.
package fifotest

import (
	"errors"
	"testing"
)

// ErrUnsupported is Make's error where the system has no named pipes.
var ErrUnsupported = errors.New("no named pipes on this system")

// MakeOrSkip makes a named pipe at path, or skips the test where the
// system cannot make one.
func MakeOrSkip(t testing.TB, path string) {
	t.Helper()
	if err := Make(path); err != nil {
		t.Skipf("no named pipe at %s: %v", path, err)
	}
}
