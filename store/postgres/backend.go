// Package postgres keeps ibid's libraries in PostgreSQL with pgvector: one
// database holds many libraries (collections), shared by every ibid that
// points at it. It registers itself for "postgres://" and "postgresql://"
// locations; import it for that side effect:
//
//	import _ "github.com/ibid-dev/ibid/store/postgres"
//
// The schema (rag_collections, rag_documents, rag_chunks, rag_terms) ships
// in the binary as versioned migrations that run on first use. rag_chunks
// is partitioned by collection, one partition per library, so that each
// library has an HNSW index typed with its own dimension and a library is
// dropped by emptying a table. Batches are written in one transaction with
// COPY; dense search, keyword search (BM25 over the terms of ibid's own
// analyser, store/keyword, found through a GIN index) and their fusion are
// answered by the database. docs/postgres.md says what is created, how it
// behaves and how fast it is.
package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/ibid-dev/ibid/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	pgxvec "github.com/pgvector/pgvector-go/pgx"
)

func init() { store.Register("postgres", Backend{}) }

// Backend opens, lists and drops libraries in a PostgreSQL database.
type Backend struct{}

// querier is what pgx.Conn, pgx.Tx and pgxpool.Pool have in common.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Open implements store.Backend.
func (Backend) Open(ctx context.Context, location string, opt store.Options) (store.Store, error) {
	return Open(ctx, location, opt)
}

// parseLocation reads a postgres:// location. Its errors never repeat the
// location, which may hold a password.
func parseLocation(location string) (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(location)
	if err != nil {
		var perr *pgconn.ParseConfigError
		if errors.As(err, &perr) {
			err = errors.New(perr.Error())
		}
		return nil, fmt.Errorf("couldn't read the PostgreSQL location (%v); write it as postgres://user:password@host:5432/database", redact(err))
	}
	return cfg, nil
}

// redact drops anything after "password" in an error's text.
func redact(err error) string {
	return redactString(err.Error())
}

// connectMigrate opens one connection, brings the schema up to date (see
// migrate), and closes it.
func connectMigrate(ctx context.Context, cfg *pgxpool.Config, create, readOnly bool) error {
	conn, err := pgx.ConnectConfig(ctx, cfg.ConnConfig.Copy())
	if err != nil {
		return connectError(err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return migrate(ctx, conn, create, readOnly)
}

// newPool opens a connection pool whose connections know pgvector's types
// and encode a chunk row's terms quickly (arrays.go).
func newPool(ctx context.Context, cfg *pgxpool.Config) (*pgxpool.Pool, error) {
	cfg = cfg.Copy()
	cfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		registerArrays(conn.TypeMap())
		return pgxvec.RegisterTypes(ctx, conn)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, connectError(err)
	}
	return pool, nil
}

// Libraries implements store.Backend: every collection with its counts.
func (Backend) Libraries(ctx context.Context, location string) ([]store.LibraryInfo, error) {
	cfg, err := parseLocation(location)
	if err != nil {
		return nil, err
	}
	conn, err := pgx.ConnectConfig(ctx, cfg.ConnConfig.Copy())
	if err != nil {
		return nil, connectError(err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	v, err := currentVersion(ctx, conn)
	if errors.Is(err, errNoSchema) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := checkVersion(v); err != nil {
		return nil, err
	}
	rows, err := conn.Query(ctx, `
		SELECT c.name, c.embedder, c.dimension,
			(SELECT count(*) FROM rag_documents d WHERE d.collection_id = c.id), c.chunk_count
		FROM rag_collections c ORDER BY c.name`)
	if err != nil {
		return nil, fmt.Errorf("couldn't list the libraries: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.LibraryInfo, error) {
		var li store.LibraryInfo
		err := r.Scan(&li.Name, &li.Info.Embedder, &li.Info.Dimension, &li.Documents, &li.Segments)
		return li, err
	})
}

// Drop implements store.Backend: the collection, its documents and its
// chunk partition go in one transaction, after any writer of the library
// has finished.
func (Backend) Drop(ctx context.Context, location, library string) error {
	if err := store.ValidName(library); err != nil {
		return err
	}
	cfg, err := parseLocation(location)
	if err != nil {
		return err
	}
	conn, err := pgx.ConnectConfig(ctx, cfg.ConnConfig.Copy())
	if err != nil {
		return connectError(err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	v, err := currentVersion(ctx, conn)
	if errors.Is(err, errNoSchema) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := checkVersion(v); err != nil {
		return err
	}
	var id int64
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `SELECT id FROM rag_collections WHERE name = $1`, library).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			id = 0
			return nil
		}
		if err != nil {
			return err
		}
		if err := lockCollection(ctx, tx, id, writerWait); err != nil {
			return err
		}
		// TRUNCATE locks the library's partition only; the collection's
		// row takes its documents with it.
		if _, err := tx.Exec(ctx, `TRUNCATE `+partition(id)); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `DELETE FROM rag_collections WHERE id = $1`, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("couldn't drop library %q: %w", library, classify(err))
	}
	if id != 0 {
		dropLeftovers(ctx, conn)
	}
	return nil
}

// dropLeftovers removes the empty partitions of dropped libraries. Dropping
// a partition needs a moment when no one reads any library, so it waits
// briefly and otherwise leaves the (empty, unreachable) table for a later
// Drop, which removes every such leftover.
func dropLeftovers(ctx context.Context, conn *pgx.Conn) {
	rows, err := conn.Query(ctx, `SELECT c.relname FROM pg_inherits i
		JOIN pg_class c ON c.oid = i.inhrelid
		WHERE i.inhparent = 'rag_chunks'::regclass AND c.relname ~ '^rag_chunks_c[0-9]+$'
		AND NOT EXISTS (SELECT 1 FROM rag_collections r WHERE 'rag_chunks_c' || r.id = c.relname)`)
	if err != nil {
		return
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return
	}
	for _, name := range names {
		_ = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `SET LOCAL lock_timeout = 2000`); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `DROP TABLE IF EXISTS `+pgx.Identifier{name}.Sanitize())
			return err
		})
	}
}
