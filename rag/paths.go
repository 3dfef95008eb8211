package rag

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// DataDir is ibid's data folder: $XDG_DATA_HOME/ibid, with XDG_DATA_HOME
// defaulting to ~/.local/share as the XDG base directory specification says
// (a relative XDG_DATA_HOME is ignored, as the specification asks). Without
// a home folder it falls back to ibid/data under the system's temp folder.
func DataDir() string {
	return xdgDir("XDG_DATA_HOME", filepath.Join(".local", "share"), "data")
}

// CacheDir is ibid's cache folder: $XDG_CACHE_HOME/ibid, with
// XDG_CACHE_HOME defaulting to ~/.cache. What is in it can be deleted at any
// time (it holds, for instance, the PDF engine's compilation cache).
func CacheDir() string {
	return xdgDir("XDG_CACHE_HOME", ".cache", "cache")
}

func xdgDir(env, underHome, fallback string) string {
	base := os.Getenv(env)
	if base == "" || !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return filepath.Join(os.TempDir(), "ibid", fallback)
		}
		base = filepath.Join(home, underHome)
	}
	return filepath.Join(base, "ibid")
}

// LibraryDir is the folder of the library called name:
// DataDir()/libraries/NAME (the same folder store.LibraryDir names). It
// returns "" when name is not a valid library name (see ValidLibraryName).
func LibraryDir(name string) string {
	if ValidLibraryName(name) != nil {
		return ""
	}
	return filepath.Join(DataDir(), "libraries", name)
}

// ValidLibraryName reports why name cannot name a library: a name is one
// path element, not empty, with no slashes, not "." or "..".
func ValidLibraryName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) ||
		!filepath.IsLocal(name) || strings.ContainsRune(name, 0) {
		return fmt.Errorf("library name %q is not a plain name; use letters, digits, dashes (e.g. --library papers)", name)
	}
	return nil
}
