//go:build unix

package ingest

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestReadFileFIFOIsSkipped(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.txt")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("real text"), 0o644); err != nil {
		t.Fatal(err)
	}
	within(t, 10*time.Second, func() {
		_, err := ReadFile(context.Background(), fifo, Limits{})
		if r := skipReason(t, err); r != "not a regular file (a named pipe); ibid reads regular files only" {
			t.Errorf("reason %q", r)
		}
		// A folder holding it: the pipe is left out, the text file read.
		files, skipped := Expand([]string{dir})
		if len(files) != 1 || filepath.Base(files[0]) != "a.txt" || len(skipped) != 0 {
			t.Errorf("Expand = %q, %v", files, skipped)
		}
		for _, f := range files {
			if _, err := testLoader(t).Load(context.Background(), f); err != nil {
				t.Error(err)
			}
		}
	})
}
