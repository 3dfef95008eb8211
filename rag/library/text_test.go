package library

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/ibid-dev/ibid/internal/shareddata"
)

// TestDocumentPagesPDF: the ALCE paper (../shared/data) reloaded from its
// unchanged file gives one start per page, from 0, never decreasing, that
// agree with every passage's page range, and shows passages that the page
// turns inside; once the file changes, or is gone, the pages are not known.
func TestDocumentPagesPDF(t *testing.T) {
	data, err := os.ReadFile(shareddata.Path(t, "pdf", "alce-gao2023-citations.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	pdf := filepath.Join(testEnv(t), "alce.pdf")
	if err := os.WriteFile(pdf, data, 0o644); err != nil {
		t.Fatal(err)
	}
	l := mustOpen(t, Options{})
	mustAdd(t, l, pdf)
	doc, ok := docAt(t, l, pdf)
	if !ok {
		t.Fatal("the paper was not added")
	}
	ctx := context.Background()
	starts, exact, err := l.DocumentPages(ctx, doc.ID)
	if err != nil || !exact {
		t.Fatalf("DocumentPages: exact %v, %v", exact, err)
	}
	if len(starts) != doc.Pages || doc.Pages < 20 || starts[0] != 0 || !sort.IntsAreSorted(starts) {
		t.Fatalf("%d page starts for %d pages (first %v), want one a page from 0, never decreasing", len(starts), doc.Pages, starts[:min(len(starts), 1)])
	}
	_, ld, err := l.reload(ctx, doc.ID)
	if err != nil || ld == nil || starts[len(starts)-1] > len(ld.Text) {
		t.Fatalf("last page starts beyond the text, or the text did not load again: %v", err)
	}
	// page p holds the offsets [starts[p-1], starts[p]); a passage's pages
	// are those of its first and last byte
	pageOf := func(off int) int { return sort.Search(len(starts), func(i int) bool { return starts[i] > off }) }
	spanning := 0
	for _, s := range mustSegs(t, l, doc.ID) {
		if s.Parent != "" || s.Text == "" {
			continue
		}
		if ps, pe := pageOf(s.Start), pageOf(s.End-1); ps != s.PageStart || pe != s.PageEnd {
			t.Errorf("%s: pp. %d–%d by the page starts, %d–%d stored", s.ID, ps, pe, s.PageStart, s.PageEnd)
		}
		if s.PageEnd > s.PageStart {
			spanning++
		}
	}
	if spanning == 0 {
		t.Error("no passage of the ALCE paper spans pages: nothing here tests where the page turns")
	}

	if err := os.WriteFile(pdf, append(data, "\n% changed\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if starts, exact, err := l.DocumentPages(ctx, doc.ID); err != nil || exact || starts != nil {
		t.Errorf("changed file: %d starts, exact %v, %v; want none, not exact, no error", len(starts), exact, err)
	}
	if err := os.Remove(pdf); err != nil {
		t.Fatal(err)
	}
	if starts, exact, err := l.DocumentPages(ctx, doc.ID); err != nil || exact || starts != nil {
		t.Errorf("file gone: %d starts, exact %v, %v; want none, not exact, no error", len(starts), exact, err)
	}
	if _, _, err := l.DocumentPages(ctx, "no-such-doc"); err == nil {
		t.Error("an unknown document gave no error")
	}
}

// TestDocumentPagesText: a Markdown file has no pages; unchanged, it is
// still exact.
func TestDocumentPagesText(t *testing.T) {
	tmp := filepath.Join(testEnv(t), "docs")
	writeFiles(t, tmp, sampleNotes)
	l := mustOpen(t, Options{})
	mustAdd(t, l, tmp)
	doc, _ := docAt(t, l, filepath.Join(tmp, "plants.md"))
	if starts, exact, err := l.DocumentPages(context.Background(), doc.ID); err != nil || !exact || starts != nil {
		t.Errorf("Markdown: starts %v, exact %v, %v; want none, exact", starts, exact, err)
	}
}

// TestPagesFit: page starts a loader gives are checked before use.
func TestPagesFit(t *testing.T) {
	for _, c := range []struct {
		starts []int
		n      int
		want   bool
	}{
		{nil, 10, true},
		{[]int{0, 4, 4, 9}, 10, true}, // a page without text begins where the next does
		{[]int{0, 10}, 10, true},
		{[]int{1, 4}, 10, false},
		{[]int{0, 5, 4}, 10, false},
		{[]int{0, 11}, 10, false},
	} {
		if got := pagesFit(c.starts, c.n); got != c.want {
			t.Errorf("pagesFit(%v, %d) = %v", c.starts, c.n, got)
		}
	}
}
