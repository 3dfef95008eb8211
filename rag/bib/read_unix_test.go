//go:build unix

package bib

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A named pipe given as a bibliography (refs.bib) is refused at once, not
// waited on.
func TestReadFileFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "refs.bib")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, _, err := ReadFile(p)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "named pipe") {
			t.Fatalf("ReadFile of a pipe: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("reading a bibliography hangs on a named pipe")
	}
}
