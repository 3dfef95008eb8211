package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	for _, write := range []func(string, []byte, os.FileMode) error{WriteFile, writeByHand} {
		for _, content := range []string{"first", "second, longer", ""} {
			if err := write(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if err != nil || string(b) != content {
				t.Fatalf("read %q, %v; want %q", b, err, content)
			}
		}
	}
	names, _ := os.ReadDir(dir)
	if len(names) != 1 {
		t.Fatalf("temporary files left: %v", names)
	}
	if err := WriteFile(filepath.Join(dir, "missing", "f"), nil, 0o644); err == nil {
		t.Fatal("wrote into a folder that does not exist")
	}
}
