package retrieve

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/rag/ingest/tokens"
	"github.com/ibid-dev/ibid/store"
)

// rowSpec is one index row: the passage it leads to, its own text and
// what it indexes ("" for none).
type rowSpec struct {
	parent    int
	text      string
	indexText string
}

// putRows stores a document of passages followed by index rows, laid out
// as rag/ingest lays them out: passages 0..P-1, rows P.., parents (the
// passages some row names) with a zero vector, everything else embedded on
// its keyword text; Meta["passages"] is recorded unless noMeta.
func putRows(t testing.TB, st store.Store, emb Embedder, id, strategy string, passages []string, rows []rowSpec, noMeta bool) []store.Segment {
	t.Helper()
	ctx := context.Background()
	var segs []store.Segment
	for i, text := range passages {
		segs = append(segs, store.Segment{ID: fmt.Sprintf("%s:%d", id, i), DocumentID: id, Index: i, Text: text, End: len(text)})
	}
	parents := map[int]bool{}
	for j, r := range rows {
		i := len(passages) + j
		s := store.Segment{ID: fmt.Sprintf("%s:%d", id, i), DocumentID: id, Index: i, Text: r.text, IndexText: r.indexText,
			Parent: fmt.Sprintf("%s:%d", id, r.parent)}
		if r.text != "" && r.parent < len(passages) {
			s.Start = strings.Index(passages[r.parent], r.text)
			s.End = s.Start + len(r.text)
		}
		segs = append(segs, s)
		parents[r.parent] = true
	}
	for i := range segs {
		if parents[i] && i < len(passages) {
			segs[i].Vector = make([]float32, emb.Dimension())
			continue
		}
		vs, err := emb.Embed(ctx, []string{segs[i].KeywordText()})
		if err != nil {
			t.Fatal(err)
		}
		segs[i].Vector = vs[0]
	}
	doc := store.Document{ID: id, Path: "/papers/" + id + ".pdf", Hash: id, Format: "text", Segments: len(segs)}
	if !noMeta {
		doc.Meta = map[string]string{"strategy": strategy}
		if len(rows) > 0 {
			doc.Meta["passages"] = strconv.Itoa(len(passages))
		}
	}
	if err := st.Update(ctx, []store.Put{{Document: doc, Segments: segs}}, nil); err != nil {
		t.Fatal(err)
	}
	return segs
}

// rowsOnly is a store as the index-row contract has it: Dense and Keyword
// never return a parent (a segment some index row names).
type rowsOnly struct{ store.Store }

func (r rowsOnly) Keyword(ctx context.Context, query string, k int, f store.Filter) ([]store.Hit, error) {
	hs, err := r.Store.Keyword(ctx, query, 1<<20, f)
	return r.drop(ctx, hs, k), err
}

func (r rowsOnly) Dense(ctx context.Context, v []float32, k int, f store.Filter) ([]store.Hit, error) {
	hs, err := r.Store.Dense(ctx, v, 1<<20, f)
	return r.drop(ctx, hs, k), err
}

func (r rowsOnly) drop(ctx context.Context, hs []store.Hit, k int) []store.Hit {
	parents := map[string]bool{}
	for _, h := range hs {
		segs, _ := r.Store.Segments(ctx, h.Segment.DocumentID, 0, -1)
		for _, s := range segs {
			parents[s.Parent] = true
		}
	}
	var out []store.Hit
	for _, h := range hs {
		if !parents[h.Segment.ID] && len(out) < k {
			out = append(out, h)
		}
	}
	return out
}

// hierarchical: three parents of one section each, each parent two
// children (the rows), every child a strict part of its parent, each
// parent a long section (its children, then filler no query matches, to
// a recursive window's size: a window of its own).
var (
	hierChildren = [][]string{
		{"Glaciers retreat when summers warm.", "Meltwater feeds the rivers below."},
		{"Moraines mark where the ice once stood.", "Boulders were carried far by the ice sheet."},
		{"Permafrost thaw releases methane.", "Methane warms the climate further."},
	}
	hierParents = func() []string {
		var out []string
		for _, cs := range hierChildren {
			out = append(out, strings.Join(cs, " ")+"\n\n"+filler(len(out), 3*ingest.DefaultTokenBudget))
		}
		return out
	}()
	hierRows = func() []rowSpec {
		var out []rowSpec
		for p, cs := range hierChildren {
			for _, c := range cs {
				out = append(out, rowSpec{parent: p, text: c})
			}
		}
		return out
	}()
)

// questions: four chunks, each with a mirror row and one question row.
var (
	qChunks = []string{
		"Chapter one: the lighthouse keeper lit the lamp each evening.",
		"Chapter two: a storm broke the lens of the lamp.",
		"Chapter three: the keeper sailed to the mainland for glass.",
		"Chapter four: the new lens shone brighter than before.",
	}
	qQuestions = []string{
		"Who tends the beacon at dusk?",
		"What shattered during the tempest?",
		"Why did the custodian voyage ashore?",
		"How bright was the replacement optic?",
	}
	qRows = func() []rowSpec {
		var out []rowSpec
		for i, c := range qChunks {
			out = append(out, rowSpec{parent: i, text: c}, rowSpec{parent: i, indexText: qQuestions[i]})
		}
		return out
	}()
)

func ctxIDs(p Passage) []string {
	var out []string
	for _, s := range p.Context {
		out = append(out, s.ID)
	}
	return out
}

func hitSegIDs(p Passage) []string {
	var out []string
	for _, h := range p.Hits {
		out = append(out, h.Segment.ID)
	}
	return out
}

// checkPassages: no passage is led by, or shows, an index row, and each
// passage's hits that are rows name a passage of its window.
func checkPassages(t *testing.T, ps []Passage) {
	t.Helper()
	for _, p := range ps {
		if p.Segment.Parent != "" {
			t.Errorf("passage led by index row %s", p.Segment.ID)
		}
		in := map[string]bool{}
		for _, s := range p.Context {
			if s.Parent != "" {
				t.Errorf("passage %s shows index row %s", p.Segment.ID, s.ID)
			}
			in[s.ID] = true
		}
		if !in[p.Segment.ID] {
			t.Errorf("passage %s not in its own window %v", p.Segment.ID, ctxIDs(p))
		}
		for i, h := range p.Hits {
			if h.Segment.Parent != "" && !in[h.Segment.Parent] {
				t.Errorf("passage %s holds row %s of %s, outside its window", p.Segment.ID, h.Segment.ID, h.Segment.Parent)
			}
			if i > 0 && h.Rank < p.Hits[i-1].Rank {
				t.Errorf("passage %s: hits not best first: %v", p.Segment.ID, p.Hits)
			}
		}
	}
}

func TestSearchHierarchical(t *testing.T) {
	emb := NewLocalEmbedder()
	st := memStore(t, emb)
	putRows(t, st, emb, "hier", "hierarchical", hierParents, hierRows, false)
	st = rowsOnly{st}
	ctx := context.Background()
	for _, m := range []Mode{Lexical, Dense, Hybrid} {
		t.Run(m.String(), func(t *testing.T) {
			// Both children of parent 1 match; one passage, both rows its hits.
			ps, err := Search(ctx, st, emb, "ice moraines boulders", Options{K: 3, Mode: m})
			if err != nil {
				t.Fatal(err)
			}
			checkPassages(t, ps)
			if len(ps) == 0 || ps[0].Segment.ID != "hier:1" {
				t.Fatalf("passages %v, want hier:1 first", hitIDs(ps))
			}
			p := ps[0]
			if got := ctxIDs(p); !slices.Equal(got, []string{"hier:1"}) {
				t.Errorf("hierarchical parent's window %v, want itself alone", got)
			}
			if p.Segment.Text != hierParents[1] {
				t.Errorf("passage text %q, want the parent's", p.Segment.Text)
			}
			rows := hitSegIDs(p)
			slices.Sort(rows)
			if !slices.Equal(rows, []string{"hier:5", "hier:6"}) {
				t.Errorf("hits %v, want both children hier:5 and hier:6", rows)
			}
			if p.Hits[0].Rank != p.Rank {
				t.Errorf("best row rank %d, passage rank %d", p.Hits[0].Rank, p.Rank)
			}
		})
	}
	// Children of adjacent parents: two passages, not one 4,000-token window.
	ps, err := Search(ctx, st, emb, "meltwater rivers moraines", Options{K: 3, Mode: Lexical})
	if err != nil {
		t.Fatal(err)
	}
	checkPassages(t, ps)
	if got := hitIDs(ps); !slices.Equal(got, []string{"hier:0", "hier:1"}) && !slices.Equal(got, []string{"hier:1", "hier:0"}) {
		t.Errorf("adjacent parents: %v, want hier:0 and hier:1 as two passages", got)
	}
}

func TestSearchQuestions(t *testing.T) {
	for _, noMeta := range []bool{false, true} {
		t.Run(fmt.Sprintf("noMeta=%v", noMeta), func(t *testing.T) {
			emb := NewLocalEmbedder()
			st := memStore(t, emb)
			putRows(t, st, emb, "ques", "questions", qChunks, qRows, noMeta)
			if noMeta {
				st = rowsOnly{st} // and with meta, as the store returns parents today
			}
			ctx := context.Background()
			// Words only the question of chunk 3 holds.
			ps, err := Search(ctx, st, emb, "replacement optic", Options{K: 2, Mode: Lexical})
			if err != nil {
				t.Fatal(err)
			}
			checkPassages(t, ps)
			if len(ps) != 1 || ps[0].Segment.ID != "ques:3" {
				t.Fatalf("passages %v, want ques:3", hitIDs(ps))
			}
			// Its neighbour before, and no row after, though ques:4 is next.
			if got := ctxIDs(ps[0]); !slices.Equal(got, []string{"ques:2", "ques:3"}) {
				t.Errorf("window %v, want [ques:2 ques:3]", got)
			}
			if got := hitSegIDs(ps[0]); !slices.Equal(got, []string{"ques:11"}) {
				t.Errorf("hits %v, want the question row ques:11", got)
			}
			if q := ps[0].Hits[0].Segment; q.Text != "" || q.IndexText != qQuestions[3] {
				t.Errorf("question row %+v", q)
			}
			// Mirror row and question of chunk 1 and chunk 0's mirror: chunk 1
			// leads (two rows), and chunk 0 merges into its window.
			ps, err = Search(ctx, st, emb, "storm tempest lens shattered lamp", Options{K: 3, Mode: Lexical, Neighbours: -1})
			if err != nil {
				t.Fatal(err)
			}
			checkPassages(t, ps)
			if len(ps) == 0 || ps[0].Segment.ID != "ques:1" {
				t.Fatalf("passages %v, want ques:1 first", hitIDs(ps))
			}
			rows := hitSegIDs(ps[0])
			if !slices.Contains(rows, "ques:6") || !slices.Contains(rows, "ques:7") {
				t.Errorf("hits %v, want ques:1's mirror row ques:6 and question ques:7", rows)
			}
			// A mirror row's passage gets neighbours: it is not a strict part.
			ps, err = Search(ctx, st, emb, "mainland glass sailed", Options{K: 1, Mode: Lexical})
			if err != nil {
				t.Fatal(err)
			}
			if len(ps) != 1 || !slices.Equal(ctxIDs(ps[0]), []string{"ques:1", "ques:2", "ques:3"}) {
				t.Errorf("mirror row's passage: %v with window %v, want ques:2 with ques:1..3", hitIDs(ps), ctxIDs(ps[0]))
			}
		})
	}
}

// TestSearchCountsPassages: K counts passages after rows are mapped and
// merged, and a search asks for more candidates when the first ones all
// collapse into too few passages.
func TestSearchCountsPassages(t *testing.T) {
	emb := NewLocalEmbedder()
	st := memStore(t, emb)
	chunks := []string{"Zebras graze.", "Lions hunt.", "Rivers flow.", "Birds sing.", "Zebras migrate in herds across the plain."}
	var rows []rowSpec
	for i := range 150 { // 150 short questions of chunk 0 outrank anything of chunk 4
		rows = append(rows, rowSpec{parent: 0, indexText: fmt.Sprintf("zebra question %d?", i)})
	}
	rows = append(rows, rowSpec{parent: 4, indexText: "Where do zebra herds go across the wide savanna plains in the dry season each year?"})
	putRows(t, st, emb, "zoo", "questions", chunks, rows, false)
	st = rowsOnly{st}
	ps, err := Search(context.Background(), st, emb, "zebra", Options{K: 2, Mode: Lexical, Neighbours: -1})
	if err != nil {
		t.Fatal(err)
	}
	checkPassages(t, ps)
	if got := hitIDs(ps); !slices.Equal(got, []string{"zoo:0", "zoo:4"}) {
		t.Fatalf("passages %v, want zoo:0 then zoo:4", got)
	}
	if n := len(ps[0].Hits); n != 150 {
		t.Errorf("zoo:0 holds %d rows, want 150", n)
	}
}

// rowsStore answers Keyword with fixed hits (as a store that returns
// parents directly, before the store learned to hide them, would), and
// records the segments read one by one.
type rowsStore struct {
	store.Store
	hits  []string
	reads []string
	fake  map[string]store.Segment // rows no store would accept, read as if stored
}

func (r *rowsStore) Keyword(ctx context.Context, query string, k int, f store.Filter) ([]store.Hit, error) {
	var out []store.Hit
	for i, id := range r.hits {
		s, ok := r.fake[id]
		var err error
		if !ok {
			s, _, err = r.Store.Segment(ctx, id)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, store.Hit{Segment: s, Score: float64(100 - i)})
	}
	return out, nil
}

func (r *rowsStore) Segment(ctx context.Context, id string) (store.Segment, store.Document, error) {
	r.reads = append(r.reads, id)
	if s, ok := r.fake[id]; ok {
		_, d, err := r.Store.Segment(ctx, s.DocumentID+":0")
		return s, d, err
	}
	return r.Store.Segment(ctx, id)
}

func TestSearchParentsDirectAndBroken(t *testing.T) {
	emb := NewLocalEmbedder()
	st := memStore(t, emb)
	putRows(t, st, emb, "hier", "hierarchical", hierParents, hierRows, false)
	// A row whose parent does not exist, and one whose parent is a row:
	// the store refuses them (store.Parents), so they are faked here.
	putRows(t, st, emb, "bad", "hierarchical", []string{"alone"}, nil, false)
	rs := &rowsStore{Store: st, hits: []string{"hier:3", "hier:0", "bad:1", "bad:2", "hier:4", "hier:2"},
		fake: map[string]store.Segment{
			"bad:1": {ID: "bad:1", DocumentID: "bad", Index: 1, Text: "lost", Parent: "bad:7"},
			"bad:2": {ID: "bad:2", DocumentID: "bad", Index: 2, Text: "loop", Parent: "bad:1"},
		}}
	ps, err := Search(context.Background(), rs, emb, "anything", Options{K: 5, Mode: Lexical})
	if err != nil {
		t.Fatal(err)
	}
	checkPassages(t, ps)
	if got := hitIDs(ps); !slices.Equal(got, []string{"hier:0", "hier:2"}) {
		t.Fatalf("passages %v, want hier:0 (reached twice) and hier:2", got)
	}
	if got := hitSegIDs(ps[0]); !slices.Equal(got, []string{"hier:3", "hier:4"}) {
		t.Errorf("hier:0 hits %v, want its rows hier:3 and hier:4", got)
	}
	if ps[0].Rank != 0 || ps[0].Score != 100 {
		t.Errorf("hier:0 rank %d score %v, want its best row's 0 and 100", ps[0].Rank, ps[0].Score)
	}
	// hier:2 was hit directly: a hierarchical document's passage is a
	// window of its own all the same.
	if got := ctxIDs(ps[1]); !slices.Equal(got, []string{"hier:2"}) {
		t.Errorf("direct parent's window %v", got)
	}
	if n := countOf(rs.reads, "hier:0"); n != 1 {
		t.Errorf("parent hier:0 read %d times, want once", n)
	}
}

func countOf(ss []string, s string) int {
	n := 0
	for _, x := range ss {
		if x == s {
			n++
		}
	}
	return n
}

// filler is text of about n tokens (at least n) of words no test query
// holds, different for each seed.
func filler(seed, n int) string {
	var b strings.Builder
	for i := 0; tokens.Count(b.String()) < n; i++ {
		fmt.Fprintf(&b, "zq%dx%d ", seed, i)
	}
	return strings.TrimSpace(b.String())
}

func TestSearchHierarchicalShortSections(t *testing.T) {
	// Parents of short sections (A, B, D: about 60 tokens) and a long one
	// (C, about 800): a hit's window grows into the passages around it,
	// nearest first, one before then one after in turn, while it holds at
	// most a recursive window's tokens ((2n+1)·300: 900 for one neighbour).
	emb := NewLocalEmbedder()
	st := memStore(t, emb)
	heads := []string{"Fluency is judged with MAUVE on the outputs.", "Correctness is judged against short answers.",
		"Citation recall asks whether the cited passages entail the sentence.", "Citation precision asks whether each citation is needed."}
	sizes := []int{60, 60, 800, 60}
	var parents []string
	var rows []rowSpec
	for i, h := range heads {
		parents = append(parents, h+" "+filler(10+i, sizes[i]-tokens.Count(h)))
		rows = append(rows, rowSpec{parent: i, text: h})
	}
	putRows(t, st, emb, "p", "hierarchical", parents, rows, false)
	st = rowsOnly{st}
	tok := func(i int) int { return tokens.Count(parents[i]) }
	if tok(0)+tok(1)+tok(2) <= 900 || tok(1)+tok(2) > 900 || tok(2)+tok(3) > 900 || tok(0)+tok(1)+tok(2)+tok(3) > 1500 {
		t.Fatalf("parents of %d, %d, %d, %d tokens do not make the cases below", tok(0), tok(1), tok(2), tok(3))
	}
	for _, tc := range []struct {
		query      string
		neighbours int
		want       []string
	}{
		{"correctness short answers", 0, []string{"p:0", "p:1"}},               // B grows into A; C would overflow
		{"correctness short answers", 2, []string{"p:0", "p:1", "p:2", "p:3"}}, // 1,500 tokens hold them all
		{"correctness short answers", -1, []string{"p:1"}},                     // no neighbours: the parent alone
		{"citation precision needed", 0, []string{"p:2", "p:3"}},               // D grows into C; then B would overflow
		{"citation recall entail", 0, []string{"p:1", "p:2"}},                  // C grows into B first; then D would overflow
	} {
		ps, err := Search(context.Background(), st, emb, tc.query, Options{K: 1, Mode: Lexical, Neighbours: tc.neighbours})
		if err != nil {
			t.Fatal(err)
		}
		checkPassages(t, ps)
		if len(ps) != 1 || !slices.Equal(ctxIDs(ps[0]), tc.want) {
			var got [][]string
			for _, p := range ps {
				got = append(got, ctxIDs(p))
			}
			t.Errorf("%q, %d neighbours: windows %v, want %v", tc.query, tc.neighbours, got, tc.want)
		}
	}
}
