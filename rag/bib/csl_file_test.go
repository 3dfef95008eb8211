package bib

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// AddToCSLFile creates the file (and its folder), then adds only the
// works it lacks, keeping what it holds as it was; a file that is not a
// CSL JSON array is refused (ErrNotCSL) and left untouched; CheckCSLFile
// says the same before anything is written.
func TestAddToCSLFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "new", "refs.json")
	if err := CheckCSLFile(path); err != nil {
		t.Fatalf("a missing file: %v", err)
	}
	gao := Entry{Key: "gao2023", Type: "article-journal", Title: "Enabling LLMs to Cite", Year: "2023", Authors: []Name{{Family: "Gao", Given: "Tianyu"}}}
	lee := Entry{Key: "lee2020", Title: "Spring Tides", Year: "2020"}
	if n, err := AddToCSLFile(path, []Entry{gao}); err != nil || n != 1 {
		t.Fatalf("first add: %d, %v", n, err)
	}
	entries, _, err := ParseCSL(mustRead(t, path))
	if err != nil || len(entries) != 1 || entries[0].Key != "gao2023" || entries[0].Title != gao.Title {
		t.Fatalf("written: %+v, %v", entries, err)
	}
	// An item written by hand, with fields ibid does not know, is kept.
	hand := `[{"id": "mine", "type": "book", "title": "Mine", "x-note": "kept"}]`
	if err := os.WriteFile(path, []byte(hand), 0o644); err != nil {
		t.Fatal(err)
	}
	if n, err := AddToCSLFile(path, []Entry{lee, lee, {Key: "mine", Title: "Another"}}); err != nil || n != 1 {
		t.Fatalf("second add: %d, %v", n, err)
	}
	got := string(mustRead(t, path))
	if !strings.Contains(got, `"x-note": "kept"`) || !strings.Contains(got, `"id": "lee2020"`) || strings.Contains(got, "Another") {
		t.Errorf("after the second add:\n%s", got)
	}
	notCSL := filepath.Join(dir, "notes.json")
	if err := os.WriteFile(notCSL, []byte(`{"notes": true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := AddToCSLFile(notCSL, []Entry{gao}); !errors.Is(err, ErrNotCSL) || !strings.Contains(err.Error(), notCSL+" exists and is not a CSL JSON array") {
		t.Errorf("a JSON object: %v", err)
	}
	if err := CheckCSLFile(notCSL); !errors.Is(err, ErrNotCSL) {
		t.Errorf("CheckCSLFile of a JSON object: %v", err)
	}
	if string(mustRead(t, notCSL)) != `{"notes": true}` {
		t.Error("a file that is not CSL JSON was changed")
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A file that is not a CSL JSON array is refused in words a person can
// act on: what it holds instead, or where its JSON breaks; never Go's
// type names.
func TestNotCSLSaysWhy(t *testing.T) {
	for _, c := range []struct{ content, want string }{
		{`{"notes": true}`, "it holds a JSON object, not an array of items"},
		{`"refs"`, "it holds a JSON string, not an array of items"},
		{"[\n  {\"id\": \"a\"},\n  {\"id\": }\n]", "it is not valid JSON (line 3, column"},
	} {
		_, _, err := MergeCSL([]byte(c.content), nil)
		if !errors.Is(err, ErrNotCSL) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "Go value") {
			t.Errorf("%q: %v, want %q", c.content, err, c.want)
		}
	}
}
