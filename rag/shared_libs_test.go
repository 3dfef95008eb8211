package rag

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ibid-dev/ibid/internal/shareddata"
	"github.com/ibid-dev/ibid/rag/library"
)

// libraryEnv points the test's XDG folders at a temporary data folder
// and the package's shared cache (pdfium's compiled code).
func libraryEnv(t *testing.T) {
	t.Helper()
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("XDG_CACHE_HOME", filepath.Join(os.TempDir(), "ibid-rag-test-cache"))
}

// buildLibrary is a library in memory of the files under dir.
func buildLibrary(dir string) (*library.Library, error) {
	ctx := context.Background()
	l, err := library.Open(ctx, library.Options{InMemory: true})
	if err != nil {
		return nil, err
	}
	if _, err := l.Add(ctx, []string{dir}, nil); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

// freshLibrary is a library in memory of dir built for this test.
func freshLibrary(t *testing.T, dir string) *library.Library {
	t.Helper()
	libraryEnv(t)
	l, err := buildLibrary(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// sharedLibs are the libraries built once per test binary (adding docs/
// or the bundled PDFs takes seconds under -race), by folder. The tests
// that use them only read them; they live as long as the process.
var sharedLibs struct {
	mu sync.Mutex
	m  map[string]*sharedLib
}

type sharedLib struct {
	once sync.Once
	lib  *library.Library
	err  error
}

// sharedLibrary is the library in memory of dir shared by the package's
// tests (built by the first to ask); the test's XDG folders are its own.
func sharedLibrary(t *testing.T, dir string) *library.Library {
	t.Helper()
	libraryEnv(t)
	sharedLibs.mu.Lock()
	if sharedLibs.m == nil {
		sharedLibs.m = map[string]*sharedLib{}
	}
	s := sharedLibs.m[dir]
	if s == nil {
		s = &sharedLib{}
		sharedLibs.m[dir] = s
	}
	sharedLibs.mu.Unlock()
	s.once.Do(func() { s.lib, s.err = buildLibrary(dir) })
	if s.err != nil {
		t.Fatalf("a library of %s: %v", dir, s.err)
	}
	return s.lib
}

// sharedDocsLibrary is docsLibrary built once per test binary.
func sharedDocsLibrary(t *testing.T) *library.Library {
	t.Helper()
	return sharedLibrary(t, filepath.Join("..", "docs"))
}

// sharedPDFLibrary is pdfLibrary built once per test binary.
func sharedPDFLibrary(t *testing.T) *library.Library {
	t.Helper()
	return sharedLibrary(t, shareddata.Path(t, "pdf"))
}
