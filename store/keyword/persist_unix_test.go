//go:build unix

package keyword

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A named pipe where the saved index belongs is an error at once (the
// store then rebuilds the index), never a wait for a writer.
func TestLoadFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bm25.idx")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Load(p)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a pipe loaded as an index")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Load hangs on a named pipe")
	}
}
