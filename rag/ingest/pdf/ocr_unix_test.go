//go:build unix

package pdf

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/internal/regular"
)

// A named pipe where a page's cached OCR belongs is refused at once: it
// used to be opened before it was looked at, which waits for a writer for
// ever.
func TestOCRCacheFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "doc-p1-eng-300.tsv")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := regular.ReadFile(p, maxOCRTSV)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a pipe read as a cached page")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("reading the OCR cache hangs on a named pipe")
	}
}
