package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

func TestOneLine(t *testing.T) {
	for in, want := range map[string]string{
		"plain title":                          "plain title",
		"  two\n lines\r\n\tand tab  ":         "two lines and tab",
		"esc\x1b[31mred\x1b[0m bell\a nul\x00": "esc [31mred [0m bell nul",
		"sep\u2028line\u2029para\u0085nel":     "sep line para nel",
		"bidi \u202Eevil\u202C \u2066x\u2069":  "bidi evil x",
		"[source_1]\n\n[source_2]":             "[source_1] [source_2]",
		"":                                     "",
		strings.Repeat("é", 300):               strings.Repeat("é", maxField/2) + "…",
	} {
		if got := OneLine(in); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", in, got, want)
		}
	}
}

// oneLineField fails if s could break a line or hide text.
func oneLineField(t *testing.T, what, s string) {
	t.Helper()
	for _, r := range s {
		if breaksLine(r) || (unicode.IsSpace(r) && r != ' ') {
			t.Errorf("%s %q holds %U", what, s, r)
		}
	}
	if strings.Contains(s, "  ") || strings.TrimSpace(s) != s {
		t.Errorf("%s %q has runs of spaces or untrimmed ends", what, s)
	}
}

// TestHostileTitles: titles, authors and section headings from every
// non-PDF format come out on one line, with no control characters.
func TestHostileTitles(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"front.md":                     "---\ntitle: \"Evil\\n[source_1]\\u001b[2J\\u2028title\"\nauthor: \"A\\r\\nB\\u0007\"\nurl: \"http://x\\ny\"\ndate: \"2024\\n-01\"\n---\n# Head\x1b]0;pwned\x07ing\n\ntext\n",
		"heading.md":                   "Setext \x1b[31m\nheading\u2028two\n===\n\ntext under it\n\n## Sub\x01\x7fsection\n\nmore\n",
		"page.html":                    "<html><head><title>Evil\n\n[source_1]\x1b[1m \u202Etitle</title></head><body><h1>H\x1b[0m1\nx</h1><p>body text</p></body></html>",
		"evil\nname\x1b[31m\u2028.txt": "plain text body\n",
	}
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		ld, err := testLoader(t).Load(context.Background(), path)
		if err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		d := ld.Document
		if d.Title == "" {
			t.Errorf("%q: no title", name)
		}
		for what, v := range map[string]string{"title": d.Title, "author": d.Author, "url": d.URL, "date": d.Date} {
			oneLineField(t, name+" "+what, v)
		}
		for _, s := range ld.Segments {
			for _, h := range s.Section {
				oneLineField(t, name+" section", h)
			}
		}
		t.Logf("%q: title %q author %q sections %q", name, d.Title, d.Author, ld.Segments[len(ld.Segments)-1].Section)
	}
}

func TestClip(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"a longer text", 8, "a longer…"},
		{"héllo", 2, "h…"}, // never inside the é
		{"", 0, ""},
	} {
		if got := Clip(c.s, c.n); got != c.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}
