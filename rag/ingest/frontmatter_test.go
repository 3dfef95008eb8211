package ingest

import (
	"strings"
	"testing"
)

func TestFrontMatter(t *testing.T) {
	tests := []struct {
		in   string
		meta map[string]string
		body string
		note string // a substring of the note, "" for none
	}{
		{"no front matter", nil, "no front matter", ""},
		{"---\ntitle: A\n---\nbody", map[string]string{"title": "A"}, "body", ""},
		{"---\nTitle: 'It''s'\nAuthor: \"Q \\\"R\\\"\"\n...\nbody\n", map[string]string{"title": "It's", "author": `Q "R"`}, "body\n", ""},
		{"---\nauthors:\n  - A\n  - B\nurl: http://x/y # comment\n---\n", map[string]string{"authors": "A, B", "url": "http://x/y"}, "", ""},
		{"---\nauthor: [A, 'B']\nnested:\n  key: v\n---\nx", map[string]string{"author": "A, B"}, "x", ""},
		// Block scalars: folded and literal.
		{"---\ntitle: >\n  A long title\n  over two lines\nsummary: |\n  kept\n  as is\n---\nx", map[string]string{"title": "A long title over two lines", "summary": "kept\nas is"}, "x", ""},
		// Authors as maps, as Pandoc and Quarto write them; a date.
		{"---\nauthor:\n  - name: Ada Lovelace\n    affiliation: X\n  - name: Charles Babbage\ndate: 2024-03-01\n---\nx", map[string]string{"author": "Ada Lovelace, Charles Babbage", "date": "2024-03-01"}, "x", ""},
		{"---\ntitle: \"Colons: fine when quoted\"\nyear: 2023\ndraft: false\n---\nx", map[string]string{"title": "Colons: fine when quoted", "year": "2023", "draft": "false"}, "x", ""},
		// Invalid YAML: the body is kept, the note says what to do.
		{"---\ntitle: Notes: part 2\n---\nbody", nil, "body", `quote values that hold ": "`},
		// Aliases do not expand (a "billion laughs" stays small).
		{"---\na: &a [x, x, x]\nb: &b [*a, *a, *a]\nc: [*b, *b, *b]\ntitle: T\n---\nx", map[string]string{"a": "x, x, x", "title": "T"}, "x", ""},
		{"---\nnot closed\n", nil, "---\nnot closed\n", ""},
		{"--- \ntitle: no\n---\n", nil, "--- \ntitle: no\n---\n", ""},
		{"---\n" + strings.Repeat("k: v\n", maxFrontMatter/4) + "---\nx", nil, "x", "not read"},
	}
	for _, tt := range tests {
		meta, body, note := frontMatter(tt.in)
		if body != tt.body || len(meta) != len(tt.meta) {
			t.Errorf("frontMatter(%.80q) = %q, %q; want %q, %q", tt.in, meta, body, tt.meta, tt.body)
			continue
		}
		for k, v := range tt.meta {
			if meta[k] != v {
				t.Errorf("frontMatter(%.80q)[%s] = %q, want %q", tt.in, k, meta[k], v)
			}
		}
		if (tt.note == "") != (note == "") || !strings.Contains(note, tt.note) {
			t.Errorf("frontMatter(%.80q) note %q, want one with %q", tt.in, note, tt.note)
		}
	}
	// Authors fall back from "authors".
	p := parseMarkdown("---\nauthors: [A, B]\n---\n# T\nx")
	if p.author != "A, B" || p.title != "T" {
		t.Errorf("author %q title %q", p.author, p.title)
	}
}
