package modroot

import (
	"os"
	"path/filepath"
	"testing"
)

// Find: from a folder two levels under a module's root, the root; from
// the root itself, the root; from a folder in no module, none.
func TestFind(t *testing.T) {
	top := t.TempDir()
	root := filepath.Join(top, "repo")
	pkg := filepath.Join(root, "rag", "library")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{pkg, root} {
		if got, ok := Find(dir); !ok || got != root {
			t.Errorf("Find(%s) = %q, %v; want %s", dir, got, ok, root)
		}
	}
	if got, ok := Find(top); ok {
		t.Errorf("Find of a folder in no module = %q", got)
	}
	// This package's tests run in internal/modroot of ibid's module.
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := Here(); !ok || filepath.Join(got, "internal", "modroot") != wd {
		t.Errorf("Here() = %q, %v from %s", got, ok, wd)
	}
}
