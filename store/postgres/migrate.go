package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// migrations holds the schema, one file per version: "NNNN_name.sql".
// A file once released never changes; a change is a new file.
//
//go:embed migrations/*.sql
var migrations embed.FS

// migrationLock is the key of the session advisory lock that serialises
// migrations between processes ("ibid" in ASCII).
const migrationLock = 0x69626964

// migration is one version of the schema.
type migration struct {
	version int
	name    string
	sql     string
}

// loadMigrations reads the embedded migrations in version order. The
// versions count from 1 without gaps.
func loadMigrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrations, "migrations")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, e := range entries {
		name := e.Name()
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %s: name is not NNNN_name.sql", name)
		}
		b, err := migrations.ReadFile(path.Join("migrations", name))
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: name, sql: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i, m := range ms {
		if m.version != i+1 {
			return nil, fmt.Errorf("migration %s: versions must count from 1 without gaps", m.name)
		}
	}
	return ms, nil
}

// schemaVersion is the newest schema this binary knows.
func schemaVersion() int {
	ms, err := loadMigrations()
	if err != nil {
		panic(err) // the embedded files are part of the binary; tests catch this
	}
	return len(ms)
}

// errNoSchema: the database has no ibid tables yet.
var errNoSchema = errors.New("no ibid schema in this database")

// currentVersion reads the schema version of the database, or errNoSchema.
func currentVersion(ctx context.Context, q querier) (int, error) {
	var exists bool
	if err := q.QueryRow(ctx, `SELECT to_regclass('rag_schema_migrations') IS NOT NULL`).Scan(&exists); err != nil {
		return 0, fmt.Errorf("couldn't read the schema version: %w", err)
	}
	if !exists {
		return 0, errNoSchema
	}
	var v int
	if err := q.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM rag_schema_migrations`).Scan(&v); err != nil {
		return 0, fmt.Errorf("couldn't read the schema version: %w", err)
	}
	return v, nil
}

// checkVersion refuses a database whose schema is newer than this binary.
func checkVersion(v int) error {
	if known := schemaVersion(); v > known {
		return fmt.Errorf("the database's ibid schema is at version %d, newer than this ibid knows (%d); "+
			"upgrade ibid to use this database", v, known)
	}
	return nil
}

// migrate brings the database's schema up to date, under a session advisory
// lock so that processes opening the same database at once migrate it once.
// Each migration runs in its own transaction with its version row, so a
// crash leaves the schema at one version or the next. With create false, a
// database without the schema is left alone and errNoSchema returned; with
// readOnly, an older schema is refused rather than changed.
func migrate(ctx context.Context, conn *pgx.Conn, create, readOnly bool) error {
	v, err := currentVersion(ctx, conn)
	if err != nil && !errors.Is(err, errNoSchema) {
		return err
	}
	if err == nil {
		if err := checkVersion(v); err != nil {
			return err
		}
		if v == schemaVersion() {
			return nil // the common case: no lock needed
		}
		if readOnly {
			return fmt.Errorf("the database's ibid schema is at version %d, older than this ibid's (%d), and the library is "+
				"opened read-only; open it once for writing (for instance by adding a document) to upgrade it", v, schemaVersion())
		}
	} else if !create {
		return err
	}
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, int64(migrationLock)); err != nil {
		return fmt.Errorf("couldn't lock the schema for migration: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, int64(migrationLock)) //nolint:errcheck // the session ends soon anyway
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS rag_schema_migrations (
		version integer PRIMARY KEY,
		name text NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return fmt.Errorf("couldn't create the migrations table: %w", err)
	}
	v, err = currentVersion(ctx, conn) // another process may have migrated meanwhile
	if err != nil {
		return err
	}
	if err := checkVersion(v); err != nil {
		return err
	}
	ms, err := loadMigrations()
	if err != nil {
		return err
	}
	for _, m := range ms[v:] {
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO rag_schema_migrations (version, name) VALUES ($1, $2)`, m.version, m.name)
			return err
		})
		if err != nil {
			if msg := err.Error(); strings.Contains(msg, "extension") && strings.Contains(msg, "vector") {
				return fmt.Errorf("couldn't migrate the schema to version %d (%s): %w; "+
					"install pgvector on the server and let a database owner run CREATE EXTENSION vector", m.version, m.name, err)
			}
			return fmt.Errorf("couldn't migrate the schema to version %d (%s): %w", m.version, m.name, err)
		}
	}
	return nil
}
