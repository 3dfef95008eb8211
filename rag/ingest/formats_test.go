package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/store"
)

// TestExtensionsTable: every row is sniffed as its format, every text
// format has a loader, and the user documentation lists every extension.
func TestExtensionsTable(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "formats.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range Extensions() {
		if got, ok := Sniff("file"+e.Ext, []byte("some text")); !ok || got != e.Format {
			t.Errorf("Sniff(%s) = %q, %v; want %q", e.Ext, got, ok, e.Format)
		}
		if (e.parse == nil) != (e.Format == store.FormatPDF) {
			t.Errorf("%s: loader %v", e.Ext, e.parse != nil)
		}
		if !strings.Contains(string(doc), "`"+e.Ext+"`") {
			t.Errorf("docs/formats.md does not list %s", e.Ext)
		}
		if !strings.Contains(SupportedList(), e.Ext) {
			t.Errorf("SupportedList() lacks %s", e.Ext)
		}
	}
	if _, ok := Sniff("file.docx", []byte("text")); ok {
		t.Error(".docx sniffed as supported")
	}
}
