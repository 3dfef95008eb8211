package postgres

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/store"
	"github.com/jackc/pgx/v5"
)

// exactTop is the reference: the k segments of puts admitted by f and
// nearest (cosine) to q, ties by id, zero vectors left out.
func exactTop(puts []store.Put, q []float32, k int, f store.Filter) []string {
	type cand struct {
		id  string
		sim float64
	}
	var cs []cand
	for i := range puts {
		for j := range puts[i].Segments {
			sg := &puts[i].Segments[j]
			if !f.Match(&puts[i].Document, sg) {
				continue
			}
			var dot, na, nb float64
			for d := range q {
				dot += float64(q[d]) * float64(sg.Vector[d])
				na += float64(q[d]) * float64(q[d])
				nb += float64(sg.Vector[d]) * float64(sg.Vector[d])
			}
			if nb == 0 {
				continue
			}
			cs = append(cs, cand{sg.ID, dot / math.Sqrt(na*nb)})
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].sim != cs[j].sim {
			return cs[i].sim > cs[j].sim
		}
		return cs[i].id < cs[j].id
	})
	var ids []string
	for i := 0; i < k && i < len(cs); i++ {
		ids = append(ids, cs[i].id)
	}
	return ids
}

func hitIDs(hits []store.Hit) []string {
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.Segment.ID)
	}
	return ids
}

// explainNoSeqScan is explain with sequential scans ruled out.
func explainNoSeqScan(t *testing.T, s *Store, sql string, a args) string {
	t.Helper()
	return explain(t, s, 5, "/*noseqscan*/ "+sql, a)
}

// explain returns the plan of the statement with its arguments.
func explain(t *testing.T, s *Store, k int, sql string, a args) string {
	t.Helper()
	ctx := context.Background()
	var plan []string
	err := s.searchTx(ctx, k, func(tx pgx.Tx) error {
		if strings.HasPrefix(sql, "/*noseqscan*/") {
			if _, err := tx.Exec(ctx, "SET LOCAL enable_seqscan = off"); err != nil {
				return err
			}
		}
		rows, err := tx.Query(ctx, "EXPLAIN "+sql, a...)
		if err != nil {
			return err
		}
		plan, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "\n")
}

// TestDenseUsesIndexAndNarrowFilters loads 8,000 segments in 100
// documents and checks that dense search goes through the partition's HNSW
// index, finds the exact top 10 (with and without a filter admitting 1%
// of the segments), and that a filter admitting 1% still returns k.
func TestDenseUsesIndexAndNarrowFilters(t *testing.T) {
	const dim, docs, per = 16, 100, 80
	s := openTest(t, dim)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(9, 10))
	var puts []store.Put
	for i := range docs {
		puts = append(puts, makePut(rng, fmt.Sprintf("d%03d", i), per, dim))
	}
	for j := range puts[42].Segments {
		puts[42].Segments[j].Section = []string{"Rare"}
	}
	s.indexMin = 0 // index from the first segment
	start := time.Now()
	mustUpdate(t, s, puts, nil)
	t.Logf("loaded %d segments in %v", docs*per, time.Since(start))
	q := randVec(rng, dim)
	one := store.Filter{Documents: []string{"d042"}} // 1% of the segments
	rare := store.Filter{Section: "rare"}            // the same 1%, which the planner cannot foresee

	// The planner may answer a filter on a few documents exactly (it is
	// cheap); a filter it cannot estimate goes through the index, with the
	// iterative scan.
	for _, f := range []store.Filter{{}, rare} {
		sql, a := s.denseSQL(q, 10, f, false)
		if plan := explain(t, s, 10, sql, a); !strings.Contains(plan, indexName(s.chunks)) {
			t.Errorf("filter %+v: the plan does not use %s:\n%s", f, indexName(s.chunks), plan)
		}
	}
	hsql, ha := s.hybridSQL("document segment", q, false, 10, store.Filter{})
	if plan := explain(t, s, fuseDepth(10), hsql, ha); !strings.Contains(plan, indexName(s.chunks)) || !strings.Contains(plan, "rag_chunks_c") {
		t.Errorf("the hybrid plan does not use %s:\n%s", indexName(s.chunks), plan)
	}
	recall := 0
	for range 20 {
		q := randVec(rng, dim)
		hits, err := s.Dense(ctx, q, 10, store.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]bool{}
		for _, id := range exactTop(puts, q, 10, store.Filter{}) {
			want[id] = true
		}
		for _, h := range hits {
			if want[h.Segment.ID] {
				recall++
			}
		}
		for i := 1; i < len(hits); i++ {
			if hits[i].Score > hits[i-1].Score {
				t.Fatalf("hits out of order: %v", hits)
			}
		}
	}
	if recall < 190 { // recall@10 ≥ 0.95 over 20 queries
		t.Errorf("recall@10 = %.2f, want ≥ 0.95", float64(recall)/200)
	}
	for _, c := range []struct {
		k int
		f store.Filter
	}{{10, one}, {60, one}, {10, rare}, {60, rare}} {
		k := c.k
		hits, err := s.Dense(ctx, q, k, c.f)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != k {
			t.Fatalf("a 1%% filter returned %d hits for k=%d", len(hits), k)
		}
		want := exactTop(puts, q, k, one)
		got := hitIDs(hits)
		for i := range got {
			if !strings.HasPrefix(got[i], "d042:") {
				t.Fatalf("hit %s is not admitted by the filter", got[i])
			}
		}
		if k == 10 && fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("a 1%% filter: got %v, want %v", got, want)
		}
	}
	// More than the filter admits: all of it, exactly.
	hits, err := s.Dense(ctx, q, 100, one)
	if err != nil || len(hits) != per {
		t.Fatalf("k beyond the filter: %d hits, %v", len(hits), err)
	}
	if fmt.Sprint(hitIDs(hits)) != fmt.Sprint(exactTop(puts, q, 100, one)) {
		t.Errorf("exact fallback is not the exact order")
	}
}

func TestZeroVectorsAndMismatch(t *testing.T) {
	s := openTest(t, 3)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(11, 12))
	p := makePut(rng, "z", 4, 3)
	p.Segments[0].Vector = []float32{0, 0, 0}
	p.Segments[2].Vector = []float32{0, 0, 0}
	mustUpdate(t, s, []store.Put{p}, nil)
	hits, err := s.Dense(ctx, []float32{1, 2, 3}, 10, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(hitIDs(hits)); got != fmt.Sprint(exactTop([]store.Put{p}, []float32{1, 2, 3}, 10, store.Filter{})) || len(hits) != 2 {
		t.Errorf("dense returned %v; zero vectors must never be returned", got)
	}
	if hits, err := s.Dense(ctx, []float32{0, 0, 0}, 10, store.Filter{}); err != nil || len(hits) != 0 {
		t.Errorf("the zero query matched %v, %v", hits, err)
	}
	if _, err := s.Dense(ctx, []float32{1, 2}, 10, store.Filter{}); !errors.Is(err, store.ErrEmbedderMismatch) {
		t.Errorf("query of dimension 2: %v, want ErrEmbedderMismatch", err)
	}
	if _, err := s.Hybrid(ctx, "x", []float32{1, 2}, 10, store.Filter{}); !errors.Is(err, store.ErrEmbedderMismatch) {
		t.Errorf("hybrid of dimension 2: %v, want ErrEmbedderMismatch", err)
	}
	for _, info := range []store.Info{{Embedder: "other", Dimension: 3}, {Embedder: "test", Dimension: 4}} {
		_, err := Open(ctx, testLocation(t), store.Options{Library: s.name, Info: info, Create: true})
		if !errors.Is(err, store.ErrEmbedderMismatch) || !strings.Contains(err.Error(), `"test" (dimension 3)`) {
			t.Errorf("open with %+v: %v, want ErrEmbedderMismatch naming the library's embedder", info, err)
		}
	}
	o, err := Open(ctx, testLocation(t), store.Options{Library: s.name}) // zero Info adopts
	if err != nil || o.Info() != s.Info() {
		t.Fatalf("open adopting: %v, %+v", err, o)
	}
	o.Close()
	if _, err := Open(ctx, testLocation(t), store.Options{Library: s.name + "-none", Info: s.info}); !errors.Is(err, store.ErrNoLibrary) {
		t.Errorf("missing library without Create: %v, want ErrNoLibrary", err)
	}
}

func TestKeywordAndHybrid(t *testing.T) {
	s := openTest(t, 3)
	ctx := context.Background()
	p := store.Put{Document: store.Document{ID: "k", Path: "/k.md"}}
	texts := []struct{ text, index string }{
		{"Mitochondria are the powerhouse of the cell.", ""},
		{"The cell membrane controls transport; mitochondria mitochondria.", ""},
		{"Unrelated text about telescopes.", ""},
		{"Shown text only.", "generated context about ribosomes"},
		{"Vector twin of the query, no shared words.", ""},
	}
	for i, x := range texts {
		v := []float32{float32(i + 1), 1, 0}
		if i == 4 {
			v = []float32{0, 0, 1}
		}
		p.Segments = append(p.Segments, store.Segment{ID: fmt.Sprintf("k:%d", i), DocumentID: "k", Index: i, Text: x.text, IndexText: x.index, Vector: v})
	}
	mustUpdate(t, s, []store.Put{p}, nil)

	hits, err := s.Keyword(ctx, "Mitochondria!", 10, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(hitIDs(hits)); got != "[k:1 k:0]" {
		t.Errorf("keyword mitochondria: %s, want [k:1 k:0] (more occurrences first)", got)
	}
	// Any word matches (not all), and IndexText replaces Text for matching.
	if hits, _ := s.Keyword(ctx, "ribosomes telescopes nothing", 10, store.Filter{}); len(hits) != 2 {
		t.Errorf("any-word query: %v", hitIDs(hits))
	}
	if hits, _ := s.Keyword(ctx, "shown", 10, store.Filter{}); len(hits) != 0 {
		t.Errorf("text hidden behind IndexText matched: %v", hitIDs(hits))
	}
	if hits, err := s.Keyword(ctx, "  ' & | ! :* ", 10, store.Filter{}); err != nil || len(hits) != 0 {
		t.Errorf("query of operators only: %v, %v", hitIDs(hits), err)
	}
	// Hybrid: the keyword match and the vector twin both come back, and a
	// segment found both ways ranks first.
	hits, err = s.Hybrid(ctx, "telescopes", []float32{0, 0, 1}, 3, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	got := hitIDs(hits)
	if len(got) != 3 || got[0] != "k:2" && got[0] != "k:4" {
		t.Errorf("hybrid: %v", got)
	}
	if hits, _ := s.Hybrid(ctx, "telescopes", []float32{0, 0, 0}, 3, store.Filter{}); fmt.Sprint(hitIDs(hits)) != "[k:2]" {
		t.Errorf("hybrid with a zero vector: %v, want the keyword hit only", hitIDs(hits))
	}
}

// TestKeywordBudget checks that a query whose common words exceed the
// budget still finds the chunk holding its rare word first, and that a
// query whose rare words match fewer than k chunks still returns k.
func TestKeywordBudget(t *testing.T) {
	s := openTest(t, 2)
	var puts []store.Put
	for d := range 30 {
		id := fmt.Sprintf("b%02d", d)
		p := store.Put{Document: store.Document{ID: id, Path: "/" + id}}
		for i := range 1000 {
			text := "common words everywhere"
			if d == 7 && i == 500 {
				text = "common zygote"
			}
			p.Segments = append(p.Segments, store.Segment{ID: fmt.Sprintf("%s:%d", id, i), DocumentID: id, Index: i, Text: text, Vector: []float32{1, 0}})
		}
		puts = append(puts, p)
	}
	mustUpdate(t, s, puts, nil)
	hits, err := s.Keyword(context.Background(), "zygote common", 10, store.Filter{})
	if err != nil || len(hits) != 10 || hits[0].Segment.ID != "b07:500" {
		t.Fatalf("zygote common: %d hits, first %v, %v", len(hits), hitIDs(hits[:min(1, len(hits))]), err)
	}
	mustUpdate(t, s, nil, []string{"b07"})
	checkWhole(t, s)
}

// TestLargeDimensions checks the two larger kinds of library: 2,001 to
// 4,000 dimensions are indexed as halfvec, more are searched exactly; both
// find the exact top results.
func TestLargeDimensions(t *testing.T) {
	for _, dim := range []int{2048, 4096} {
		t.Run(fmt.Sprint(dim), func(t *testing.T) {
			s := openTest(t, dim)
			s.indexMin = 0
			rng := rand.New(rand.NewPCG(uint64(dim), 32))
			var puts []store.Put
			for d := range 10 {
				puts = append(puts, makePut(rng, fmt.Sprintf("L%d", d), 30, dim))
			}
			mustUpdate(t, s, puts, nil)
			q := randVec(rng, dim)
			sql, a := s.denseSQL(q, 5, store.Filter{}, false)
			// 300 rows are cheaper to scan than to search; forbid the scan
			// to see whether the index matches the query's expression.
			plan := explainNoSeqScan(t, s, sql, a)
			if uses := strings.Contains(plan, indexName(s.chunks)); uses != (dim <= maxHalfvecIndexDim) {
				t.Errorf("dimension %d: plan uses the HNSW index: %v\n%s", dim, uses, plan)
			}
			hits, err := s.Dense(context.Background(), q, 5, store.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := fmt.Sprint(hitIDs(hits)), fmt.Sprint(exactTop(puts, q, 5, store.Filter{})); got != want {
				t.Errorf("dimension %d: %s, want %s", dim, got, want)
			}
		})
	}
}
