//go:build unix

package llm

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A named pipe where a cached answer belongs is a miss at once, never a
// wait for a writer.
func TestCacheFIFO(t *testing.T) {
	t.Parallel()
	c := Cache{Dir: t.TempDir()}
	const k = "0123abcd"
	if err := os.MkdirAll(filepath.Dir(c.Path(k)), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(c.Path(k), 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	done := make(chan bool, 1)
	go func() {
		_, ok := c.Get(k, 1<<10)
		done <- ok
	}()
	select {
	case ok := <-done:
		if ok {
			t.Fatal("a pipe read as an answer")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the cache hangs on a named pipe")
	}
}
