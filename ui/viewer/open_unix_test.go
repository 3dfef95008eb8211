//go:build unix

package viewer

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Opening a text document at its line reads the file to count lines: a
// named pipe where the document was is refused at once, not waited on.
func TestReadDocumentFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "notes.md")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := readDocument(p)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a pipe read as a document")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("reading a document hangs on a named pipe")
	}
}
