package postgres

import (
	"context"
	"math"
	"slices"
	"strconv"
	"testing"

	"github.com/ibid-dev/ibid/store"
	"github.com/ibid-dev/ibid/store/embedded"
	"github.com/ibid-dev/ibid/store/keyword"
	"github.com/ibid-dev/ibid/store/storetest"
	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"
)

// withParents is a document whose segment 0 is the parent of segments 1
// and 2 (and holds every word of theirs, and one of its own), followed by
// a plain one.
func withParents(id string, dim int) store.Put {
	texts := []string{"Alpha beta gamma, and delta only here.", "Alpha beta.", "Gamma gamma.", "Beta again, alone."}
	p := store.Put{Document: store.Document{ID: id, Path: "/papers/" + id + ".pdf", Hash: id, Format: "pdf"}}
	for i, text := range texts {
		sg := store.Segment{ID: id + ":" + strconv.Itoa(i), DocumentID: id, Index: i, Text: text,
			Vector: storetest.Vector(id, i, dim)}
		if i == 1 || i == 2 {
			sg.Parent = id + ":0"
		}
		p.Segments = append(p.Segments, sg)
	}
	return p
}

// TestParentsScoreAsEmbedded: BM25's statistics leave parents out (N, the
// average length, the document frequencies), so both backends give the
// same scores; the fused search never returns a parent either.
func TestParentsScoreAsEmbedded(t *testing.T) {
	ctx := context.Background()
	const dim = 8
	s := openTest(t, dim)
	mem, err := embedded.NewMemory(s.info)
	if err != nil {
		t.Fatal(err)
	}
	puts := []store.Put{withParents("a", dim), withParents("b", dim), withParents("c", dim)}
	for _, st := range []store.Store{s, mem} {
		if err := st.Update(ctx, puts, nil); err != nil {
			t.Fatal(err)
		}
		if err := st.Update(ctx, []store.Put{withParents("a", dim)}, []string{"c"}); err != nil { // replace and delete
			t.Fatal(err)
		}
	}
	checkWhole(t, s)
	for _, q := range []string{"alpha", "gamma beta", "beta again", "delta"} {
		want, err := mem.Keyword(ctx, q, 10, store.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Keyword(ctx, q, 10, store.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(hitIDs(got), hitIDs(want)) {
			t.Fatalf("Keyword(%q) = %v, embedded says %v", q, hitIDs(got), hitIDs(want))
		}
		for i := range got {
			if math.Abs(got[i].Score-want[i].Score) > 1e-9 {
				t.Fatalf("Keyword(%q): %s scores %v, embedded %v", q, got[i].Segment.ID, got[i].Score, want[i].Score)
			}
		}
		hy, err := s.Hybrid(ctx, q, storetest.Vector("a", 0, dim), 20, store.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		ids := hitIDs(hy)
		if len(ids) != 6 || slices.Contains(ids, "a:0") || slices.Contains(ids, "b:0") {
			t.Fatalf("Hybrid(%q) = %v; want the 6 segments that are not parents", q, ids)
		}
	}
}

// TestParentsMigration: a library written before schema version 2, whose
// parent still has a vector and terms counted in the statistics, is set
// right by the migration.
func TestParentsMigration(t *testing.T) {
	ctx := context.Background()
	loc := freshDatabase(t)
	info := store.Info{Embedder: "test", Dimension: 8}
	s, err := Open(ctx, loc, store.Options{Library: "old", Info: info, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	p := withParents("a", info.Dimension)
	mustUpdate(t, s, []store.Put{p, withParents("b", info.Dimension)}, nil)
	part := s.chunks
	s.Close()

	// Make a:0 and b:0 what version 1 wrote (a vector, terms, counted),
	// and the schema version 1's (no later tables).
	conn, err := pgx.Connect(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	terms, freqs, n := termFreqs(p.Segments[0].Text)
	for _, id := range []string{"a:0", "b:0"} {
		if _, err := conn.Exec(ctx, `UPDATE `+part+` SET vector = $2, terms = $3, term_freqs = $4, term_count = $5 WHERE id = $1`,
			id, pgvector.NewVector(storetest.Vector(id[:1], 0, info.Dimension)), terms, freqs, n); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, `INSERT INTO rag_terms (collection_id, term, df)
			SELECT collection_id, t, 1 FROM `+part+`, unnest($2::text[]) AS t WHERE id = $1
			ON CONFLICT (collection_id, term) DO UPDATE SET df = rag_terms.df + 1`, id, terms); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := conn.Exec(ctx, `UPDATE rag_collections SET term_total = term_total + $1`, 2*n); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `DROP TABLE rag_settings; ALTER TABLE rag_collections DROP COLUMN parent_count; DELETE FROM rag_schema_migrations WHERE version >= 2`); err != nil {
		t.Fatal(err)
	}

	s, err = Open(ctx, loc, store.Options{Library: "old", Info: info})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, err := currentVersion(ctx, conn); err != nil || v != schemaVersion() {
		t.Fatalf("version %d, %v", v, err)
	}
	checkWhole(t, s) // the statistics, parent_count, and parents without vector or terms
	hits, err := s.Dense(ctx, storetest.Vector("a", 0, info.Dimension), 10, store.Filter{})
	if err != nil || len(hits) != 6 || slices.Contains(hitIDs(hits), "a:0") || slices.Contains(hitIDs(hits), "b:0") {
		t.Fatalf("Dense after the migration: %v, %v", hitIDs(hits), err)
	}
	if hits, err := s.Keyword(ctx, "delta", 10, store.Filter{}); err != nil || len(hits) != 0 {
		t.Fatalf("Keyword(delta), a word of the parents only: %v, %v", hitIDs(hits), err)
	}
	if df, segs, err := s.DocFreq(ctx, keyword.Tokenize("delta alpha")); err != nil || segs != 6 || !slices.Equal(df, []int{0, 2}) {
		t.Fatalf("DocFreq = %v, %d, %v; want [0 2], 6", df, segs, err)
	}
}
