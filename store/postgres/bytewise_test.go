package postgres

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/store"
	"github.com/jackc/pgx/v5"
)

// bytewiseColumns are the columns schema version 4 compares byte by byte,
// as table.column; rag_chunks' stand for every partition's too.
var bytewiseColumns = []string{"rag_documents.id", "rag_chunks.document_id", "rag_chunks.id",
	"rag_chunks.parent_chunk_id", "rag_chunks.terms", "rag_terms.term"}

// collations gives the collation of each of bytewiseColumns in table
// (rag_chunks' columns read from part instead).
func collations(t *testing.T, conn *pgx.Conn, part string) []string {
	t.Helper()
	var out []string
	for _, col := range bytewiseColumns {
		table, column, _ := strings.Cut(col, ".")
		if table == "rag_chunks" && part != "" {
			table = part
		}
		var coll string
		err := conn.QueryRow(context.Background(), `SELECT coalesce(l.collname, '') FROM pg_attribute a
			LEFT JOIN pg_collation l ON l.oid = a.attcollation
			WHERE a.attrelid = $1::regclass AND a.attname = $2`, table, column).Scan(&coll)
		if err != nil {
			t.Fatalf("%s.%s: %v", table, column, err)
		}
		out = append(out, coll)
	}
	return out
}

// TestBytewiseMigration: a library written before schema version 4 (ids
// and terms in the database's collation) keeps its documents and answers
// the same searches after the migration, with its columns and the new
// libraries' in collation "C".
func TestBytewiseMigration(t *testing.T) {
	ctx := context.Background()
	o := newOldLibrary(t, rand.New(rand.NewPCG(4, 4)), "Alpha")
	// Back to version 3: the columns in the database's collation.
	if _, err := o.conn.Exec(ctx, `
		ALTER TABLE rag_documents ALTER COLUMN id TYPE text COLLATE "default";
		ALTER TABLE rag_chunks ALTER COLUMN document_id TYPE text COLLATE "default",
			ALTER COLUMN id TYPE text COLLATE "default", ALTER COLUMN parent_chunk_id TYPE text COLLATE "default",
			ALTER COLUMN terms TYPE text[] COLLATE "default";
		ALTER TABLE rag_terms ALTER COLUMN term TYPE text COLLATE "default";
		DELETE FROM rag_schema_migrations WHERE version >= 4`); err != nil {
		t.Fatal(err)
	}
	if got := collations(t, o.conn, o.part); slices.Contains(got, "C") {
		t.Fatalf("collations at version 3: %v", got)
	}

	o.reopen(t)
	for _, table := range []string{"", o.part} {
		if got := collations(t, o.conn, table); slices.ContainsFunc(got, func(c string) bool { return c != "C" }) {
			t.Fatalf("collations of %v in %q after the migration: %v", bytewiseColumns, table, got)
		}
	}
	// A library made now gets a partition like rag_chunks, bytewise too.
	n, err := Open(ctx, o.loc, store.Options{Library: "new", Info: o.info, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if got := collations(t, o.conn, n.chunks); slices.ContainsFunc(got, func(c string) bool { return c != "C" }) {
		t.Fatalf("collations of a new library's partition: %v", got)
	}
}
