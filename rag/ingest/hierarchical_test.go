package ingest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/rag/ingest/tokens"
	"github.com/ibid-dev/ibid/store"
)

// realInputs are real documents to re-chunk: ibid's own docs/*.md, and
// the PDFs of ../shared/data/pdf when they are there.
func realInputs(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no docs/*.md (err %v)", err)
	}
	pdfs, _ := filepath.Glob(filepath.Join(sharedPDFDir, "*.pdf"))
	if len(pdfs) == 0 {
		t.Logf("no PDFs in %s: testing Markdown only", sharedPDFDir)
	}
	return append(paths, pdfs...)
}

// loadOrSkip is load, skipping the test for a file Load skips (a PDF
// without extractable text). Each file is loaded once per test binary
// (the real documents are loaded by two tests; a PDF takes seconds
// under -race) and the test gets a copy whose segments and metadata it
// may change (see cloneLoaded: strategies replace those, never edit the
// text, sections or boxes in place).
func loadOrSkip(t *testing.T, path string) *Loaded {
	t.Helper()
	s := sharedLoadOf(t, path)
	var skipErr *SkipError
	if errors.As(s.err, &skipErr) {
		t.Skip(skipErr)
	}
	if s.err != nil {
		t.Fatalf("Load(%s): %v", path, s.err)
	}
	checkLoaded(t, path, s.ld, DefaultTokenBudget)
	return cloneLoaded(s.ld)
}

// checkLayout asserts the layout documented on Loaded: passages first, in
// reading order, exact, trimmed, within one section of the loaded
// document, pages from PageStarts; then index rows, each naming a passage
// as its parent and lying inside it. It returns P.
func checkLayout(t *testing.T, l *Loaded) int {
	t.Helper()
	d := l.Document
	if d.Segments != len(l.Segments) || len(l.Segments) == 0 {
		t.Fatalf("Document.Segments = %d, len(Segments) = %d", d.Segments, len(l.Segments))
	}
	p := 0
	for p < len(l.Segments) && l.Segments[p].Parent == "" {
		p++
	}
	want := ""
	if p < len(l.Segments) {
		want = strconv.Itoa(p)
	}
	if d.Meta[MetaPassages] != want {
		t.Errorf("Meta[passages] = %q, want %q", d.Meta[MetaPassages], want)
	}
	prevEnd := 0
	for i, s := range l.Segments {
		if s.Index != i || s.ID != d.ID+":"+strconv.Itoa(i) || s.DocumentID != d.ID {
			t.Fatalf("segment %d: index %d id %q doc %q", i, s.Index, s.ID, s.DocumentID)
		}
		if s.Text != "" && (s.Start < 0 || s.End > len(l.Text) || s.Start >= s.End || l.Text[s.Start:s.End] != s.Text) {
			t.Fatalf("segment %d: Text[%d:%d] != Segment.Text", i, s.Start, s.End)
		}
		if len(l.PageStarts) > 0 && s.Text != "" {
			if s.PageStart != pageAt(l.PageStarts, s.Start) || s.PageEnd != pageAt(l.PageStarts, s.End-1) {
				t.Errorf("segment %d: pages %d-%d disagree with PageStarts", i, s.PageStart, s.PageEnd)
			}
		} else if len(l.PageStarts) == 0 && (s.PageStart != 0 || s.PageEnd != 0) {
			t.Errorf("segment %d: pages %d-%d without pages", i, s.PageStart, s.PageEnd)
		}
		if i < p {
			if s.Text == "" || strings.TrimSpace(s.Text) != s.Text {
				t.Errorf("passage %d empty or not trimmed: %q", i, s.Text)
			}
			if s.Start < prevEnd {
				t.Fatalf("passage %d starts at %d, before the end %d of the one before", i, s.Start, prevEnd)
			}
			prevEnd = s.End
			continue
		}
		if s.Parent == "" {
			t.Fatalf("segment %d: a passage after the index rows", i)
		}
		k, err := strconv.Atoi(strings.TrimPrefix(s.Parent, d.ID+":"))
		if err != nil || !strings.HasPrefix(s.Parent, d.ID+":") || k < 0 || k >= p {
			t.Fatalf("row %d: parent %q is not a passage of %s", i, s.Parent, d.ID)
		}
		par := l.Segments[k]
		if s.Text != "" && (s.Start < par.Start || s.End > par.End) {
			t.Errorf("row %d [%d,%d) outside its parent [%d,%d)", i, s.Start, s.End, par.Start, par.End)
		}
		if !slices.Equal(s.Section, par.Section) {
			t.Errorf("row %d: section %q, parent's %q", i, s.Section, par.Section)
		}
	}
	return p
}

// checkHeadings asserts that no passage of l crosses a heading: every
// loaded section a passage overlaps has the passage's Section path.
func checkHeadings(t *testing.T, l *Loaded, passages []store.Segment) {
	t.Helper()
	for i, s := range passages {
		for _, sec := range l.sections {
			if sec.start < s.End && s.Start < sec.end && !slices.Equal(sec.path, s.Section) && (len(sec.path) > 0 || len(s.Section) > 0) {
				t.Errorf("passage %d [%d,%d) %q overlaps section [%d,%d) %q", i, s.Start, s.End, s.Section, sec.start, sec.end, sec.path)
			}
		}
	}
}

// checkHierarchical asserts what MakeHierarchical promises about after,
// made from before (a copy of the Loaded it was given).
func checkHierarchical(t *testing.T, before, after *Loaded, budget int) {
	t.Helper()
	p := checkLayout(t, after)
	rows := after.Segments[p:]
	checkHeadings(t, after, after.Segments[:p])
	if after.Document.Meta[MetaStrategy] != "hierarchical" || p == len(after.Segments) {
		t.Fatalf("strategy %q, %d passages of %d segments", after.Document.Meta[MetaStrategy], p, len(after.Segments))
	}
	if len(rows) != len(before.Segments) {
		t.Fatalf("%d rows for %d chunks", len(rows), len(before.Segments))
	}
	for k, c := range before.Segments {
		r := rows[k]
		if r.Text != c.Text || r.Start != c.Start || r.End != c.End || !slices.Equal(r.Section, c.Section) || r.PageStart != c.PageStart || r.PageEnd != c.PageEnd {
			t.Fatalf("row %d is not chunk %d", p+k, k)
		}
	}
	// Children of a parent are consecutive and span it exactly.
	first := make([]int, p)
	last := make([]int, p)
	for i := range first {
		first[i] = -1
	}
	prevParent := 0
	for k, r := range rows {
		n, _ := strconv.Atoi(r.Parent[len(after.Document.ID)+1:])
		if n < prevParent || n > prevParent+1 || (k == 0 && n != 0) {
			t.Fatalf("row %d: parent %d after parent %d", p+k, n, prevParent)
		}
		prevParent = n
		if first[n] < 0 {
			first[n] = k
		}
		last[n] = k
	}
	if prevParent != p-1 {
		t.Fatalf("the last row's parent is %d of %d", prevParent, p)
	}
	for i, par := range after.Segments[:p] {
		if par.Start != rows[first[i]].Start || par.End != rows[last[i]].End {
			t.Errorf("parent %d [%d,%d) is not its children's span [%d,%d)", i, par.Start, par.End, rows[first[i]].Start, rows[last[i]].End)
		}
		if n := tokens.Count(par.Text); n > budget && first[i] != last[i] {
			t.Errorf("parent %d: %d tokens > %d with %d children", i, n, budget, last[i]-first[i]+1)
		}
		// As few parents as the budget allows: no two neighbours of one
		// section would fit together.
		if i > 0 && slices.Equal(after.Segments[i-1].Section, par.Section) {
			if n := tokens.Count(after.Text[after.Segments[i-1].Start:par.End]); n <= budget {
				t.Errorf("parents %d and %d would fit together (%d tokens ≤ %d)", i-1, i, n, budget)
			}
		}
	}
}

// cloneLoaded is a copy of l whose segments and metadata can change
// without changing l's.
func cloneLoaded(l *Loaded) *Loaded {
	c := *l
	c.Segments = slices.Clone(l.Segments)
	c.Document.Meta = maps.Clone(l.Document.Meta)
	return &c
}

func TestHierarchicalRealDocuments(t *testing.T) {
	for _, path := range realInputs(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			l := loadOrSkip(t, path)
			before := cloneLoaded(l)
			MakeHierarchical(l, 0)
			checkHierarchical(t, before, l, DefaultParentBudget)
			p, _ := strconv.Atoi(l.Document.Meta[MetaPassages])
			t.Logf("%d chunks → %d parents", len(before.Segments), p)
			if len(before.Segments) > 20 && p >= len(before.Segments) {
				t.Errorf("%d parents for %d chunks: nothing grouped", p, len(before.Segments))
			}
		})
	}
}

// paragraphOf is a paragraph of about n tokens of plain words, different
// for each seed.
func paragraphOf(seed, n int) string {
	var b strings.Builder
	for i := 0; tokens.Count(b.String()) < n-8; i++ {
		fmt.Fprintf(&b, "Word%d item%d goes here. ", seed, i)
	}
	return strings.TrimSpace(b.String())
}

func TestHierarchicalBalancesParents(t *testing.T) {
	// One section of seven paragraphs of about 290 tokens: greedy packing
	// would make parents of six paragraphs and one; balanced, four and
	// three. Then a section of one short paragraph.
	var b strings.Builder
	b.WriteString("# Long\n\n")
	for i := range 7 {
		b.WriteString(paragraphOf(i, 290) + "\n\n")
	}
	b.WriteString("# Short\n\nOne line.\n")
	l, err := testLoader(t).LoadBytes(context.Background(), filepath.Join(t.TempDir(), "balance.md"), []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Segments) != 8 {
		t.Fatalf("%d chunks, want 8 (one per paragraph)", len(l.Segments))
	}
	before := cloneLoaded(l)
	MakeHierarchical(l, 0)
	checkHierarchical(t, before, l, DefaultParentBudget)
	if l.Document.Meta[MetaPassages] != "3" {
		t.Fatalf("passages = %q, want 3", l.Document.Meta[MetaPassages])
	}
	children := map[string]int{}
	for _, r := range l.Segments[3:] {
		children[r.Parent]++
	}
	id := l.Document.ID
	if children[id+":0"]+children[id+":1"] != 7 || children[id+":0"] < 3 || children[id+":1"] < 3 || children[id+":2"] != 1 {
		t.Errorf("children per parent %v, want 3 or 4, 4 or 3, then 1", children)
	}
	if s := l.Segments[2]; s.Text != "# Short\n\nOne line." || !slices.Equal(s.Section, []string{"Short"}) {
		t.Errorf("the short section's parent is %q in %q", s.Text, s.Section)
	}
	for i := range 2 {
		if n := tokens.Count(l.Segments[i].Text); n < 800 {
			t.Errorf("parent %d holds %d tokens: unbalanced", i, n)
		}
	}
}

func TestHierarchicalSmallBudgetAndMeta(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "design.md")
	l := load(t, path)
	l.Document.Meta = map[string]string{"kept": "yes"}
	before := cloneLoaded(l)
	MakeHierarchical(l, 500)
	checkHierarchical(t, before, l, 500)
	if l.Document.Meta["kept"] != "yes" || before.Document.Meta[MetaStrategy] != "" {
		t.Errorf("meta %v (before %v): want the old keys kept and the old map untouched", l.Document.Meta, before.Document.Meta)
	}
	// A budget below a chunk's size: each chunk is a parent of its own.
	l = cloneLoaded(before)
	MakeHierarchical(l, 1)
	if p, _ := strconv.Atoi(l.Document.Meta[MetaPassages]); p != len(before.Segments) {
		t.Errorf("budget 1: %d parents for %d chunks", p, len(before.Segments))
	}
	checkLayout(t, l)
}

func TestHierarchicalByHandUsesSectionPaths(t *testing.T) {
	// A Loaded built without Load's sections: runs of equal Section paths
	// are the sections.
	text := "alpha one.\n\nalpha two.\n\nbeta one."
	l := &Loaded{Document: store.Document{ID: "d", Segments: 3}, Text: text}
	for i, sp := range []struct {
		start, end int
		sec        string
	}{{0, 10, "A"}, {12, 22, "A"}, {24, 33, "B"}} {
		l.Segments = append(l.Segments, store.Segment{ID: "d:" + strconv.Itoa(i), DocumentID: "d", Index: i, Text: text[sp.start:sp.end], Start: sp.start, End: sp.end, Section: []string{sp.sec}})
	}
	before := cloneLoaded(l)
	MakeHierarchical(l, 0)
	checkHierarchical(t, before, l, DefaultParentBudget)
	if got := l.Segments[0].Text; got != "alpha one.\n\nalpha two." || l.Segments[1].Text != "beta one." {
		t.Errorf("parents %q, %q", got, l.Segments[1].Text)
	}
	defer func() {
		if recover() == nil {
			t.Error("MakeHierarchical on index rows did not panic")
		}
	}()
	MakeHierarchical(l, 0)
}
