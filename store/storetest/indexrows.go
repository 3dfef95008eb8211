package storetest

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/store"
	"github.com/ibid-dev/ibid/store/keyword"
)

// The index rows rule (see store.Segment): a hit on an index row stands for
// its parent; parents are read like any segment but never searched.

// row is one segment of a fixture: its text, keyword text, parent index
// (-1: none), section and page.
type row struct {
	text, index string
	parent      int
	section     string
	page        int
}

// indexed builds document id from rows, in order; every segment, parents
// included, gets a non-zero vector, so that a backend that searched
// parents would find them.
func indexed(id string, rows []row) store.Put {
	d := store.Document{ID: id, Path: "/papers/" + id + ".pdf", Hash: "h-" + id, Title: "Paper " + id, Format: store.FormatPDF,
		Pages: 4, Added: 1700000000}
	segs := make([]store.Segment, len(rows))
	off := 0
	for i, r := range rows {
		segs[i] = store.Segment{ID: id + ":" + strconv.Itoa(i), DocumentID: id, Index: i, Text: r.text, IndexText: r.index,
			PageStart: r.page, PageEnd: r.page, Start: off, End: off + len(r.text),
			Vector: Vector(id+"/indexed", i, testInfo.Dimension)}
		if r.section != "" {
			segs[i].Section = []string{r.section}
		}
		if r.parent >= 0 {
			segs[i].Parent = id + ":" + strconv.Itoa(r.parent)
		}
		off += len(r.text) + 1
	}
	d.Meta = map[string]string{"passages": strconv.Itoa(passages(rows))}
	return store.Put{Document: d, Segments: segs}
}

func passages(rows []row) int {
	n := 0
	for _, r := range rows {
		if r.parent < 0 {
			n++
		}
	}
	return n
}

// hierarchical is a document of two parents followed by their children,
// the hierarchical strategy's shape. "overview" and "summary" are only in
// the parents; every other word of a parent is in one of its children too.
func hierarchical(id string) store.Put {
	return indexed(id, []row{
		{text: "Methods overview. We measured mitochondria in cells. The cohort was large.", parent: -1, section: "Methods", page: 1},
		{text: "Results summary. Zebrafish grew quickly. Ribosome counts rose.", parent: -1, section: "Results", page: 3},
		{text: "We measured mitochondria in cells.", parent: 0, section: "Methods", page: 1},
		{text: "The cohort was large.", parent: 0, section: "Methods", page: 2},
		{text: "Zebrafish grew quickly.", parent: 1, section: "Results", page: 3},
		{text: "Ribosome counts rose.", parent: 1, section: "Results", page: 3},
	})
}

// questioned is a document of two chunks followed, per chunk, by a row
// mirroring it and a generated question (no Text, only IndexText), the
// questions strategy's shape.
func questioned(id string) store.Put {
	p := indexed(id, []row{
		{text: "Aspirin reduces fever in adults.", parent: -1, section: "Drugs", page: 2},
		{text: "Ibuprofen relieves pain after surgery.", parent: -1, section: "Drugs", page: 4},
		{text: "Aspirin reduces fever in adults.", parent: 0, section: "Drugs", page: 2},
		{index: "Which drug lowers a temperature?", parent: 0, section: "Drugs", page: 2},
		{text: "Ibuprofen relieves pain after surgery.", parent: 1, section: "Drugs", page: 4},
		{index: "What helps with headaches after surgery?", parent: 1, section: "Drugs", page: 4},
	})
	for _, m := range [][2]int{{2, 0}, {3, 0}, {4, 1}, {5, 1}} { // rows share their chunk's offsets
		p.Segments[m[0]].Start, p.Segments[m[0]].End = p.Segments[m[1]].Start, p.Segments[m[1]].End
	}
	return p
}

// plainMito is a document of plain segments only.
func plainMito(id string) store.Put {
	p := custom(id, "/notes/"+id+".txt", []string{"Mitochondria are organelles; the overview of cells.", "Zebrafish are fish."},
		[][]string{{"Methods"}, nil}, [][2]int{{1, 1}, {3, 3}})
	p.Document.Added = 1700000000
	return p
}

// stored is p as a store gives it back: parents' vectors are not kept.
func stored(t testing.TB, p store.Put) store.Put {
	t.Helper()
	parent, err := store.Parents(p.Segments)
	if err != nil {
		t.Fatal(err)
	}
	out := p
	out.Segments = slices.Clone(p.Segments)
	for i := range out.Segments {
		if parent[i] {
			out.Segments[i].Vector = make([]float32, testInfo.Dimension)
		}
	}
	return out
}

// indexFilters are filters that admit some index rows and not others.
var indexFilters = []store.Filter{
	{},
	{Documents: []string{"h"}},
	{Documents: []string{"*.pdf"}},
	{Section: "methods"},
	{Section: "drugs"},
	{PageFrom: 2, PageTo: 3},
	{Documents: []string{"q"}, PageFrom: 4},
}

// checkIndexRows fails unless st holds exactly the documents of puts,
// whole (parents read like any segment), and searches them by the rule:
// Dense and Keyword return index rows and plain segments, never parents,
// under every filter, and the term statistics leave parents out.
func checkIndexRows(t testing.TB, st store.Store, puts ...store.Put) {
	t.Helper()
	ctx := context.Background()
	docs := map[string]store.Document{}
	var searchable, parents []store.Segment
	total := 0
	for _, p := range puts {
		checkDoc(t, st, stored(t, p))
		d, _ := st.Document(ctx, p.Document.ID)
		docs[d.ID] = d
		parent, _ := store.Parents(p.Segments)
		for i, s := range p.Segments {
			s.Vector = nil
			if parent[i] {
				parents = append(parents, s)
			} else {
				searchable = append(searchable, s)
			}
		}
		total += len(p.Segments)
	}
	if n := length(t, st); n != total {
		t.Fatalf("Len = %d, want %d (parents count)", n, total)
	}
	isParent := func(id string) bool {
		return slices.ContainsFunc(parents, func(s store.Segment) bool { return s.ID == id })
	}
	admitted := func(f store.Filter) []string {
		var ids []string
		for _, s := range searchable {
			d := docs[s.DocumentID]
			if f.Match(&d, &s) {
				ids = append(ids, s.ID)
			}
		}
		slices.Sort(ids)
		return ids
	}
	for _, f := range indexFilters {
		// A parent's own vector is the query: it would be the best hit.
		for _, p := range puts {
			parent, _ := store.Parents(p.Segments)
			for i := range p.Segments {
				if !parent[i] {
					continue
				}
				hits, err := st.Dense(ctx, p.Segments[i].Vector, 1000, f)
				if err != nil {
					t.Fatalf("Dense %+v: %v", f, err)
				}
				ordered(t, "Dense", hits)
				got := hitIDs(hits)
				slices.Sort(got)
				if want := admitted(f); !slices.Equal(got, want) {
					t.Fatalf("Dense (query: parent %s's vector) filter %+v: %v, want the index rows and plain segments %v",
						p.Segments[i].ID, f, got, want)
				}
			}
		}
		// Every segment's keyword text as the query: a parent shares
		// words with its children, so only the rule keeps it out.
		for _, s := range append(slices.Clone(searchable), parents...) {
			q := s.KeywordText()
			hits, err := st.Keyword(ctx, q, 1000, f)
			if err != nil {
				t.Fatalf("Keyword(%q) %+v: %v", q, f, err)
			}
			ordered(t, "Keyword", hits)
			for _, h := range hits {
				if isParent(h.Segment.ID) {
					t.Fatalf("Keyword(%q) filter %+v returned parent %s", q, f, h.Segment.ID)
				}
				if d := docs[h.Segment.DocumentID]; !f.Match(&d, &h.Segment) {
					t.Fatalf("Keyword(%q) filter %+v returned %s, which it does not admit", q, f, h.Segment.ID)
				}
			}
			d := docs[s.DocumentID]
			if !isParent(s.ID) && f.Match(&d, &s) && !slices.Contains(hitIDs(hits), s.ID) {
				t.Fatalf("Keyword(%q) filter %+v: %v, missing %s, whose own keyword text it is", q, f, hitIDs(hits), s.ID)
			}
		}
	}
	// Hits are whole segments: an index row's parent, Text and IndexText.
	for _, s := range searchable {
		if s.Parent == "" {
			continue
		}
		hits, err := st.Keyword(ctx, s.KeywordText(), 1000, store.Filter{Documents: []string{s.DocumentID}})
		if err != nil {
			t.Fatal(err)
		}
		i := slices.Index(hitIDs(hits), s.ID)
		if i < 0 || !reflect.DeepEqual(hits[i].Segment, s) {
			t.Fatalf("Keyword hit for %s = %+v, want %+v", s.ID, hits, s)
		}
	}
	if tc, ok := st.(store.TermCounter); ok {
		var terms []string
		for _, s := range append(slices.Clone(searchable), parents...) {
			terms = append(terms, keyword.Tokenize(s.KeywordText())...)
		}
		slices.Sort(terms)
		terms = slices.Compact(terms)
		want := make([]int, len(terms))
		for i, term := range terms {
			for _, s := range searchable {
				if slices.Contains(keyword.Tokenize(s.KeywordText()), term) {
					want[i]++
				}
			}
		}
		df, n, err := tc.DocFreq(ctx, terms)
		if err != nil || n != len(searchable) || !slices.Equal(df, want) {
			t.Fatalf("DocFreq(%q) = %v, %d, %v; want %v, %d (parents not counted)", terms, df, n, err, want, len(searchable))
		}
	}
}

func testIndexRows(t *testing.T, h Harness) {
	ctx := context.Background()
	st, loc := fresh(t, h)
	hier, ques, plain := hierarchical("h"), questioned("q"), plainMito("p")
	update(t, st, []store.Put{hier, ques, plain})
	checkIndexRows(t, st, hier, ques, plain)

	// What only a parent says is not found; the same words in an index
	// row or a plain segment are.
	for q, want := range map[string][]string{
		"overview":     {"p:0"},
		"summary":      nil,
		"mitochondria": {"h:2", "p:0"},
		"aspirin":      {"q:2"},
		"temperature":  {"q:3"},
		"headaches":    {"q:5"},
		"surgery":      {"q:4", "q:5"},
	} {
		hits, err := st.Keyword(ctx, q, 10, store.Filter{})
		got := hitIDs(hits)
		slices.Sort(got)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("Keyword(%q) = %v, %v; want %v", q, got, err, want)
		}
	}
	if tc, ok := st.(store.TermCounter); ok {
		terms := keyword.Tokenize("summary aspirin overview")
		df, n, err := tc.DocFreq(ctx, terms)
		if err != nil || n != 10 || !slices.Equal(df, []int{0, 1, 1}) {
			t.Fatalf("DocFreq(%q) = %v, %d, %v; want [0 1 1], 10", terms, df, n, err)
		}
	}
	// Parents are read like any segment.
	if s, d, err := st.Segment(ctx, "h:1"); err != nil || s.Text != hier.Segments[1].Text || d.ID != "h" {
		t.Fatalf("Segment(h:1) = %+v, %v", s, err)
	}

	// After reopening.
	st.Close()
	st = open(t, loc, "lib")
	checkIndexRows(t, st, hier, ques, plain)

	// Replaced by plain segments, the former parents are found; replaced
	// again, they are not.
	flat := custom("h", "/papers/h.pdf", []string{hier.Segments[0].Text, hier.Segments[1].Text}, nil, nil)
	flat.Document.Added = 1700000000
	update(t, st, []store.Put{flat})
	checkIndexRows(t, st, flat, ques, plain)
	if hits, err := st.Keyword(ctx, "summary", 10, store.Filter{}); err != nil || !slices.Equal(hitIDs(hits), []string{"h:1"}) {
		t.Fatalf("Keyword(summary) after h lost its index rows: %v, %v", hitIDs(hits), err)
	}
	update(t, st, []store.Put{hier})
	checkIndexRows(t, st, hier, ques, plain)

	// After another document is deleted, and a new one added.
	update(t, st, []store.Put{questioned("r")}, "p")
	checkIndexRows(t, st, hier, ques, questioned("r"))
	st.Close()
	checkIndexRows(t, open(t, loc, "lib"), hier, ques, questioned("r"))
}

func testIndexRowsBadParent(t *testing.T, h Harness) {
	ctx := context.Background()
	st, _ := fresh(t, h)
	update(t, st, []store.Put{hierarchical("h"), doc("keep", 2, 1)})
	before, _ := state(ctx, st)
	for name, parent := range map[string]string{
		"no such segment":         "q:9",
		"another document's":      "keep:0",
		"an index row":            "q:3",
		"itself":                  "q:5",
		"not a segment id":        "q",
		"past the document's end": "q:6",
	} {
		bad := questioned("q")
		bad.Segments[5].Parent = parent
		err := st.Update(ctx, []store.Put{doc("good", 1, 1), bad}, []string{"keep"})
		if err == nil {
			t.Errorf("%s: Update accepted an index row whose parent is %q", name, parent)
			continue
		}
		if !strings.Contains(err.Error(), fmt.Sprintf("%q", parent)) {
			t.Errorf("%s: error %q does not name the parent %q", name, err, parent)
		}
	}
	if after, _ := state(ctx, st); !reflect.DeepEqual(before, after) {
		t.Fatalf("refused batches changed the library: %v → %v", before, after)
	}
	checkIndexRows(t, st, hierarchical("h"), doc("keep", 2, 1))
}
