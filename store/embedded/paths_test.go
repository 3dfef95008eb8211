package embedded

import (
	"path/filepath"
	"testing"
)

func TestLibraryDir(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", "/data")
	got, err := LibraryDir("papers")
	if err != nil || got != filepath.Join("/data", "ibid", "libraries", "papers") {
		t.Fatalf("LibraryDir = %q, %v", got, err)
	}
	t.Setenv("XDG_DATA_HOME", "relative/ignored")
	t.Setenv("HOME", "/home/r")
	got, err = LibraryDir("default")
	if err != nil || got != filepath.Join("/home/r", ".local", "share", "ibid", "libraries", "default") {
		t.Fatalf("LibraryDir without XDG_DATA_HOME = %q, %v", got, err)
	}
	for _, bad := range []string{"", ".", "..", "a/b", `a\b`, "../x"} {
		if _, err := LibraryDir(bad); err == nil {
			t.Errorf("LibraryDir(%q) accepted", bad)
		}
	}
}
