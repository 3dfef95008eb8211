package ingest

import (
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/rag/ingest/pdf/pdftest"
)

// A paper's abstract goes to its document's metadata, exactly as the first
// passage holds it, and stops where the first section begins.
func TestPDFAbstractInMetadata(t *testing.T) {
	ld := loadShared(t, "alce-gao2023-citations.pdf")
	abs := ld.Document.Meta[MetaAbstract]
	if !strings.HasPrefix(abs, "Large language models (LLMs) have emerged") || !strings.HasSuffix(strings.TrimRight(abs, "0123456789¹²³⁴⁵⁶⁷⁸⁹⁰"), "the ability to synthesize information from multiple sources.") {
		t.Errorf("abstract %q", abs)
	}
	if strings.Contains(abs, "Introduction") || strings.Contains(abs, "Tianyu Gao") {
		t.Errorf("abstract holds more than the abstract: %q", abs)
	}
	if !strings.Contains(ld.Segments[0].Text, abs) && !strings.Contains(ld.Text, abs) {
		t.Errorf("abstract is not the document's text")
	}
}

// Running headers and footers leave the passages but stay with the
// document, each once.
func TestPDFRunningHeadsInMetadata(t *testing.T) {
	ld := loadBytes(t, "paper.pdf", pdftest.TwoColumnPaper())
	if got := ld.Document.Meta[MetaRunningHeads]; got != "Fixture Journal of Layout, Vol. 1" {
		t.Errorf("running heads %q", got)
	}
	if strings.Contains(ld.Text, "Fixture Journal") {
		t.Error("the running header is in the text")
	}
}
