package ingest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/internal/unprivileged"
)

func TestExpand(t *testing.T) {
	dir := t.TempDir()
	mk := func(rel, content string) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := mk("lib/a.md", "a")
	b := mk("lib/sub/b.pdf", "b")
	c := mk("lib/c.txt", "c")
	mk("lib/.hidden.md", "h")
	mk("lib/.git/config", "g")
	z := mk("z.txt", "z")
	hidden := mk(".explicit.md", "e")
	if err := os.Symlink(a, filepath.Join(dir, "lib", "link.md")); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "lib", "link.md")
	if err := os.Symlink(filepath.Join(dir, "lib"), filepath.Join(dir, "lib", "sub", "loop")); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name    string
		args    []string
		files   []string
		skipped []string // reasons
	}{
		{"file", []string{z}, []string{z}, nil},
		{"dir recursive, hidden skipped, lexical", []string{filepath.Join(dir, "lib")}, []string{a, c, link, b}, nil},
		{"glob", []string{filepath.Join(dir, "lib", "*.md")}, []string{a, link}, nil},
		{"glob matching a dir", []string{filepath.Join(dir, "l?b")}, []string{a, c, link, b}, nil},
		{"explicit hidden file", []string{hidden}, []string{hidden}, nil},
		{"duplicates dropped, argument order kept", []string{z, filepath.Join(dir, "lib"), c, z}, []string{z, a, c, link, b}, nil},
		{"missing", []string{filepath.Join(dir, "nope.md"), z}, []string{z}, []string{"no such file or directory"}},
		{"glob with no match", []string{filepath.Join(dir, "*.docx")}, nil, []string{"no files match this pattern"}},
		{"bad pattern", []string{filepath.Join(dir, "[")}, nil, []string{"bad pattern: syntax error in pattern"}},
		{"not regular", []string{os.DevNull}, nil, []string{"not a regular file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files, skipped := Expand(tt.args)
			if !slices.Equal(files, tt.files) {
				t.Errorf("files\n got %q\nwant %q", files, tt.files)
			}
			var reasons []string
			for _, s := range skipped {
				reasons = append(reasons, s.Reason)
				if !strings.HasPrefix(s.Error(), s.Path+": ") {
					t.Errorf("Error() = %q", s.Error())
				}
			}
			if !slices.Equal(reasons, tt.skipped) {
				t.Errorf("skipped %q, want %q", reasons, tt.skipped)
			}
		})
	}
}

func TestExpandUnreadableDir(t *testing.T) {
	if unprivileged.Rerun(t, nil) { // root reads everything: test as nobody
		return
	}
	dir := t.TempDir()
	locked := filepath.Join(dir, "locked")
	os.Mkdir(locked, 0o755)
	os.WriteFile(filepath.Join(locked, "x.md"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "ok.md"), []byte("ok"), 0o644)
	os.Chmod(locked, 0o000)
	defer os.Chmod(locked, 0o755)
	if _, err := os.ReadDir(locked); err == nil {
		t.Fatal("a folder of mode 000 can be read: permissions are not enforced here")
	}
	files, skipped := Expand([]string{dir})
	if len(files) != 1 || filepath.Base(files[0]) != "ok.md" {
		t.Errorf("files %q", files)
	}
	if len(skipped) != 1 || skipped[0].Path != locked || !strings.HasPrefix(skipped[0].Reason, "permission denied") {
		t.Errorf("skipped %v", skipped)
	}
}
