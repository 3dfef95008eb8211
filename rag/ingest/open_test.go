package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/store"
)

// skipReason returns the reason of err, a *SkipError, or fails.
func skipReason(t *testing.T, err error) string {
	t.Helper()
	var se *SkipError
	if !errors.As(err, &se) {
		t.Fatalf("error %v, want a *SkipError", err)
	}
	return se.Reason
}

// within runs f and fails if it does not return in d: the regression
// tests below would otherwise hang (a FIFO) or read gigabytes.
func within(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("still running after %v", d)
	}
}

func TestReadFileSparseOverLimitIsNotRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.txt")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	// 20 GB of holes: reading it would take minutes and all the memory.
	if err := f.Truncate(20 << 30); err != nil {
		f.Close()
		t.Skipf("no sparse files here: %v", err)
	}
	f.Close()
	within(t, 10*time.Second, func() {
		_, err := ReadFile(context.Background(), path, Limits{})
		r := skipReason(t, err)
		if r != "file too large (20.0 GB); ibid reads PDFs up to 256.0 MB and text files up to 64.0 MB: split the file, or raise the limit with --max-file-size" {
			t.Errorf("reason %q", r)
		}
	})
	// A lower limit applies by format: 2 KB of text over a 1 KB limit.
	small := filepath.Join(t.TempDir(), "small.md")
	os.WriteFile(small, []byte(strings.Repeat("text ", 400)), 0o644)
	_, err = ReadFile(context.Background(), small, Limits{MaxText: 1 << 10, MaxPDF: 1 << 20})
	if r := skipReason(t, err); !strings.HasPrefix(r, "file too large (2.0 KB)") {
		t.Errorf("reason %q", r)
	}
	if _, err := ReadFile(context.Background(), small, Limits{MaxText: 4 << 10}); err != nil {
		t.Errorf("within its limit: %v", err)
	}
}

// A large text file that is binary from its first bytes is refused from
// its head: a sparse gigabyte of NUL bytes is not read.
func TestReadFileBinaryFromHead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "zeros.txt")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil {
		f.Close()
		t.Skipf("no sparse files here: %v", err)
	}
	f.Close()
	within(t, 10*time.Second, func() {
		_, err := ReadFile(context.Background(), path, Limits{MaxText: 2 << 30})
		if r := skipReason(t, err); r != "binary file, not text (NUL byte at offset 0)" {
			t.Errorf("reason %q", r)
		}
	})
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Text longer than a read block, with a rune across the block edge and
	// a NUL far past the head: refused at the NUL's offset.
	text := strings.Repeat("é", readBlock/2+3) + "ok"
	p := write("long.txt", []byte(text))
	f, err := ReadFile(context.Background(), p, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if string(f.Data) != text || f.Hash != HashBytes([]byte(text)) || f.Format != store.FormatText || !filepath.IsAbs(f.Path) {
		t.Errorf("got %d bytes, hash %s, format %s, path %s", len(f.Data), f.Hash, f.Format, f.Path)
	}
	bad := []byte(text)
	bad[readBlock+6] = 0
	_, err = ReadFile(context.Background(), write("nul.md", bad), Limits{})
	if r := skipReason(t, err); r != "binary file, not text (NUL byte at offset 1048582)" {
		t.Errorf("reason %q", r)
	}
	bad[readBlock+6] = 0xFF
	_, err = ReadFile(context.Background(), write("latin.md", bad), Limits{})
	if r := skipReason(t, err); r != "invalid UTF-8 at byte offset 1048582; convert the file to UTF-8" {
		t.Errorf("reason %q", r)
	}
	// A truncated rune at the very end is invalid.
	_, err = ReadFile(context.Background(), write("cut.txt", []byte(text[:len(text)-3])), Limits{})
	if r := skipReason(t, err); !strings.HasPrefix(r, "invalid UTF-8 at byte offset") {
		t.Errorf("reason %q", r)
	}
	for name, want := range map[string]string{
		dir:                               "is a directory",
		filepath.Join(dir, "missing.txt"): "no such file or directory",
		write("empty.txt", nil):           "empty file",
		write("u16.txt", []byte{0xFF, 0xFE, 'a', 0}): "UTF-16 text; convert the file to UTF-8",
	} {
		_, err := ReadFile(context.Background(), name, Limits{})
		if r := skipReason(t, err); r != want {
			t.Errorf("%s: reason %q, want %q", name, r, want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ReadFile(ctx, p, Limits{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
