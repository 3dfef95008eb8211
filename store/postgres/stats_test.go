package postgres

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ibid-dev/ibid/store"
)

// TestFirstBulkLoadHasStatistics: a bulk batch that at least doubles a
// library gathers the planner's statistics in its transaction, so a new
// library's first load is planned with them at once (smaller growth is
// left to autovacuum); the vectors, texts and terms get none.
func TestFirstBulkLoadHasStatistics(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, 4)
	rng := rand.New(rand.NewPCG(9, 9))
	var puts []store.Put
	for d := range bulkMin / 100 {
		puts = append(puts, makePut(rng, fmt.Sprintf("doc%03d", d), 100, 4))
	}
	mustUpdate(t, s, puts, nil)
	var tuples float64
	if err := s.pool.QueryRow(ctx, `SELECT reltuples FROM pg_class WHERE oid = $1::regclass`, s.chunks).Scan(&tuples); err != nil {
		t.Fatal(err)
	}
	if int(tuples) != bulkMin {
		t.Fatalf("reltuples after the first bulk batch = %v, want %d (ANALYZE in the batch)", tuples, bulkMin)
	}
	var cols []string
	rows, err := s.pool.Query(ctx, `SELECT attname::text FROM pg_stats WHERE tablename = $1 ORDER BY attname`, s.chunks)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			t.Fatal(err)
		}
		cols = append(cols, c)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := "[document_id id page_end page_start parent_chunk_id section_key]"
	if got := fmt.Sprint(cols); got != want {
		t.Fatalf("columns with statistics: %v, want %v", got, want)
	}
}
