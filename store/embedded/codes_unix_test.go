//go:build unix

package embedded

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/store"
)

// A named pipe in place of the codes file (a cache) is never waited on: a
// read-only open computes the codes from the vectors and answers as the
// intact library does, and a writable one puts a codes file there.
func TestCodesFIFO(t *testing.T) {
	dir, queries, want := codesLibrary(t, 4)
	lib := copyDir(t, dir)
	path := filepath.Join(lib, codesName(1))
	os.Remove(path)
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	within(t, 60*time.Second, func() {
		ro, err := OpenDir(context.Background(), lib, store.Options{ReadOnly: true})
		if err != nil {
			t.Error(err)
			return
		}
		if err := ro.Damage(); err != nil {
			t.Errorf("read-only: %v", err)
		}
		sameAnswers(t, ro, queries, want)
		ro.Close()
		s, err := openTest(lib, codesInfo)
		if err != nil {
			t.Error(err)
			return
		}
		sameAnswers(t, s, queries, want)
		s.Close()
	})
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("after a writable open the codes file is %v, %v", fi.Mode(), err)
	}
}
