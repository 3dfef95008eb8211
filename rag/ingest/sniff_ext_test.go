package ingest

import "testing"

// A Markdown file that quotes a PDF header near its top stays Markdown
// (docs/formats.md does, and was once skipped as a corrupt PDF).
func TestSniffMarkdownMentioningPDFHeader(t *testing.T) {
	head := []byte("# Formats\n\nA PDF starts with `%PDF-1.7`.\n")
	if f, ok := Sniff("formats.md", head); !ok || f != "markdown" {
		t.Fatalf("Sniff = %q, %v; want markdown", f, ok)
	}
	if f, ok := Sniff("paper.md", []byte("%PDF-1.4\n%...")); !ok || f != "pdf" {
		t.Fatalf("a real PDF named .md: Sniff = %q, %v; want pdf", f, ok)
	}
}
