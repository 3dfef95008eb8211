package postgres

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/ibid-dev/ibid/store"
	"github.com/ibid-dev/ibid/store/storetest"
)

// testLocation is the test server, from IBID_TEST_POSTGRES; without it the
// test is skipped (.ci/postgres.sh start prints one).
func testLocation(t testing.TB) string {
	t.Helper()
	loc := os.Getenv("IBID_TEST_POSTGRES")
	if loc == "" {
		t.Skip("IBID_TEST_POSTGRES is not set; `.ci/postgres.sh start` starts a test server and prints it")
	}
	return loc
}

var nameClean = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// libraryName is a name no other test uses.
func libraryName(t testing.TB) string {
	return fmt.Sprintf("%s-%08x", nameClean.ReplaceAllString(t.Name(), "_"), rand.Uint32())
}

// openTest creates a fresh library of dimension dim, dropped at the end.
func openTest(t testing.TB, dim int) *Store {
	t.Helper()
	loc := testLocation(t)
	name := libraryName(t)
	s, err := Open(context.Background(), loc, store.Options{Library: name, Info: store.Info{Embedder: "test", Dimension: dim}, Create: true})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() {
		s.Close()
		if err := (Backend{}).Drop(context.Background(), loc, name); err != nil {
			t.Errorf("drop: %v", err)
		}
	})
	return s
}

// reopen opens the same library again with a pool of its own, as another
// process would.
func reopen(t testing.TB, s *Store) *Store {
	t.Helper()
	o, err := Open(context.Background(), testLocation(t), store.Options{Library: s.name, Info: s.info})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	t.Cleanup(func() { o.Close() })
	return o
}

// randVec is a random vector with components in [-1, 1).
func randVec(rng *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = rng.Float32()*2 - 1
	}
	return v
}

// makePut is a document of n segments with random vectors; every segment
// gets text "doc {id} segment {i}" plus words.
func makePut(rng *rand.Rand, id string, n, dim int) store.Put {
	p := store.Put{Document: store.Document{ID: id, Path: "/papers/" + id + ".pdf", Hash: id, Title: "Title of " + id, Format: "pdf"}}
	for i := range n {
		p.Segments = append(p.Segments, store.Segment{
			ID: id + ":" + strconv.Itoa(i), DocumentID: id, Index: i,
			Text:   fmt.Sprintf("document %s segment %d", id, i),
			Vector: randVec(rng, dim),
			Start:  i * 10, End: i*10 + 9,
		})
	}
	return p
}

func mustUpdate(t testing.TB, s *Store, puts []store.Put, deletes []string) {
	t.Helper()
	if err := s.Update(context.Background(), puts, deletes); err != nil {
		t.Fatalf("update: %v", err)
	}
}

// checkWhole fails unless every document of s has exactly its segments
// 0..n-1, and returns the number of segments.
func checkWhole(t testing.TB, s *Store) int {
	t.Helper()
	ctx := context.Background()
	docs, err := s.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, d := range docs {
		segs, err := s.Segments(ctx, d.ID, 0, -1)
		if err != nil {
			t.Fatal(err)
		}
		if len(segs) != d.Segments {
			t.Fatalf("document %s has %d segments, says %d", d.ID, len(segs), d.Segments)
		}
		for i, sg := range segs {
			if sg.Index != i {
				t.Fatalf("document %s: segment %d has index %d", d.ID, i, sg.Index)
			}
		}
		total += len(segs)
	}
	n, err := s.Len(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n != total {
		t.Fatalf("Len = %d, documents hold %d", n, total)
	}
	checkKeywordStats(t, s)
	return total
}

// checkKeywordStats fails unless the keyword statistics the writes keep
// (chunk and parent counts, total length, document frequencies) equal the
// ones counted afresh from the chunks, and parents have no vector and no
// terms.
func checkKeywordStats(t testing.TB, s *Store) {
	t.Helper()
	var bad int
	err := s.pool.QueryRow(context.Background(), `
		WITH fresh AS (SELECT t.term, count(*)::int AS df FROM `+s.chunks+` c, unnest(c.terms) AS t(term) GROUP BY t.term),
		kept AS (SELECT term, df FROM rag_terms WHERE collection_id = $1)
		SELECT (SELECT count(*) FROM fresh FULL JOIN kept USING (term) WHERE fresh.df IS DISTINCT FROM kept.df)
			+ (SELECT count(*) FROM rag_collections r,
				(SELECT count(*) AS n, coalesce(sum(term_count), 0) AS total FROM `+s.chunks+`) x,
				(SELECT count(*) AS n, count(*) FILTER (WHERE p.vector IS NULL AND p.terms = '{}' AND p.term_count = 0) AS bare
					FROM `+s.chunks+` p WHERE p.parent_chunk_id IS NULL
					AND EXISTS (SELECT 1 FROM `+s.chunks+` c WHERE c.document_id = p.document_id AND c.parent_chunk_id = p.id)) pa
				WHERE r.id = $1 AND (r.chunk_count <> x.n OR r.term_total <> x.total OR r.parent_count <> pa.n OR pa.bare <> pa.n))`, s.coll).Scan(&bad)
	if err != nil {
		t.Fatal(err)
	}
	if bad != 0 {
		t.Fatalf("%d keyword statistics differ from the chunks'", bad)
	}
}

// normalised is v scaled to length 1.
func normalised(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) / math.Sqrt(sum))
	}
	return out
}

// near reports whether a and b are equal to float32 precision.
func near(a, b []float32) bool { return storetest.Near(a, b) }
