package retrieve

import (
	"context"
	"maps"
	"slices"
	"testing"
)

// A paper's references are left out of a search unless it asks for them
// (References, or a Section), from the hits and from the windows.
func TestReferencesLeftOut(t *testing.T) {
	emb := NewLocalEmbedder()
	st := memStore(t, emb)
	putDoc(t, st, emb, testDoc{id: "pppp0001", path: "/papers/p.pdf",
		texts: []string{
			"Pangolins eat ants and termites.",
			"We thank the pangolin keepers of the zoo.",
			"Smith, J. 2020. Pangolin diets of the savanna. Journal of Mammals.",
			"Jones, K. 2019. Pangolin scales. Zoology Letters.",
			"Appendix: how pangolins were counted.",
		},
		sections: [][]string{{"1 Introduction"}, {"Acknowledgments"}, {"7 References"}, {"7 References"}, {"A Counting"}},
	})
	putDoc(t, st, emb, testDoc{id: "nnnn0002", path: "/notes/n.md",
		texts:    []string{"Pangolin notes.", "Pangolin reading list: Smith 2020."},
		sections: [][]string{{"Notes"}, {"Bibliography", "Books"}},
	})
	ids := func(opt Options) (hits []string, windows map[string][]int) {
		t.Helper()
		opt.Mode = Lexical
		ps, err := Search(context.Background(), st, emb, "pangolin diets smith", opt)
		if err != nil {
			t.Fatal(err)
		}
		windows = map[string][]int{}
		for _, p := range ps {
			hits = append(hits, p.Segment.ID)
			for _, h := range p.Hits {
				hits = append(hits, h.Segment.ID)
			}
			for _, s := range p.Context {
				windows[p.Segment.ID] = append(windows[p.Segment.ID], s.Index)
			}
		}
		slices.Sort(hits)
		return hits, windows
	}
	refs := []string{"nnnn0002:1", "pppp0001:2", "pppp0001:3"}
	hits, _ := ids(Options{K: 10, Neighbours: -1})
	for _, r := range refs {
		if slices.Contains(hits, r) {
			t.Errorf("default search returned the reference %s (hits %v)", r, hits)
		}
	}
	if !slices.Contains(hits, "pppp0001:1") || !slices.Contains(hits, "pppp0001:4") {
		t.Fatalf("hits %v lack the body around the references", hits)
	}
	// Windows stop at the references: the acknowledgements' before them,
	// the appendix's after them.
	_, windows := ids(Options{K: 10, Neighbours: 1})
	for id, w := range windows {
		if id[:8] == "pppp0001" && (slices.Contains(w, 2) || slices.Contains(w, 3)) {
			t.Errorf("window of %s %v reaches the references", id, w)
		}
	}
	if w := windows["pppp0001:4"]; !slices.Equal(w, []int{4}) {
		t.Errorf("appendix window %v, want [4]", w)
	}
	hits, _ = ids(Options{K: 10, Neighbours: -1, References: true})
	for _, r := range refs {
		if !slices.Contains(hits, r) {
			t.Errorf("search with References lacks %s (hits %v)", r, hits)
		}
	}
	if _, windows = ids(Options{K: 10, Neighbours: 1, References: true}); !slices.ContainsFunc(slices.Collect(maps.Values(windows)), func(w []int) bool { return slices.Contains(w, 4) && slices.Contains(w, 3) }) {
		t.Errorf("with References, no window joins the appendix to the reference before it: %v", windows)
	}
	hits, _ = ids(Options{K: 10, Neighbours: -1, Section: "references"})
	if !slices.Equal(hits, []string{"pppp0001:2", "pppp0001:3"}) {
		t.Errorf("Section references: %v", hits)
	}
}
