package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/ibid-dev/ibid/store"
	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"
)

// When indexes are built (see Store.planIndexes):
//   - defaultIndexMin: a library gets its HNSW index once it holds this
//     many vector components (segments × dimension; 5,000,000 is 6,500
//     segments of dimension 768). Below it an exact scan answers as fast,
//     and writes are not slowed by index upkeep.
//   - bulkMin: a batch of at least this many segments defers the upkeep of
//     the keyword index (bulk.go). When it is also at least a third of the
//     library it joins, the library's HNSW index is dropped and built again
//     in the same transaction: building is about four times faster a row
//     than inserting, so the rebuild of the whole costs less than inserting
//     the batch. Readers of that library then wait for the batch to commit.
const (
	defaultIndexMin = 5_000_000
	bulkMin         = 2000
)

// Update implements store.Store: one transaction, holding the library's
// writer lock; deletes, then the documents replaced by puts, then the puts
// loaded with COPY. A crash or a lost connection at any point rolls the
// whole batch back, so a library only ever holds whole documents.
func (s *Store) Update(ctx context.Context, puts []store.Put, deletes []string) error {
	if s.closed.Load() {
		return store.ErrClosed
	}
	if s.readOnly {
		return store.ErrReadOnly
	}
	if len(puts) == 0 && len(deletes) == 0 {
		return nil
	}
	b, err := s.prepare(puts)
	if err != nil {
		return err
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error { return s.write(ctx, tx, b, deletes) })
	b.terms.wait() // a failed write leaves no worker behind
	if err != nil {
		return fmt.Errorf("couldn't update library %q (nothing was changed): %w", s.name, classify(err))
	}
	if b.deferred {
		s.mergeSoon()
	}
	return nil
}

// batch is a validated Update: rows ready for COPY, but for their keyword
// terms, which workers analyse while the rows stream to the server.
//
// Invariant: a chunk row's terms, term_freqs and term_count are read only
// after its document's ready channel is closed (terms.go); terms, dfTerms
// and dfCounts only after done.
type batch struct {
	ids     []string // the documents put, once each
	docs    [][]any
	chunks  [][]any
	parents int // how many of the chunks are parents (store.Parents)
	terms   *analysis
	// deferred: the batch left its keyword index entries pending (bulk.go)
	deferred bool
}

// docColumns and chunkColumns are the columns COPY fills.
var (
	docColumns   = []string{"collection_id", "id", "title", "path", "base_name", "structure_data"}
	chunkColumns = []string{"collection_id", "document_id", "chunk_index", "id", "content", "index_content",
		"vector", "parent_chunk_id", "section_key", "page_start", "page_end", "metadata", "terms", "term_freqs", "term_count"}
)

// prepare checks a batch (ids, dimensions, text PostgreSQL can hold) and
// turns it into rows on every core, then starts the analysis of their keyword
// texts (terms.go), which goes on while the rows are copied.
// A document put twice keeps its last version.
func (s *Store) prepare(puts []store.Put) (*batch, error) {
	last := make(map[string]int, len(puts))
	for i := range puts {
		last[puts[i].Document.ID] = i
	}
	b := &batch{}
	now := time.Now().Unix()
	var keep []int       // indexes of the puts written
	var offsets []int    // where each kept put's chunk rows start
	var parents [][]bool // the parents of each kept put
	docs := []store.Document{}
	total := 0
	for i := range puts {
		p := &puts[i]
		doc := p.Document
		if doc.ID == "" {
			return nil, fmt.Errorf("document has no ID (path %q)", doc.Path)
		}
		if last[doc.ID] != i {
			continue
		}
		parent, err := store.Parents(p.Segments)
		if err != nil {
			return nil, fmt.Errorf("document %s: %w", doc.ID, err)
		}
		for _, yes := range parent {
			if yes {
				b.parents++
			}
		}
		parents = append(parents, parent)
		if doc.Added == 0 {
			doc.Added = now
		}
		doc.Segments = len(p.Segments)
		raw, err := json.Marshal(doc)
		if err != nil {
			return nil, fmt.Errorf("document %s: %w", doc.ID, err)
		}
		if err := storable("document "+doc.ID, doc.ID, doc.Title, doc.Path); err != nil {
			return nil, err
		}
		b.ids = append(b.ids, doc.ID)
		b.docs = append(b.docs, []any{s.coll, doc.ID, doc.Title, doc.Path, filepath.Base(doc.Path), json.RawMessage(raw)})
		keep = append(keep, i)
		offsets = append(offsets, total)
		docs = append(docs, doc)
		total += len(p.Segments)
	}
	b.chunks = make([][]any, total)
	errs := make([]error, len(keep))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(keep)) {
		wg.Go(func() {
			for k := int(next.Add(1) - 1); k < len(keep); k = int(next.Add(1) - 1) {
				p := &puts[keep[k]]
				for j := range p.Segments {
					row, err := s.chunkRow(&docs[k], j, &p.Segments[j], parents[k][j])
					if err != nil {
						errs[k] = err
						break
					}
					b.chunks[offsets[k]+j] = row
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs { // the first bad document's error, as a sequential pass would give
		if err != nil {
			return nil, err
		}
	}
	b.terms = analyse(b.chunks, offsets, parents)
	return b, nil
}

// chunkRow checks segment j of doc and makes its rag_chunks row, holding
// in its terms column the text to analyse until analysis replaces it. A
// parent's row has no vector and no terms: neither search finds it, and the
// keyword statistics do not count it.
func (s *Store) chunkRow(doc *store.Document, j int, sg *store.Segment, parent bool) ([]any, error) {
	want := doc.ID + ":" + strconv.Itoa(j)
	if sg.ID != want || sg.DocumentID != doc.ID || sg.Index != j {
		return nil, fmt.Errorf("segment %d of document %s has ID %q, document %q, index %d; want %q, %q, %d",
			j, doc.ID, sg.ID, sg.DocumentID, sg.Index, want, doc.ID, j)
	}
	if len(sg.Vector) != s.info.Dimension {
		return nil, fmt.Errorf("%w: segment %s has a vector of dimension %d, library %q's is %d",
			store.ErrEmbedderMismatch, sg.ID, len(sg.Vector), s.name, s.info.Dimension)
	}
	if err := storable("segment "+sg.ID, sg.Text, sg.IndexText, sg.Parent, strings.Join(sg.Section, "")); err != nil {
		return nil, err
	}
	if err := store.CheckBoxes(sg); err != nil {
		return nil, err
	}
	var vec any    // NULL for the zero vector: never indexed, never returned
	v := sg.Vector // the caller's: copied only if Normalize would scale it
	if !unitLength(v) {
		v = append([]float32(nil), v...)
	}
	zero, err := store.Normalize(v)
	if err != nil {
		return nil, fmt.Errorf("segment %s: %w", sg.ID, err)
	}
	if !zero && !parent { // stored normalised, as the embedded store keeps them
		vec = pgvector.NewVector(v)
	}
	var parentID any
	if sg.Parent != "" {
		parentID = sg.Parent
	}
	meta, err := json.Marshal(metadata{Section: sg.Section, PageStart: sg.PageStart, PageEnd: sg.PageEnd, Start: sg.Start, End: sg.End, Boxes: store.StoredBoxes(sg.Boxes)})
	if err != nil {
		return nil, err
	}
	return []any{s.coll, doc.ID, j, sg.ID, sg.Text, sg.IndexText, vec, parentID,
		strings.ToLower(store.SectionPath(sg.Section)), sg.PageStart, sg.PageEnd, json.RawMessage(meta),
		sg.KeywordText(), nil, nil}, nil // terms: see analysis
}

// storable refuses text PostgreSQL cannot hold in a text column: invalid
// UTF-8 and NUL bytes.
func storable(what string, texts ...string) error {
	for _, t := range texts {
		if !utf8.ValidString(t) {
			return fmt.Errorf("%s has text that is not valid UTF-8, which PostgreSQL cannot store; convert the file to UTF-8 and add it again", what)
		}
		if strings.IndexByte(t, 0) >= 0 {
			return fmt.Errorf("%s has a NUL byte in its text, which PostgreSQL cannot store; remove it from the file and add it again", what)
		}
	}
	return nil
}

// write runs a batch inside tx.
func (s *Store) write(ctx context.Context, tx pgx.Tx, b *batch, deletes []string) error {
	if err := lockCollection(ctx, tx, s.coll, s.lockWait); err != nil {
		return err
	}
	// The documents that go: those deleted (each must exist) and those
	// that the batch replaces (those of its documents the library holds).
	rows, err := tx.Query(ctx, `SELECT id FROM rag_documents WHERE collection_id = $1 AND id = ANY($2)`,
		s.coll, append(append([]string(nil), deletes...), b.ids...))
	if err != nil {
		return err
	}
	found, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	have := make(map[string]bool, len(found))
	for _, id := range found {
		have[id] = true
	}
	for _, id := range deletes {
		if !have[id] {
			return fmt.Errorf("can't delete document %s: %w", id, store.ErrNotFound)
		}
	}
	gone := append([]string(nil), deletes...)
	for _, id := range b.ids {
		if have[id] {
			gone = append(gone, id)
		}
	}
	if err := s.remove(ctx, tx, gone); err != nil {
		return err
	}
	if len(b.docs) == 0 {
		return nil
	}
	plan, err := s.planIndexes(ctx, tx, len(b.chunks))
	if err != nil {
		return err
	}
	if len(b.chunks) >= bulkMin && !s.noDefer {
		if _, err := tx.Exec(ctx, `SET LOCAL gin_pending_list_limit = '`+pendingLimit+`'`); err != nil {
			return err
		}
		b.deferred = true
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"rag_documents"}, docColumns, pgx.CopyFromRows(b.docs)); err != nil {
		return fmt.Errorf("couldn't copy documents: %w", err)
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{s.chunks}, chunkColumns, b.terms.stream()); err != nil {
		return fmt.Errorf("couldn't copy segments: %w", err)
	}
	df := b.terms.wait()
	if _, err := tx.Exec(ctx, `UPDATE rag_collections SET chunk_count = chunk_count + $2, term_total = term_total + $3,
		parent_count = parent_count + $4 WHERE id = $1`,
		s.coll, len(b.chunks), df.total, b.parents); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO rag_terms (collection_id, term, df)
		SELECT $1, u.term, u.df FROM unnest($2::text[], $3::int[]) AS u(term, df)
		ON CONFLICT (collection_id, term) DO UPDATE SET df = rag_terms.df + EXCLUDED.df`,
		s.coll, df.terms, df.counts); err != nil {
		return fmt.Errorf("couldn't count terms: %w", err)
	}
	if !plan.hnsw && !plan.terms && !plan.analyze {
		return nil
	}
	if _, err := tx.Exec(ctx, `SET LOCAL maintenance_work_mem = '512MB'`); err != nil {
		return err
	}
	if plan.terms {
		if err := createTermsIndex(ctx, tx, s.chunks); err != nil {
			return err
		}
	}
	if plan.hnsw {
		if err := s.vec.createIndex(ctx, tx, s.chunks); err != nil {
			return err
		}
	}
	if !plan.analyze {
		return nil
	}
	// The columns filters and joins plan by: the vectors, texts and terms
	// (most of the table's bytes) have no statistics worth reading.
	_, err = tx.Exec(ctx, `ANALYZE `+s.chunks+` (document_id, id, parent_chunk_id, section_key, page_start, page_end)`)
	return err
}

// remove deletes the documents gone, with their chunks; the library's
// counts and keyword statistics follow. A parent is a chunk an index row
// of its document names, itself no index row (store.Parents). Nothing
// gone, nothing done: a bulk load of new documents costs no statement
// here.
func (s *Store) remove(ctx context.Context, tx pgx.Tx, gone []string) error {
	if len(gone) == 0 {
		return nil
	}
	if _, err := tx.Exec(ctx, `UPDATE rag_collections SET
		(chunk_count, parent_count, term_total) = (SELECT chunk_count - count(*),
			parent_count - count(*) FILTER (WHERE c.parent_chunk_id IS NULL AND EXISTS (
				SELECT 1 FROM `+s.chunks+` x WHERE x.document_id = c.document_id AND x.parent_chunk_id = c.id)),
			term_total - coalesce(sum(c.term_count), 0)
			FROM `+s.chunks+` c WHERE c.document_id = ANY($2))
		WHERE id = $1`, s.coll, gone); err != nil {
		return err
	}
	if err := s.countTerms(ctx, tx, gone, -1); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `DELETE FROM `+s.chunks+` WHERE document_id = ANY($1)`, gone); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `DELETE FROM rag_documents WHERE collection_id = $1 AND id = ANY($2)`, s.coll, gone); err != nil {
		return err
	}
	return nil
}

// indexPlan says which indexes a batch builds after its COPY, and whether
// it then gathers the planner's statistics.
type indexPlan struct{ hnsw, terms, analyze bool }

// planIndexes decides, before a batch of n segments is copied, which
// indexes to build after it: the HNSW index when the library has none and
// will be big enough for one; both when the batch is big enough to rebuild
// them (they are dropped now; see bulkMin). Statistics are gathered when
// the library gets its first HNSW index and after a bulk batch that at
// least doubles the library: the planner then knows a new library's
// columns at once. Smaller growth is left to autovacuum, which analyses a
// table once a tenth of it has changed: an ANALYZE in the batch took about a
// sixth of the writer's time in a profile of bulk loads, and autovacuum
// did it again anyway (the batch's rows count as changes once it commits).
func (s *Store) planIndexes(ctx context.Context, tx pgx.Tx, n int) (indexPlan, error) {
	var have int
	var exists bool
	err := tx.QueryRow(ctx, `SELECT chunk_count, to_regclass($2) IS NOT NULL FROM rag_collections WHERE id = $1`,
		s.coll, indexName(s.chunks)).Scan(&have, &exists)
	if err != nil {
		return indexPlan{}, err
	}
	if n >= bulkMin && 3*n >= have {
		hnsw := s.vec.indexed && (exists || (have+n)*s.info.Dimension >= s.indexMin)
		plan := indexPlan{hnsw: hnsw, analyze: n >= have || (hnsw && !exists)}
		if !s.noDefer {
			// The keyword index stays, its upkeep deferred (bulk.go):
			// cheaper than building it again.
			_, err := tx.Exec(ctx, `DROP INDEX IF EXISTS `+indexName(s.chunks))
			return plan, err
		}
		plan.terms = true
		_, err := tx.Exec(ctx, `DROP INDEX IF EXISTS `+indexName(s.chunks)+`, `+termsIndexName(s.chunks))
		return plan, err
	}
	hnsw := s.vec.indexed && !exists && (have+n)*s.info.Dimension >= s.indexMin
	return indexPlan{hnsw: hnsw, analyze: hnsw}, nil
}

// countTerms adds sign × the document frequencies of the chunks of docs to
// rag_terms (-1 before they are deleted), and forgets terms no chunk holds
// any more. (A batch's new chunks are counted by prepare, in Go.)
func (s *Store) countTerms(ctx context.Context, tx pgx.Tx, docs []string, sign int) error {
	if len(docs) == 0 {
		return nil
	}
	_, err := tx.Exec(ctx, `INSERT INTO rag_terms (collection_id, term, df)
		SELECT $1, t.term, $3 * count(*) FROM `+s.chunks+` c, unnest(c.terms) AS t(term)
		WHERE c.document_id = ANY($2) GROUP BY t.term
		ON CONFLICT (collection_id, term) DO UPDATE SET df = rag_terms.df + EXCLUDED.df`, s.coll, docs, sign)
	if err != nil {
		return fmt.Errorf("couldn't count terms: %w", err)
	}
	if sign < 0 {
		_, err = tx.Exec(ctx, `DELETE FROM rag_terms WHERE collection_id = $1 AND df <= 0`, s.coll)
	}
	return err
}

// unitLength reports whether store.Normalize leaves v as it is: its length
// (summed as Normalize sums it) is within 1e-7 of 1. Most embedders'
// vectors are, and a bulk load then makes no copy of them.
func unitLength(v []float32) bool {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	return math.Abs(math.Sqrt(sum)-1) < 1e-7
}
