//go:build unix

package embedded

import (
	"context"
	"errors"
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
	t.Parallel()
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

// A codes file cut under an open library (ibid never cuts it in place; a
// person or another program might) makes a dense query fail with an error
// that says what to do, instead of crashing the process; the library
// opened again answers as before.
func TestCodesCutWhileMapped(t *testing.T) {
	t.Parallel()
	dir, queries, want := codesLibrary(t, 5)
	lib := copyDir(t, dir)
	s, err := OpenDir(context.Background(), lib, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.codes.file == nil {
		t.Skip("the codes file is not mapped here")
	}
	if err := os.Truncate(filepath.Join(lib, codesName(1)), codesHeader); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Dense(context.Background(), queries[0], 10, store.Filter{}); !errors.Is(err, errCodesCut) {
		t.Fatalf("Dense over a cut codes file: %v", err)
	}
	again, err := OpenDir(context.Background(), lib, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	sameAnswers(t, again, queries, want)
}
