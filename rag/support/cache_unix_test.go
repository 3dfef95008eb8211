//go:build unix

package support

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A named pipe where a cached verdict belongs is a miss at once, never a
// wait for a writer.
func TestCacheFIFO(t *testing.T) {
	dir := t.TempDir()
	c := cache{dir}
	k := judgeKey("m", "a claim.", "a passage.")
	if err := os.MkdirAll(filepath.Dir(c.path(k)), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(c.path(k), 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	done := make(chan bool, 1)
	go func() {
		_, ok := c.get(k)
		done <- ok
	}()
	select {
	case ok := <-done:
		if ok {
			t.Fatal("a pipe read as a verdict")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the support cache hangs on a named pipe")
	}
}
