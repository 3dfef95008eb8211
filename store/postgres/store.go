package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ibid-dev/ibid/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgvector/pgvector-go"
)

// Store is one library: a row of rag_collections, its documents, and its
// partition of rag_chunks.
//
// Invariants: coll is the id of the rag_collections row named name; the
// library's chunks live in the partition named by partition(coll), whose
// HNSW index is over the expression vec.expr; info is the row's embedder and
// dimension, which never change while the collection exists. SQL texts inline
// only coll and the dimension (numbers read from the database, never user
// input) so that the planner sees the partition and the index expression;
// everything else is an argument. All methods are safe for concurrent use:
// the pool hands each call its own connection.
type Store struct {
	pool     *pgxpool.Pool
	name     string
	coll     int64
	info     store.Info
	vec      vecType
	chunks   string // the partition's table name
	readOnly bool
	lockWait time.Duration // how long Update waits for another writer
	indexMin int           // vector components from which the library has an HNSW index
	closed   atomic.Bool
	merge    merger // merges the keyword index after bulk loads (bulk.go)
	noDefer  bool   // bulk loads keep the keyword index up to date as they go (measurements compare)
}

var (
	_ store.Store           = (*Store)(nil)
	_ store.DocumentCounter = (*Store)(nil)
)

// Open opens (and with opt.Create, creates) the library opt names in the
// database at location, migrating the schema first if it is older than
// this binary.
func Open(ctx context.Context, location string, opt store.Options) (*Store, error) {
	name := opt.LibraryName()
	if err := store.ValidName(name); err != nil {
		return nil, err
	}
	cfg, err := parseLocation(location)
	if err != nil {
		return nil, err
	}
	create := opt.Create && !opt.ReadOnly
	if err := connectMigrate(ctx, cfg, create, opt.ReadOnly); err != nil {
		if errors.Is(err, errNoSchema) {
			return nil, fmt.Errorf("%w: %q (this PostgreSQL database holds no ibid libraries yet)", store.ErrNoLibrary, name)
		}
		return nil, err
	}
	pool, err := newPool(ctx, cfg)
	if err != nil {
		return nil, err
	}
	s := &Store{pool: pool, name: name, readOnly: opt.ReadOnly, lockWait: writerWait, indexMin: defaultIndexMin}
	if err := s.attach(ctx, opt.Info, create); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

// attach finds the collection (creating it when asked) and checks its
// embedder against want.
func (s *Store) attach(ctx context.Context, want store.Info, create bool) error {
	err := s.pool.QueryRow(ctx, `SELECT id, embedder, dimension FROM rag_collections WHERE name = $1`, s.name).
		Scan(&s.coll, &s.info.Embedder, &s.info.Dimension)
	if errors.Is(err, pgx.ErrNoRows) {
		if !create {
			return fmt.Errorf("%w: %q in this PostgreSQL database", store.ErrNoLibrary, s.name)
		}
		if want.Embedder == "" || want.Dimension <= 0 {
			return fmt.Errorf("creating library %q needs an embedder name and a dimension (got %q, %d)", s.name, want.Embedder, want.Dimension)
		}
		err = s.create(ctx, want)
	}
	if err != nil {
		return fmt.Errorf("couldn't open library %q: %w", s.name, classify(err))
	}
	s.vec = newVecType(s.info.Dimension)
	s.chunks = partition(s.coll)
	if want != (store.Info{}) && want != s.info {
		return fmt.Errorf("%w: library %q was built with %q (dimension %d), not %q (dimension %d); "+
			"use that embedder, or drop the library and add the documents again",
			store.ErrEmbedderMismatch, s.name, s.info.Embedder, s.info.Dimension, want.Embedder, want.Dimension)
	}
	return nil
}

// create makes the collection, its partition and its indexes in one
// transaction; a concurrent creator of the same name wins or waits, and
// this one then adopts its row.
func (s *Store) create(ctx context.Context, want store.Info) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `INSERT INTO rag_collections (name, embedder, dimension) VALUES ($1, $2, $3)
			ON CONFLICT (name) DO NOTHING RETURNING id, embedder, dimension`, s.name, want.Embedder, want.Dimension).
			Scan(&s.coll, &s.info.Embedder, &s.info.Dimension)
		if errors.Is(err, pgx.ErrNoRows) { // created meanwhile by another process, now committed
			return tx.QueryRow(ctx, `SELECT id, embedder, dimension FROM rag_collections WHERE name = $1`, s.name).
				Scan(&s.coll, &s.info.Embedder, &s.info.Dimension)
		}
		if err != nil {
			return err
		}
		// A table made alone and then attached: ATTACH PARTITION takes a
		// lock that lets other libraries' readers and writers go on, where
		// CREATE TABLE … PARTITION OF would stop them all for a moment.
		p := partition(s.coll)
		for _, q := range []string{
			fmt.Sprintf(`CREATE TABLE %s (LIKE rag_chunks INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE)`, p),
			fmt.Sprintf(`ALTER TABLE %s ALTER COLUMN vector SET STORAGE %s, %s`, p, vectorStorage(want.Dimension), unplannedStatistics(0)),
			fmt.Sprintf(`ALTER TABLE rag_chunks ATTACH PARTITION %s FOR VALUES IN (%d)`, p, s.coll),
			fmt.Sprintf(`CREATE INDEX %s ON %s USING gin (terms)`, termsIndexName(p), p),
		} {
			if _, err := tx.Exec(ctx, q); err != nil {
				return err
			}
		}
		return nil // the HNSW index comes with the data (see planIndex)
	})
}

// vectorStorage is how a partition stores its vectors: out of line
// (TOAST) without compression, which floats do not repay. Rows stay narrow,
// so keyword search and neighbour reads touch few pages; HNSW search never
// reads them (the index holds its own copy), only the exact fallback does.
func vectorStorage(int) string { return "EXTERNAL" }

// unplanned are the columns of rag_chunks no query filters, joins or
// sorts by (schema version 5): their statistics target is 0, so that
// autovacuum's ANALYZE after a load samples only the keys, the filter
// columns and the terms. Migration 0005 sets it on rag_chunks and the
// partitions that exist; create sets it on each new partition, which does
// not inherit it.
var unplanned = []string{"vector", "content", "index_content", "metadata", "term_freqs", "term_count", "created_at"}

// unplannedStatistics is the ALTER TABLE clauses setting unplanned's
// statistics targets to target (0: none; -1: the server's default).
func unplannedStatistics(target int) string {
	clauses := make([]string, len(unplanned))
	for i, c := range unplanned {
		clauses[i] = fmt.Sprintf("ALTER COLUMN %s SET STATISTICS %d", c, target)
	}
	return strings.Join(clauses, ", ")
}

// partition names the table holding a collection's chunks.
func partition(coll int64) string { return "rag_chunks_c" + strconv.FormatInt(coll, 10) }

// Info implements store.Store.
func (s *Store) Info() store.Info { return s.info }

// Close implements store.Store.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	s.MergeKeywordIndex()
	s.pool.Close()
	return nil
}

// Name is the library's name.
func (s *Store) Name() string { return s.name }

// read runs fn, a read-only call, and tries it again (up to twice) when the
// connection it got turned out to be broken: the pool drops such
// connections, so the next try gets a fresh one.
func (s *Store) read(ctx context.Context, what string, fn func(ctx context.Context) error) error {
	if s.closed.Load() {
		return store.ErrClosed
	}
	err := fn(ctx)
	for try := 0; try < 2 && err != nil && ctx.Err() == nil && isConnError(err); try++ {
		err = fn(ctx)
	}
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return err
		}
		return fmt.Errorf("couldn't %s in library %q: %w", what, s.name, classify(err))
	}
	return nil
}

// Documents implements store.Store.
func (s *Store) Documents(ctx context.Context) ([]store.Document, error) {
	var docs []store.Document
	err := s.read(ctx, "list documents", func(ctx context.Context) error {
		rows, err := s.pool.Query(ctx, `SELECT structure_data FROM rag_documents WHERE collection_id = $1`, s.coll)
		if err != nil {
			return err
		}
		docs, err = pgx.CollectRows(rows, scanDocument)
		return err
	})
	return docs, err
}

func scanDocument(r pgx.CollectableRow) (store.Document, error) {
	var raw []byte
	var d store.Document
	if err := r.Scan(&raw); err != nil {
		return d, err
	}
	err := json.Unmarshal(raw, &d)
	return d, err
}

// Document implements store.Store.
func (s *Store) Document(ctx context.Context, id string) (store.Document, error) {
	var doc store.Document
	err := s.read(ctx, "read document "+id, func(ctx context.Context) error {
		rows, err := s.pool.Query(ctx, `SELECT structure_data FROM rag_documents WHERE collection_id = $1 AND id = $2`, s.coll, id)
		if err != nil {
			return err
		}
		doc, err = pgx.CollectExactlyOneRow(rows, scanDocument)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("document %s: %w", id, store.ErrNotFound)
		}
		return err
	})
	return doc, err
}

// segmentColumns is what scanSegment reads, in order.
const segmentColumns = `c.document_id, c.chunk_index, c.content, c.index_content, c.parent_chunk_id, c.metadata`

// metadata is the JSON of rag_chunks.metadata. Boxes are omitted when a
// segment has none; their float32 coordinates round-trip exactly, since
// encoding/json writes the shortest decimal that parses back to the same
// float32 (store.CheckBoxes keeps NaN and infinities, which JSON cannot
// hold, out). Rows written before boxes existed read as having none.
type metadata struct {
	Section   []string    `json:"section,omitempty"`
	PageStart int         `json:"page_start,omitempty"`
	PageEnd   int         `json:"page_end,omitempty"`
	Start     int         `json:"start"`
	End       int         `json:"end"`
	Boxes     []store.Box `json:"boxes,omitempty"`
}

// scanSegment reads segmentColumns and then the extra destinations.
func scanSegment(r pgx.Row, extra ...any) (store.Segment, error) {
	var sg store.Segment
	var parent *string
	var raw []byte
	dest := append([]any{&sg.DocumentID, &sg.Index, &sg.Text, &sg.IndexText, &parent, &raw}, extra...)
	if err := r.Scan(dest...); err != nil {
		return sg, err
	}
	var m metadata
	if err := json.Unmarshal(raw, &m); err != nil {
		return sg, fmt.Errorf("chunk %s:%d has unreadable metadata: %w", sg.DocumentID, sg.Index, err)
	}
	sg.ID = sg.DocumentID + ":" + strconv.Itoa(sg.Index)
	if parent != nil {
		sg.Parent = *parent
	}
	sg.Section, sg.PageStart, sg.PageEnd, sg.Start, sg.End, sg.Boxes = m.Section, m.PageStart, m.PageEnd, m.Start, m.End, m.Boxes
	return sg, nil
}

// Segment implements store.Store.
func (s *Store) Segment(ctx context.Context, id string) (store.Segment, store.Document, error) {
	var sg store.Segment
	var doc store.Document
	i := strings.LastIndexByte(id, ':')
	idx, err := strconv.Atoi(id[i+1:])
	if i < 0 || err != nil || idx < 0 {
		return sg, doc, fmt.Errorf("segment %q (an id is document:index): %w", id, store.ErrNotFound)
	}
	err = s.read(ctx, "read segment "+id, func(ctx context.Context) error {
		var raw []byte
		row := s.pool.QueryRow(ctx, `SELECT `+segmentColumns+`, d.structure_data FROM `+s.chunks+` c
			JOIN rag_documents d ON d.collection_id = c.collection_id AND d.id = c.document_id
			WHERE c.document_id = $1 AND c.chunk_index = $2`, id[:i], idx)
		var err error
		sg, err = scanSegment(row, &raw)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("segment %s: %w", id, store.ErrNotFound)
		}
		if err != nil {
			return err
		}
		return json.Unmarshal(raw, &doc)
	})
	return sg, doc, err
}

// Segments implements store.Store.
func (s *Store) Segments(ctx context.Context, docID string, from, to int) ([]store.Segment, error) {
	if to < 0 {
		to = int(^uint32(0) >> 1)
	}
	from = max(from, 0)
	var segs []store.Segment
	err := s.read(ctx, "read the segments of "+docID, func(ctx context.Context) error {
		if err := s.mustHave(ctx, docID); err != nil {
			return err
		}
		rows, err := s.pool.Query(ctx, `SELECT `+segmentColumns+` FROM `+s.chunks+` c
			WHERE c.document_id = $1 AND c.chunk_index >= $2 AND c.chunk_index < $3 ORDER BY c.chunk_index`, docID, from, to)
		if err != nil {
			return err
		}
		segs, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.Segment, error) { return scanSegment(r) })
		return err
	})
	return segs, err
}

// mustHave returns an error wrapping store.ErrNotFound unless the document
// is in the library.
func (s *Store) mustHave(ctx context.Context, docID string) error {
	var ok bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM rag_documents WHERE collection_id = $1 AND id = $2)`, s.coll, docID).Scan(&ok)
	if err == nil && !ok {
		return fmt.Errorf("document %s: %w", docID, store.ErrNotFound)
	}
	return err
}

// Vectors implements store.Store. A segment stored with an all-zero vector
// (kept as NULL) reads back as zeros.
func (s *Store) Vectors(ctx context.Context, docID string) ([][]float32, error) {
	var vecs [][]float32
	err := s.read(ctx, "read the vectors of "+docID, func(ctx context.Context) error {
		if err := s.mustHave(ctx, docID); err != nil {
			return err
		}
		rows, err := s.pool.Query(ctx, `SELECT c.vector FROM `+s.chunks+` c WHERE c.document_id = $1 ORDER BY c.chunk_index`, docID)
		if err != nil {
			return err
		}
		vecs, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) ([]float32, error) {
			var v *pgvector.Vector
			if err := r.Scan(&v); err != nil {
				return nil, err
			}
			if v == nil {
				return make([]float32, s.info.Dimension), nil
			}
			return v.Slice(), nil
		})
		return err
	})
	return vecs, err
}

// DocumentCount implements store.DocumentCounter: a count of the
// library's rows in rag_documents (its primary key's index), no document
// read.
func (s *Store) DocumentCount(ctx context.Context) (int, error) {
	var n int
	err := s.read(ctx, "count documents", func(ctx context.Context) error {
		return s.pool.QueryRow(ctx, `SELECT count(*) FROM rag_documents WHERE collection_id = $1`, s.coll).Scan(&n)
	})
	return n, err
}

// Len implements store.Store.
func (s *Store) Len(ctx context.Context) (int, error) {
	var n int
	err := s.read(ctx, "count segments", func(ctx context.Context) error {
		return s.pool.QueryRow(ctx, `SELECT count(*) FROM `+s.chunks).Scan(&n)
	})
	return n, err
}
