package regular

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/internal/fifotest"
)

// within fails t unless fn returns within d: a hang is the failure these
// tests look for.
func within(t *testing.T, d time.Duration, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("still blocked after %v", d)
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("twelve bytes"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(p, 12); err != nil || string(b) != "twelve bytes" {
		t.Fatalf("ReadFile = %q, %v", b, err)
	}
	if _, err := ReadFile(p, 11); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("a file over the bound: %v", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing"), 10); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a missing file: %v", err)
	}
	if _, err := ReadFile(dir, 10); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("a folder: %v", err)
	}
}

// A named pipe with no writer is refused at once: os.ReadFile would wait
// for a writer for ever.
func TestFIFORefused(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pipe")
	fifotest.MakeOrSkip(t, p)
	within(t, 5*time.Second, func() {
		_, err := ReadFile(p, 1<<20)
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("ReadFile of a FIFO: %v", err)
		}
		if err == nil || !contains(err.Error(), "a named pipe") {
			t.Errorf("the error does not say what it is: %v", err)
		}
		if _, _, err := OpenFile(p, os.O_RDWR, 0); !errors.Is(err, ErrNotRegular) {
			t.Errorf("OpenFile of a FIFO for writing: %v", err)
		}
	})
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
