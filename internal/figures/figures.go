// Package figures gates measurement tests: tests that pin a figure (a
// recall, a hit rate, a cost per thousand chunks, a speed) over a sample
// large enough to take seconds to minutes. They keep every assertion, but
// the default `go test -race ./...` skips them so that a laptop runs the
// suite in a couple of minutes; CI (.ci/run) sets IBID_FIGURES=1 and runs
// them all.
//
// A measurement test starts with one line:
//
//	func TestSciFactFigures(t *testing.T) {
//		figures.Require(t)
//		...
//
// and its skip message names the command that runs it. A test that can
// pin its figure on a small sample as well should do both: the small
// sample always, the full one behind Require.
package figures

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/internal/modroot"
)

// Env is the environment variable that turns measurement tests on: any
// value but "" and "0". `go test` caches a package's result together
// with the variables it read, so a package's figures rerun when Env
// changes and other packages' cached results stand.
const Env = "IBID_FIGURES"

// Enabled reports whether measurement tests run (Env is set).
func Enabled() bool {
	v := os.Getenv(Env)
	return v != "" && v != "0"
}

// Require skips t unless measurement tests are enabled, with a message
// naming the command that runs it.
func Require(t testing.TB) {
	t.Helper()
	if Enabled() {
		return
	}
	t.Skip("measurement test (pins a figure; CI runs it): " + Command(t.Name()))
}

// Command is the command that runs the test named name (a subtest runs
// with its top-level test) in the working directory's package.
func Command(name string) string {
	return Env + "=1 go test -race -run '^" + topName(name) + "$' " + pkgDir()
}

// topName is the top-level test's name: a subtest's figures are gated by
// running its parent.
func topName(name string) string {
	if i := strings.IndexByte(name, '/'); i >= 0 {
		return name[:i]
	}
	return name
}

// pkgDir is the test's package as a ./path from the module's root (the
// folder holding go.mod above the working directory, which is the
// package's folder in a test), or "." when it cannot tell.
func pkgDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	root, ok := modroot.Find(wd)
	if !ok {
		return "."
	}
	rel, err := filepath.Rel(root, wd)
	if err != nil || rel == "." {
		return "."
	}
	return "./" + filepath.ToSlash(rel)
}
