// Package argstub makes stand-in programs for tests: a shell script that
// records the arguments it is run with, one a line, so that a test can
// check exactly what a command ran (a PDF viewer, an editor) without
// running the real one.
package argstub

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Script writes an executable script named name into a new folder (dir)
// that appends its arguments, one a line, to the file record.
func Script(t testing.TB, name string) (dir, script, record string) {
	t.Helper()
	dir = t.TempDir()
	record = filepath.Join(dir, "args.txt")
	script = filepath.Join(dir, name)
	body := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\" >> '" + record + "'; done\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, script, record
}

// Args are the arguments recorded in record; the test fails when the
// script never ran.
func Args(t testing.TB, record string) []string {
	t.Helper()
	b, err := os.ReadFile(record)
	if err != nil {
		t.Fatalf("the stub program was not run: %v", err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// Wait waits up to five seconds for the script to have recorded something
// (a program started by another goroutine); the test fails when it never
// does.
func Wait(t testing.TB, record string) {
	t.Helper()
	for range 500 {
		if st, err := os.Stat(record); err == nil && st.Size() > 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s was never written", record)
}
