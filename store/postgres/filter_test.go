package postgres

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/ibid-dev/ibid/store"
	"github.com/jackc/pgx/v5"
)

// TestGlobRegexpAgreesWithMatch compares PostgreSQL's verdict on the
// translated pattern with filepath.Match, over hand-picked and random
// patterns and names.
func TestGlobRegexpAgreesWithMatch(t *testing.T) {
	s := openTest(t, 2)
	ctx := context.Background()
	patterns := []string{
		"*", "*.pdf", "a*", "*a*b", "?", "??.md", "[ab]*", "[^ab]*", "[a-c]x", "[c-a]x", "[^c-a]x", `\*`, `a\?b`,
		"[]", "[", `a\`, "[^]", "[-a]", `[\-a]x`, `[\]]`, "[*]", "[/]", "/papers/*.pdf", "/papers/*", "/*/*.pdf",
		"*/a.pdf", "a.pdf", "A.PDF", "é*", "[é-ü]*", "*.(pdf)", "a+b", "$x^", "x{2}", "a|b", ".*", `\.`, "[.]pdf", "*.*",
		"[!a]", "[a-]", "***x", "a b", "[a-z][0-9]",
	}
	names := []string{
		"", "a", "b", "x", "ax", "bx", "cx", "ab", "axb", "a.pdf", "A.PDF", "b.md", "ab.md", "*", "a?b", "a+b", "aab",
		"/papers/a.pdf", "/papers/sub/a.pdf", "/x/a.pdf", "/", "x/a.pdf", "é.txt", "ö", "]", "-", "-x", ".", "[", "$x^",
		"xx", "a|b", "!", "a b", "z9", "/papers/", ".pdf", "a.(pdf)", "x\ny",
	}
	rng := rand.New(rand.NewPCG(5, 6))
	alphabet := []string{"a", "b", "/", "*", "?", "[", "]", "^", "-", `\`, ".", "é"}
	for range 300 {
		p := ""
		for range 1 + rng.IntN(6) {
			p += alphabet[rng.IntN(len(alphabet))]
		}
		patterns = append(patterns, p)
	}
	for range 100 {
		n := ""
		for range rng.IntN(6) {
			n += alphabet[rng.IntN(len(alphabet))]
		}
		names = append(names, n)
	}
	for _, p := range patterns {
		re, ok := globRegexp(p)
		got := make([]bool, len(names))
		if ok {
			rows, err := s.pool.Query(ctx, `SELECT n ~ $2 FROM unnest($1::text[]) WITH ORDINALITY AS t(n, i) ORDER BY i`, names, re)
			if err != nil {
				t.Fatalf("pattern %q as %q: %v", p, re, err)
			}
			if got, err = pgx.CollectRows(rows, pgx.RowTo[bool]); err != nil {
				t.Fatalf("pattern %q as %q: %v", p, re, err)
			}
		}
		for i, n := range names {
			want, _ := filepath.Match(p, n) // a malformed pattern matches nothing
			if got[i] != want {
				t.Errorf("pattern %q (regexp %q) on %q: PostgreSQL says %v, filepath.Match %v", p, re, n, got[i], want)
			}
		}
	}
}

// TestFiltersAgreeWithMatch stores documents with paths, sections and
// pages, and checks that every filter admits exactly the segments
// store.Filter.Match admits, in dense, keyword and hybrid search.
func TestFiltersAgreeWithMatch(t *testing.T) {
	s := openTest(t, 3)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 8))
	paths := []string{"/papers/alpha.pdf", "/papers/beta.md", "/notes/alpha.txt", "/notes/Gamma [draft].pdf", "/x/é-notes.md", "relative.pdf"}
	sections := [][]string{nil, {"Introduction"}, {"Methods"}, {"Methods", "Data"}, {"Résumé", "ÉTUDE"}, {"Results / Discussion"}}
	var puts []store.Put
	docs := map[string]*store.Document{}
	for i, path := range paths {
		id := fmt.Sprintf("%c%02xdoc", 'a'+i, i)
		p := makePut(rng, id, 12, 3)
		p.Document.Path = path
		for j := range p.Segments {
			sg := &p.Segments[j]
			sg.Section = sections[rng.IntN(len(sections))]
			sg.Text += " common word"
			switch rng.IntN(4) {
			case 0: // no pages
			case 1:
				sg.PageStart = 1 + rng.IntN(8)
			default:
				sg.PageStart = 1 + rng.IntN(8)
				sg.PageEnd = sg.PageStart + rng.IntN(3)
			}
		}
		puts = append(puts, p)
		docs[id] = &puts[len(puts)-1].Document
	}
	mustUpdate(t, s, puts, nil)

	filters := []store.Filter{
		{},
		{Documents: []string{"a"}},
		{Documents: []string{"b01"}},
		{Documents: []string{""}},
		{Documents: []string{"*.pdf"}},
		{Documents: []string{"alpha.*"}},
		{Documents: []string{"/papers/*"}},
		{Documents: []string{"/notes/*", "c"}},
		{Documents: []string{"Gamma [[]draft].pdf"}},
		{Documents: []string{"Gamma \\[draft\\].pdf"}},
		{Documents: []string{"[", "é*"}},
		{Documents: []string{"relative.pdf"}},
		{Documents: []string{"%"}},
		{Documents: []string{"_*"}},
		{Section: "methods"},
		{Section: "METHODS / data"},
		{Section: "résumé / étude"},
		{Section: "Results / Discussion"},
		{Section: " / "},
		{Section: "%"},
		{PageFrom: 3},
		{PageTo: 2},
		{PageFrom: 2, PageTo: 4},
		{PageFrom: 5, PageTo: 5},
		{PageFrom: 9},
		{Documents: []string{"*.pdf"}, Section: "methods", PageFrom: 2, PageTo: 6},
	}
	all := make([]float32, 3)
	for i := range all {
		all[i] = 1
	}
	for _, f := range filters {
		t.Run(fmt.Sprintf("%+v", f), func(t *testing.T) {
			var want []string
			for _, p := range puts {
				for j := range p.Segments {
					if f.Match(docs[p.Document.ID], &p.Segments[j]) {
						want = append(want, p.Segments[j].ID)
					}
				}
			}
			sort.Strings(want)
			n := len(paths)*12 + 1
			dense, err := s.Dense(ctx, all, n, f)
			if err != nil {
				t.Fatal(err)
			}
			kw, err := s.Keyword(ctx, "common", n, f)
			if err != nil {
				t.Fatal(err)
			}
			hy, err := s.Hybrid(ctx, "common", all, n, f)
			if err != nil {
				t.Fatal(err)
			}
			for name, hits := range map[string][]store.Hit{"dense": dense, "keyword": kw, "hybrid": hy} {
				var got []string
				for _, h := range hits {
					got = append(got, h.Segment.ID)
				}
				sort.Strings(got)
				if !slices.Equal(got, want) {
					t.Errorf("%s admits %d segments %v\nMatch admits %d %v", name, len(got), got, len(want), want)
				}
			}
		})
	}
}
