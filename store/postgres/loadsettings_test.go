package postgres

import (
	"context"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ibid-dev/ibid/store"
	"github.com/jackc/pgx/v5"
)

// statisticsTargets reads the statistics target of each column of table
// (-1: the server's default).
func statisticsTargets(t *testing.T, conn *pgx.Conn, table string) map[string]int {
	t.Helper()
	rows, err := conn.Query(context.Background(), `SELECT attname, attstattarget FROM pg_attribute
		WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped`, table)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	var name string
	var target int
	if _, err := pgx.ForEachRow(rows, []any{&name, &target}, func() error { out[name] = target; return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkLoadSettings fails unless part (a library's partition) has
// statistics target 0 on exactly the unplanned columns, the default on
// the others, and rag_terms leaves 30% of each page free.
func checkLoadSettings(t *testing.T, conn *pgx.Conn, part string) {
	t.Helper()
	targets := statisticsTargets(t, conn, part)
	if len(targets) != len(chunkColumns)+1 { // and created_at
		t.Fatalf("%s has columns %v", part, slices.Sorted(maps.Keys(targets)))
	}
	for col, target := range targets {
		want := -1
		if slices.Contains(unplanned, col) {
			want = 0
		}
		if target != want {
			t.Errorf("%s.%s: statistics target %d, want %d", part, col, target, want)
		}
	}
	var opts []string
	if err := conn.QueryRow(context.Background(), `SELECT coalesce(reloptions, '{}') FROM pg_class WHERE oid = 'rag_terms'::regclass`).
		Scan(&opts); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(opts, []string{"fillfactor=70"}) {
		t.Errorf("rag_terms' options: %v, want fillfactor=70", opts)
	}
}

// analysedColumns runs ANALYZE on part and returns the columns it gathered
// statistics for.
func analysedColumns(t *testing.T, conn *pgx.Conn, part string) []string {
	t.Helper()
	ctx := context.Background()
	if _, err := conn.Exec(ctx, `ANALYZE `+part); err != nil {
		t.Fatal(err)
	}
	rows, err := conn.Query(ctx, `SELECT attname::text FROM pg_stats WHERE schemaname = current_schema() AND tablename = $1 ORDER BY 1`, part)
	if err != nil {
		t.Fatal(err)
	}
	cols, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return cols
}

// TestLoadSettingsMigration: a database at schema version 4 gets version
// 5's settings for bulk loads (no statistics on the columns no plan uses,
// room for HOT updates in rag_terms) on its existing libraries, keeps their
// documents and searches, and a library made afterwards gets them too:
// ANALYZE gathers statistics for its keys, filter columns and terms only.
// (An existing library keeps the statistics gathered before, unused, until
// it is dropped: only a superuser may delete them.)
func TestLoadSettingsMigration(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 5))
	o := newOldLibrary(t, rng, "alpha")
	// Back to version 4: every column at the default target, rag_terms full.
	if _, err := o.conn.Exec(ctx, `ALTER TABLE rag_chunks `+unplannedStatistics(-1)+`;
		ALTER TABLE rag_terms RESET (fillfactor);
		DELETE FROM rag_schema_migrations WHERE version >= 5`); err != nil {
		t.Fatal(err)
	}
	if got := statisticsTargets(t, o.conn, o.part); slices.ContainsFunc(slices.Collect(maps.Values(got)), func(v int) bool { return v != -1 }) {
		t.Fatalf("statistics targets at version 4: %v", got)
	}
	if got := analysedColumns(t, o.conn, o.part); !slices.Contains(got, "content") || !slices.Contains(got, "vector") {
		t.Fatalf("ANALYZE at version 4 gathered statistics for %v only", got)
	}

	o.reopen(t)
	checkLoadSettings(t, o.conn, o.part)
	// A library made now gets the same settings on its partition, and
	// ANALYZE leaves out the columns no plan uses.
	n, err := Open(ctx, o.loc, store.Options{Library: "new", Info: o.info, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	checkLoadSettings(t, o.conn, n.chunks)
	mustUpdate(t, n, []store.Put{makePut(rng, "gamma", 6, 8), withParents("delta", 8)}, nil)
	want := []string{"chunk_index", "collection_id", "document_id", "id", "page_end", "page_start", "parent_chunk_id", "section_key", "terms"}
	if got := analysedColumns(t, o.conn, n.chunks); !slices.Equal(got, want) {
		t.Errorf("ANALYZE of a new library gathered statistics for %v, want %v", got, want)
	}
}
