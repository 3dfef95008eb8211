package ingest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/internal/unprivileged"
	"github.com/ibid-dev/ibid/rag/ingest/pdf"
	"github.com/ibid-dev/ibid/store"
)

func TestLoadFormats(t *testing.T) {
	tests := []struct {
		file                  string
		format                store.Format
		title, author         string
		url, date             string
		sections              [][]string // distinct section paths in order
		contains, notContains []string
		textStartsWith        string
	}{
		{
			file: "notes.md", format: "markdown", title: "Field Notes on Citations",
			author: "Ada Lovelace, Charles Babbage", url: "https://example.org/notes", date: "2024-03-01",
			sections: [][]string{nil, {"Citations"}, {"Citations", "Numbering"}, {"Citations", "Setext Heading"}, {"Second Part"}, {"Second Part", "Deep"}},
			contains: []string{"Intro paragraph", "Deep text, three levels down."}, notContains: []string{"footnotes", "title:"},
			textStartsWith: "Intro paragraph",
		},
		{
			file: "untitled.md", format: "markdown", title: "The First H1 Title",
			sections: [][]string{nil, {"The First H1 Title"}, {"Another H1"}},
		},
		{
			file: "noheading.md", format: "markdown", title: "noheading",
			sections: [][]string{nil}, contains: []string{"It uses Windows line ends."}, notContains: []string{"\r"},
		},
		{
			file: "plain.txt", format: "text", title: "plain",
			sections: [][]string{nil}, contains: []string{"Third paragraph."},
		},
		{file: "NOTES", format: "text", title: "NOTES", sections: [][]string{nil}},
		{
			file: "page.html", format: "html", title: "An HTML Page",
			sections: [][]string{{"Main Heading"}, {"Main Heading", "Sub Heading"}},
			contains: []string{"[a link](https://example.org)", "**bold**", "item two"}, notContains: []string{"script text", "color: red", "<p>"},
		},
		{
			file: "chinese.md", format: "markdown", title: "引用",
			sections: [][]string{{"引用"}, {"引用", "方法"}}, contains: []string{"当然可以。"},
		},
		{
			file: "tiny.pdf", format: "pdf", title: "A Tiny Test PDF", author: "Ibid Tester",
			sections: [][]string{nil, {"1 Introduction"}, {"2 Method"}},
			contains: []string{"It has two sentences.", "describes the method."}, textStartsWith: "Tiny Test Document",
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("testdata", tt.file)
			ld := load(t, path)
			d := ld.Document
			if d.Format != tt.format || d.Title != tt.title || d.Author != tt.author || d.URL != tt.url || d.Date != tt.date {
				t.Errorf("got format %q title %q author %q url %q date %q\nwant %q %q %q %q %q",
					d.Format, d.Title, d.Author, d.URL, d.Date, tt.format, tt.title, tt.author, tt.url, tt.date)
			}
			var paths [][]string
			for _, s := range ld.Segments {
				if len(paths) == 0 || !slices.Equal(paths[len(paths)-1], s.Section) {
					paths = append(paths, s.Section)
				}
			}
			if len(paths) != len(tt.sections) {
				t.Errorf("section paths %q, want %q", paths, tt.sections)
			} else {
				for i := range paths {
					if !slices.Equal(paths[i], tt.sections[i]) {
						t.Errorf("section %d = %q, want %q", i, paths[i], tt.sections[i])
					}
				}
			}
			for _, c := range tt.contains {
				if !strings.Contains(ld.Text, c) {
					t.Errorf("text lacks %q:\n%s", c, ld.Text)
				}
			}
			for _, c := range tt.notContains {
				if strings.Contains(ld.Text, c) {
					t.Errorf("text has %q:\n%s", c, ld.Text)
				}
			}
			if !strings.HasPrefix(ld.Text, tt.textStartsWith) {
				t.Errorf("text starts %q, want %q", ld.Text[:min(40, len(ld.Text))], tt.textStartsWith)
			}
		})
	}
}

// A heading starts its own segment: its section's first segment begins
// with the heading line.
func TestMarkdownSegmentStartsAtHeading(t *testing.T) {
	ld := load(t, filepath.Join("testdata", "notes.md"))
	for _, want := range []string{"# Citations", "## Numbering", "Setext Heading\n---", "# Second Part", "### Deep"} {
		found := false
		for _, s := range ld.Segments {
			if strings.HasPrefix(s.Text, want) {
				found = true
			}
		}
		if !found {
			t.Errorf("no segment starts with %q", want)
		}
	}
	p := parseMarkdown(ld.Text)
	checkSections(t, ld.Segments, p.sections)
}

func TestLoadDeterministic(t *testing.T) {
	for _, f := range []string{"notes.md", "page.html", "tiny.pdf"} {
		a := load(t, filepath.Join("testdata", f))
		b := load(t, filepath.Join("testdata", f))
		if !reflect.DeepEqual(a.Document, b.Document) || a.Text != b.Text {
			t.Errorf("%s: documents differ", f)
		}
		if !slices.EqualFunc(a.Segments, b.Segments, func(x, y store.Segment) bool {
			return x.ID == y.ID && x.Text == y.Text && x.Start == y.Start && x.End == y.End && slices.Equal(x.Section, y.Section)
		}) {
			t.Errorf("%s: segments differ between loads", f)
		}
	}
	// LoadBytes on the same bytes is Load.
	path := filepath.Join("testdata", "notes.md")
	a, err := testLoader(t).LoadBytes(context.Background(), path, mustRead(path))
	if err != nil || !reflect.DeepEqual(a, load(t, path)) {
		t.Errorf("LoadBytes differs from Load (err %v)", err)
	}
	// Same bytes under another name: same document id.
	dir := t.TempDir()
	data, _ := os.ReadFile(filepath.Join("testdata", "notes.md"))
	copyPath := filepath.Join(dir, "copy.md")
	os.WriteFile(copyPath, data, 0o644)
	if a, b := load(t, filepath.Join("testdata", "notes.md")), load(t, copyPath); a.Document.ID != b.Document.ID || a.Segments[0].ID != b.Segments[0].ID {
		t.Errorf("same bytes, different ids: %s %s", a.Document.ID, b.Document.ID)
	}
	// One changed byte: another id.
	data[len(data)-2] = 'X'
	os.WriteFile(copyPath, data, 0o644)
	if a, b := load(t, filepath.Join("testdata", "notes.md")), load(t, copyPath); a.Document.ID == b.Document.ID {
		t.Errorf("changed file kept id %s", a.Document.ID)
	}
}

func TestLoadBadInput(t *testing.T) {
	dir := t.TempDir()
	// A PDF without text is read with OCR when Tesseract is installed
	// (its blank page gives no text); without it, skipped with the
	// command that installs it.
	noText := pdf.ReasonNoText
	if _, err := exec.LookPath("tesseract"); err != nil {
		noText = pdf.ReasonNoTesseract
	}
	unreadable := filepath.Join(dir, "secret.txt")
	os.WriteFile(unreadable, []byte("hidden"), 0o000)
	tests := []struct {
		path, reason string
	}{
		{"testdata/empty.txt", "empty file"},
		{"testdata/blank.md", "empty file (only whitespace)"},
		{"testdata/frontmatter-only.md", "no text (only front matter, markup or whitespace)"},
		{"testdata/notext.html", "no text (only front matter, markup or whitespace)"},
		{"testdata/latin1.txt", "invalid UTF-8 at byte offset 3; convert the file to UTF-8"},
		{"testdata/utf16.txt", "UTF-16 text; convert the file to UTF-8"},
		{"testdata/blob", "binary file, not text (NUL byte at offset 3)"},
		{"testdata/image.png", `unsupported file type ".png"; ibid reads ` + SupportedList()},
		{"testdata/report.docx", `unsupported file type ".docx"; ibid reads ` + SupportedList()},
		{"testdata/fake.pdf", "corrupt PDF (pdfium cannot parse it)"},
		{"testdata/corrupt.pdf", "corrupt PDF (pdfium cannot parse it)"},
		{"testdata/encrypted.pdf", "encrypted PDF (needs a password); save an unencrypted copy to add it"},
		{"testdata/notext.pdf", noText},
		{"testdata/missing.md", "no such file or directory"},
		{"testdata", "is a directory"},
		{unreadable, "permission denied; check the file's permissions"},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.path), func(t *testing.T) {
			if tt.path == unreadable {
				if runtime.GOOS == "windows" {
					t.Skip("no Unix permissions")
				}
				if unprivileged.Rerun(t, nil) { // root reads everything: test as nobody
					return
				}
			}
			ld, err := testLoader(t).Load(context.Background(), tt.path)
			var se *SkipError
			if !errors.As(err, &se) {
				t.Fatalf("Load = %v, %v; want a *SkipError", ld, err)
			}
			if se.Path != tt.path || se.Reason != tt.reason {
				t.Errorf("got %q, want %q", se.Error(), tt.path+": "+tt.reason)
			}
			if se.Error() != se.Path+": "+se.Reason || strings.Contains(se.Reason, "\n") {
				t.Errorf("Error() = %q", se.Error())
			}
		})
	}
}

func TestSniff(t *testing.T) {
	tests := []struct {
		path, head string
		format     store.Format
		ok         bool
	}{
		{"a.pdf", "anything", "pdf", true},
		{"a", "%PDF-1.7\n", "pdf", true},
		{"a.bin", "junk\n%PDF-1.4\n", "pdf", true},
		{"a.MD", "# x", "markdown", true},
		{"a.markdown", "", "markdown", true},
		{"a.txt", "x", "text", true},
		{"a.HTM", "x", "html", true},
		{"README", "plain words", "text", true},
		{"README", "  <!DOCTYPE html><html>", "html", true},
		{"README", "\xef\xbb\xbf<html><body>", "html", true},
		{"README", "bin\x00ary", "", false},
		{"README", "caf\xe9 au lait", "", false},
		{"README", "cut rune \xe6\x97", "text", true}, // head ends inside a rune
		{".bashrc", "export X=1", "text", true},
		{"a.go", "package main", "", false},
		{"a.png", "\x89PNG", "", false},
	}
	for _, tt := range tests {
		f, ok := Sniff(tt.path, []byte(tt.head))
		if f != tt.format || ok != tt.ok {
			t.Errorf("Sniff(%q, %q) = %q, %v; want %q, %v", tt.path, tt.head, f, ok, tt.format, tt.ok)
		}
	}
}
