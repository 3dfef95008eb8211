//go:build unix

package library

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The PDF engine's compiler cache (under XDG_CACHE_HOME) opens its entries
// as they are, and would wait for ever on a named pipe: before the loader
// is made, anything in the cache that is not a regular file or a folder is
// swept away, and the real entries are kept.
func TestPDFCacheSwept(t *testing.T) {
	tmp := testEnv(t)
	cache := filepath.Join(tmp, "cache")
	t.Setenv("XDG_CACHE_HOME", cache)
	dir := filepath.Join(cache, "ibid", "wazero", "wazero-v1-amd64-linux")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	entry, pipe, link := filepath.Join(dir, "0123abcd"), filepath.Join(dir, "4567ef01"), filepath.Join(dir, "89ab")
	if err := os.WriteFile(entry, []byte("compiled"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(pipe, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	if err := os.Symlink(pipe, link); err != nil {
		t.Fatal(err)
	}
	l := mustOpen(t, Options{})
	l.getLoader()
	for _, p := range []string{pipe, link} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s is still in the cache", filepath.Base(p))
		}
	}
	if b, err := os.ReadFile(entry); err != nil || string(b) != "compiled" {
		t.Errorf("the real entry: %q, %v", b, err)
	}
}

// A bibliography's attachment that is a named pipe is judged unreadable
// at once, not waited on.
func TestAttachmentFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "paper.pdf")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	done := make(chan string, 1)
	go func() { done <- readable(p) }()
	select {
	case why := <-done:
		if !strings.Contains(why, "unreadable") {
			t.Fatalf("readable(pipe) = %q", why)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("looking at an attachment hangs on a named pipe")
	}
}
