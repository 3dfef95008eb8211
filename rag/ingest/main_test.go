package ingest

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/ibid-dev/ibid/internal/shareddata"
	"github.com/ibid-dev/ibid/internal/testmain"
	"github.com/ibid-dev/ibid/rag/ingest/pdf"
	"github.com/ibid-dev/ibid/rag/ingest/pdf/pdftest"
	"github.com/ibid-dev/ibid/rag/ingest/tokens"
	"github.com/ibid-dev/ibid/store"
)

var update = flag.Bool("update", false, "rewrite the generated PDFs in testdata")

// sharedPDFDir holds the real PDFs (shareddata: ../shared/data/pdf beside
// the repository); tests that need them skip when it is absent.
var sharedPDFDir = filepath.Join(shareddata.Dir(), "pdf")

var (
	loaderOnce sync.Once
	loader     *Loader
)

// testLoader is one Loader shared by all tests, so pdfium is compiled once
// per test binary and its instances (whose memory grows with the largest
// page they held) are reused. Its compilation cache lives in the system's
// temporary directory, so later runs start warm. It reads scans with
// Tesseract at 150 DPI: what the tests check (a sentence, its page, that
// a blank page gives no text) holds as at 300, for a quarter of the
// pixels.
func testLoader(t testing.TB) *Loader {
	t.Helper()
	loaderOnce.Do(func() {
		loader = NewLoader(pdftest.EngineCache())
		loader.pdf.SetOCR(pdf.OCR{DPI: 150})
	})
	return loader
}

func TestMain(m *testing.M) {
	flag.Parse()
	pdftest.LeanHeap()
	code := testmain.Run(m)
	if loader != nil {
		if err := loader.Close(); err != nil {
			println("closing loader:", err.Error())
			code = 1
		}
	}
	testmain.Exit(code)
}

// generated are the testdata PDFs made by pdffixture_test.go.
var generated = map[string]func() []byte{
	"tiny.pdf":      pdftest.Tiny,
	"notext.pdf":    pdftest.NoText,
	"encrypted.pdf": pdftest.Encrypted,
	"corrupt.pdf":   pdftest.Corrupt,
}

func TestFixturesUpToDate(t *testing.T) {
	for name, gen := range generated {
		path := filepath.Join("testdata", name)
		want := gen()
		if *update {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is stale or missing (err %v); run go test -run TestFixturesUpToDate -update", path, err)
		}
	}
}

func load(t *testing.T, path string) *Loaded {
	t.Helper()
	ld, err := testLoader(t).Load(context.Background(), path)
	if err != nil {
		t.Fatalf("Load(%s): %v", path, err)
	}
	checkLoaded(t, path, ld, DefaultTokenBudget)
	return ld
}

// checkLoaded asserts the invariants documented on Loaded.
func checkLoaded(t *testing.T, path string, ld *Loaded, budget int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := ld.Document
	if d.Hash != HashBytes(data) || d.ID != DocumentID(d.Hash) || len(d.ID) != 16 {
		t.Errorf("hash/id = %s/%s, want from the file's bytes", d.Hash, d.ID)
	}
	if !filepath.IsAbs(d.Path) {
		t.Errorf("Path %q is not absolute", d.Path)
	}
	if d.Added != 0 {
		t.Errorf("Added = %d, want 0", d.Added)
	}
	if d.Segments != len(ld.Segments) || len(ld.Segments) == 0 {
		t.Fatalf("Document.Segments = %d, len(Segments) = %d", d.Segments, len(ld.Segments))
	}
	if d.Format == store.FormatPDF {
		if len(ld.PageStarts) != d.Pages || d.Pages == 0 || ld.PageStarts[0] != 0 || !slices.IsSorted(ld.PageStarts) {
			t.Errorf("PageStarts %v for %d pages", ld.PageStarts, d.Pages)
		}
	} else if ld.PageStarts != nil || d.Pages != 0 {
		t.Errorf("PageStarts %v, Pages %d in a %s file", ld.PageStarts, d.Pages, d.Format)
	}
	prevEnd := 0
	for i, s := range ld.Segments {
		if s.Index != i || s.ID != d.ID+":"+strconv.Itoa(i) || s.DocumentID != d.ID {
			t.Errorf("segment %d: index %d id %q doc %q", i, s.Index, s.ID, s.DocumentID)
		}
		if s.Start < prevEnd || s.End <= s.Start || s.End > len(ld.Text) {
			t.Fatalf("segment %d: offsets [%d,%d) after %d in text of %d bytes", i, s.Start, s.End, prevEnd, len(ld.Text))
		}
		if ld.Text[s.Start:s.End] != s.Text {
			t.Errorf("segment %d: Text[Start:End] != Text", i)
		}
		if strings.TrimSpace(s.Text) != s.Text || s.Text == "" {
			t.Errorf("segment %d: not trimmed or empty: %q", i, s.Text)
		}
		if n := tokens.Count(s.Text); n > budget {
			t.Errorf("segment %d: %d tokens > budget %d", i, n, budget)
		}
		if s.Vector != nil {
			t.Errorf("segment %d has a vector", i)
		}
		if d.Format == store.FormatPDF {
			if s.PageStart < 1 || s.PageEnd < s.PageStart || s.PageEnd > d.Pages {
				t.Errorf("segment %d: pages %d-%d of %d", i, s.PageStart, s.PageEnd, d.Pages)
			}
			if s.PageStart != pageAt(ld.PageStarts, s.Start) || s.PageEnd != pageAt(ld.PageStarts, s.End-1) {
				t.Errorf("segment %d: pages %d-%d disagree with PageStarts", i, s.PageStart, s.PageEnd)
			}
		} else if s.PageStart != 0 || s.PageEnd != 0 {
			t.Errorf("segment %d: pages %d-%d in a %s file", i, s.PageStart, s.PageEnd, d.Format)
		}
		prevEnd = s.End
	}
}

// checkSections asserts that every segment lies inside one section and
// carries its path.
func checkSections(t *testing.T, segs []store.Segment, secs []section) {
	t.Helper()
	for i, s := range segs {
		found := false
		for _, sec := range secs {
			if s.Start >= sec.start && s.End <= sec.end {
				found = true
				if !slices.Equal(s.Section, sec.path) && !(len(s.Section) == 0 && len(sec.path) == 0) {
					t.Errorf("segment %d: section %q, want %q", i, s.Section, sec.path)
				}
				break
			}
		}
		if !found {
			t.Errorf("segment %d [%d,%d) crosses a section boundary", i, s.Start, s.End)
		}
	}
}

func isSpaceOnly(s string) bool { return strings.TrimFunc(s, unicode.IsSpace) == "" }

func mustRead(p string) []byte {
	b, err := os.ReadFile(p)
	if err != nil {
		panic(err)
	}
	return b
}
