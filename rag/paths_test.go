package rag

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ibid-dev/ibid/store"
)

func TestPaths(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", "/xdg/data")
	t.Setenv("XDG_CACHE_HOME", "/xdg/cache")
	if got := DataDir(); got != "/xdg/data/ibid" {
		t.Errorf("DataDir = %q", got)
	}
	if got := CacheDir(); got != "/xdg/cache/ibid" {
		t.Errorf("CacheDir = %q", got)
	}
	if got := LibraryDir("papers"); got != "/xdg/data/ibid/libraries/papers" {
		t.Errorf("LibraryDir = %q", got)
	}
	if want, _ := store.LibraryDir("papers"); LibraryDir("papers") != want {
		t.Errorf("LibraryDir = %q, store.LibraryDir = %q", LibraryDir("papers"), want)
	}

	// Unset or relative: under the home folder, as the XDG spec says.
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("XDG_CACHE_HOME", "relative/cache")
	if got := DataDir(); got != filepath.Join(home, ".local", "share", "ibid") {
		t.Errorf("DataDir without XDG_DATA_HOME = %q", got)
	}
	if got := CacheDir(); got != filepath.Join(home, ".cache", "ibid") {
		t.Errorf("CacheDir with a relative XDG_CACHE_HOME = %q", got)
	}
	if want, _ := store.LibraryDir("default"); LibraryDir("default") != want {
		t.Errorf("LibraryDir = %q, store.LibraryDir = %q", LibraryDir("default"), want)
	}
}

func TestLibraryDirNames(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", os.TempDir())
	for _, bad := range []string{"", ".", "..", "a/b", `a\b`, "../x", "/abs", "x\x00y"} {
		if got := LibraryDir(bad); got != "" {
			t.Errorf("LibraryDir(%q) = %q, want \"\"", bad, got)
		}
		if ValidLibraryName(bad) == nil {
			t.Errorf("ValidLibraryName(%q) accepted", bad)
		}
	}
	for _, good := range []string{"default", "thesis-2026", "papers.v2", "論文"} {
		if ValidLibraryName(good) != nil || LibraryDir(good) == "" {
			t.Errorf("%q refused", good)
		}
	}
}
