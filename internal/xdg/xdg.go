// Package xdg finds ibid's folders by the XDG base directory specification:
// data (libraries) under $XDG_DATA_HOME/ibid, default ~/.local/share/ibid,
// and caches under $XDG_CACHE_HOME/ibid, default ~/.cache/ibid. A variable
// that is unset or not an absolute path is ignored, as the specification
// says.
package xdg

import (
	"fmt"
	"os"
	"path/filepath"
)

// DataDir is ibid's data folder: $XDG_DATA_HOME/ibid, or
// ~/.local/share/ibid. It is not created.
func DataDir() (string, error) {
	return dir("XDG_DATA_HOME", filepath.Join(".local", "share"))
}

// CacheDir is ibid's cache folder: $XDG_CACHE_HOME/ibid, or ~/.cache/ibid,
// or, without a home folder, ibid-cache in the system's temporary folder
// (what is cached can always be made again). It is not created.
func CacheDir() string {
	d, err := dir("XDG_CACHE_HOME", ".cache")
	if err != nil {
		return filepath.Join(os.TempDir(), "ibid-cache")
	}
	return d
}

func dir(env, underHome string) (string, error) {
	base := os.Getenv(env)
	if base == "" || !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return "", fmt.Errorf("couldn't find the home folder (set %s or HOME): %w", env, err)
		}
		base = filepath.Join(home, underHome)
	}
	return filepath.Join(base, "ibid"), nil
}
