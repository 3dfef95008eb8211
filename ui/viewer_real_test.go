package ui

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/charmbracelet/x/ansi"
	"github.com/ibid-dev/ibid/internal/shareddata"
	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/ingest/pdf/pdftest"
	"github.com/ibid-dev/ibid/rag/library"
	"github.com/ibid-dev/ibid/ui/backend"
	"github.com/ibid-dev/ibid/ui/viewer"
)

// TestViewerRealPDF opens the viewer on a passage of the ALCE paper
// (../shared/data) that spans two pages, through a real library: goldens
// at 80×24 and 160×48, the marker of the page it runs into drawn where
// that page's text begins (the library's page starts, from the unchanged
// file), no line wider than the viewer. It skips when the data is absent.
func TestViewerRealPDF(t *testing.T) {
	pdf := shareddata.Path(t, "pdf", "alce-gao2023-citations.pdf")
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("XDG_CACHE_HOME", pdftest.CacheHome(t)) // pdfium compiled once, not per test
	ctx := context.Background()
	lib, err := library.Open(ctx, library.Options{Name: "viewertest", InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	if _, err := lib.Add(ctx, []string{pdf}, func(library.AddProgress) {}); err != nil {
		t.Fatal(err)
	}
	b := backend.NewRAG(lib, nil, rag.PipelineOptions{}, nil, nil)
	docs, err := lib.Documents(ctx)
	if err != nil || len(docs) != 1 {
		t.Fatalf("%d documents, %v", len(docs), err)
	}
	segs := b.Segments(docs[0].ID)
	cited := -1
	for i, s := range segs {
		if i >= 2 && s.PageEnd == s.PageStart+1 {
			cited = i
			break
		}
	}
	if cited < 0 {
		t.Fatalf("no passage of the ALCE paper spans two pages")
	}
	seg, doc, ok := b.Segment(segs[cited].ID)
	if !ok {
		t.Fatalf("segment %s not found", segs[cited].ID)
	}
	starts := b.DocumentPages(doc.ID)
	if len(starts) != doc.Pages {
		t.Fatalf("%d page starts for %d pages", len(starts), doc.Pages)
	}
	// the words the page's text begins with, as the viewer reflows them: a
	// page that begins inside a word (hyphenated across the turn) begins
	// at the next word
	off := starts[seg.PageEnd-1] - seg.Start
	words := strings.Fields(seg.Text[off:])
	if off > 0 && !unicode.IsSpace(rune(seg.Text[off-1])) && !unicode.IsSpace(rune(seg.Text[off])) {
		words = words[1:]
	}
	firstWords := strings.Join(words[:3], " ")
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		w, h := size[0], size[1]
		v := viewer.New(defaultKeyMap().viewer(), newStyles(true).Viewer, viewer.Settings{})
		v.SetSize(w, h)
		doc.Path = "/papers/" + filepath.Base(doc.Path) // the golden does not depend on where the test runs
		v.Load(viewer.Content{Source: rag.Source{Number: 1, SegmentID: seg.ID, Title: doc.Title}, Doc: doc, Segs: segs, PageStarts: starts})
		scr := ansi.Strip(v.View())
		golden(t, fmt.Sprintf("viewer_%dx%d", w, h), scr)
		for i, l := range strings.Split(scr, "\n") {
			if ansi.StringWidth(l) > w {
				t.Errorf("%dx%d line %d is wider than the viewer: %q", w, h, i, l)
			}
		}
		marker := "── " + rag.Pages(seg.PageEnd, seg.PageEnd) + " ─"
		rows := strings.Split(scr, "\n")
		at := -1
		for i, l := range rows {
			if strings.Contains(l, marker) {
				at = i
			}
		}
		if at < 0 || at+1 == len(rows) || !strings.HasPrefix(strings.TrimLeft(rows[at+1], "▌█ "), firstWords) {
			t.Errorf("%dx%d: want the %q marker right above %q:\n%s", w, h, marker, firstWords, scr)
		}
		if strings.Contains(scr, "into ") {
			t.Errorf("%dx%d: a passage marked as a whole though its page starts are known:\n%s", w, h, scr)
		}
	}
}
