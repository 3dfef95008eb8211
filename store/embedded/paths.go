package embedded

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// LibraryDir is the folder of the library called name:
// $XDG_DATA_HOME/ibid/libraries/NAME, with XDG_DATA_HOME defaulting to
// ~/.local/share as the XDG base directory specification says. A name is one
// path element: not empty, no slashes, not "." or "..".
func LibraryDir(name string) (string, error) {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) || !filepath.IsLocal(name) {
		return "", fmt.Errorf("library name %q is not a plain name; use letters, digits, dashes", name)
	}
	data := os.Getenv("XDG_DATA_HOME")
	if data == "" || !filepath.IsAbs(data) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("couldn't find the data folder (set XDG_DATA_HOME): %w", err)
		}
		data = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(data, "ibid", "libraries", name), nil
}
