//go:build unix

package mmap

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestAnon(t *testing.T) {
	if _, ok := Anon(0, false); ok {
		t.Error("Anon(0) succeeded; want the caller to allocate nothing on the heap instead")
	}
	for _, populate := range []bool{false, true} {
		b, ok := Anon(1<<16+3, populate)
		if !ok {
			t.Fatalf("Anon(populate %v) refused", populate)
		}
		if len(b) != 1<<16+3 {
			t.Fatalf("len %d, want %d", len(b), 1<<16+3)
		}
		if i := bytes.IndexFunc(b, func(r rune) bool { return r != 0 }); i >= 0 {
			t.Fatalf("byte %d not zero", i)
		}
		for i := range b {
			b[i] = byte(i)
		}
		if b[1<<16+2] != 2 { // (1<<16+2) % 256
			t.Fatal("a write did not stay")
		}
		Release(b)
	}
}

func TestFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	want := bytes.Repeat([]byte("codes "), 2000)
	if err := os.WriteFile(path, want, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if b := File(f, 0); b != nil {
		t.Error("File(0) mapped something")
	}
	b := File(f, 100)
	if !bytes.Equal(b, want[:100]) {
		t.Fatalf("the first 100 bytes mapped are %q", b)
	}
	Release(b)
	b = File(f, int64(len(want)))
	if !bytes.Equal(b, want) {
		t.Fatal("the whole file mapped differs from it")
	}
	Release(b)
}
