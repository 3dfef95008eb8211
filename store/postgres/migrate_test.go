package postgres

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ibid-dev/ibid/store"
	"github.com/jackc/pgx/v5"
)

// freshDatabase creates an empty database with pgvector available and
// returns its location; it is dropped at the end.
func freshDatabase(t testing.TB) string {
	t.Helper()
	loc := testLocation(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	name := fmt.Sprintf("ibid_test_%08x", rand.Uint32())
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Skipf("can't create a database for this test: %v", err)
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, loc)
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			t.Error(err)
		}
	})
	u, err := url.Parse(loc)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

func TestMigrations(t *testing.T) {
	loc := freshDatabase(t)
	ctx := context.Background()
	info := store.Info{Embedder: "test", Dimension: 3}

	// Reading an empty database writes nothing.
	if libs, err := (Backend{}).Libraries(ctx, loc); err != nil || len(libs) != 0 {
		t.Fatalf("libraries of an empty database: %v, %v", libs, err)
	}
	if _, err := Open(ctx, loc, store.Options{Library: "x", Info: info}); !errors.Is(err, store.ErrNoLibrary) {
		t.Fatalf("open without create: %v, want ErrNoLibrary", err)
	}
	if err := (Backend{}).Drop(ctx, loc, "x"); err != nil {
		t.Fatalf("drop in an empty database: %v", err)
	}
	conn, err := pgx.Connect(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := currentVersion(ctx, conn); !errors.Is(err, errNoSchema) {
		t.Fatalf("a read created the schema: %v", err)
	}

	// Processes opening a new database at once migrate it once.
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			s, err := Open(ctx, loc, store.Options{Library: fmt.Sprintf("lib%d", i), Info: info, Create: true})
			if err == nil {
				s.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("concurrent first opens: %v", err)
	}
	v, err := currentVersion(ctx, conn)
	if err != nil || v != schemaVersion() {
		t.Fatalf("version %d, %v; want %d", v, err, schemaVersion())
	}
	libs, err := (Backend{}).Libraries(ctx, loc)
	if err != nil || len(libs) != 4 || libs[0].Name != "lib0" || libs[0].Info != info {
		t.Fatalf("libraries: %+v, %v", libs, err)
	}

	// A database migrated by a newer ibid is refused, with what to do.
	if _, err := conn.Exec(ctx, `INSERT INTO rag_schema_migrations (version, name) VALUES ($1, 'from the future')`, schemaVersion()+1); err != nil {
		t.Fatal(err)
	}
	_, err = Open(ctx, loc, store.Options{Library: "lib0", Info: info})
	if err == nil || !strings.Contains(err.Error(), "newer") || !strings.Contains(err.Error(), "upgrade ibid") {
		t.Fatalf("open of a newer schema: %v", err)
	}
	if _, err := (Backend{}).Libraries(ctx, loc); err == nil || !strings.Contains(err.Error(), "upgrade ibid") {
		t.Fatalf("libraries of a newer schema: %v", err)
	}
	if err := (Backend{}).Drop(ctx, loc, "lib0"); err == nil || !strings.Contains(err.Error(), "upgrade ibid") {
		t.Fatalf("drop in a newer schema: %v", err)
	}
}

func TestMigrationsAreWellFormed(t *testing.T) {
	ms, err := loadMigrations()
	if err != nil || len(ms) == 0 {
		t.Fatalf("migrations: %v", err)
	}
}

func TestLibrariesAndDrop(t *testing.T) {
	loc := freshDatabase(t)
	ctx := context.Background()
	info := store.Info{Embedder: "test", Dimension: 3}
	rng := rand.New(rand.NewPCG(13, 14))
	for _, name := range []string{"a", "b"} {
		s, err := Open(ctx, loc, store.Options{Library: name, Info: info, Create: true})
		if err != nil {
			t.Fatal(err)
		}
		mustUpdate(t, s, []store.Put{makePut(rng, "d1", 3, 3), makePut(rng, "d2", 2, 3)}, nil)
		s.Close()
	}
	if err := (Backend{}).Drop(ctx, loc, "a"); err != nil {
		t.Fatal(err)
	}
	libs, err := (Backend{}).Libraries(ctx, loc)
	if err != nil || len(libs) != 1 || libs[0] != (store.LibraryInfo{Name: "b", Info: info, Documents: 2, Segments: 5}) {
		t.Fatalf("after drop: %+v, %v", libs, err)
	}
	conn, err := pgx.Connect(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var parts, docs int
	if err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM pg_inherits WHERE inhparent = 'rag_chunks'::regclass),
		(SELECT count(*) FROM rag_documents)`).Scan(&parts, &docs); err != nil || parts != 1 || docs != 2 {
		t.Fatalf("after drop: %d partitions and %d documents left (%v), want 1 and 2", parts, docs, err)
	}
	if _, err := Open(ctx, loc, store.Options{Library: "a", Info: info}); !errors.Is(err, store.ErrNoLibrary) {
		t.Fatalf("dropped library opens: %v", err)
	}
	// Same document ids in another library are untouched, and a dropped
	// name can be created again, empty.
	s, err := Open(ctx, loc, store.Options{Library: "a", Info: info, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n, err := s.Len(ctx); err != nil || n != 0 {
		t.Fatalf("recreated library holds %d, %v", n, err)
	}
	if err := (Backend{}).Drop(ctx, loc, "../x"); err == nil {
		t.Error("drop of a bad name succeeded")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Len(ctx); !errors.Is(err, store.ErrClosed) {
		t.Errorf("use after close: %v", err)
	}
}

// oldLibrary is library "old" (three documents, twelve segments, one
// document with parents) written in a fresh database and closed, for a
// migration test that turns the database back to an older schema and
// opens the library again.
type oldLibrary struct {
	loc    string
	info   store.Info
	part   string      // the library's partition
	before []store.Hit // what a keyword search found in it
	conn   *pgx.Conn   // to its database, closed at the test's end
}

// newOldLibrary writes the library; second names its second document (a
// test of collations gives it a capital).
func newOldLibrary(t *testing.T, rng *rand.Rand, second string) oldLibrary {
	t.Helper()
	ctx := context.Background()
	o := oldLibrary{loc: freshDatabase(t), info: store.Info{Embedder: "test", Dimension: 8}}
	s, err := Open(ctx, o.loc, store.Options{Library: "old", Info: o.info, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	mustUpdate(t, s, []store.Put{makePut(rng, "zeta", 5, 8), makePut(rng, second, 3, 8), withParents("beta", 8)}, nil)
	o.part = s.chunks
	o.before, err = s.Keyword(ctx, "segment document alpha", 10, store.Filter{})
	if err != nil || len(o.before) == 0 {
		t.Fatalf("Keyword before: %v, %v", hitIDs(o.before), err)
	}
	s.Close()
	if o.conn, err = pgx.Connect(ctx, o.loc); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.conn.Close(ctx) })
	return o
}

// reopen opens the library again, which migrates the database, and checks
// that the database is at the newest schema and the library whole: its
// twelve segments and three documents, and the same keyword hits as
// before. The store is closed at the test's end.
func (o oldLibrary) reopen(t *testing.T) *Store {
	t.Helper()
	ctx := context.Background()
	s, err := Open(ctx, o.loc, store.Options{Library: "old", Info: o.info})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if v, err := currentVersion(ctx, o.conn); err != nil || v != schemaVersion() {
		t.Fatalf("version %d, %v; want %d", v, err, schemaVersion())
	}
	if n := checkWhole(t, s); n != 12 {
		t.Fatalf("%d segments after the migration, want 12", n)
	}
	after, err := s.Keyword(ctx, "segment document alpha", 10, store.Filter{})
	if err != nil || !slices.Equal(hitIDs(after), hitIDs(o.before)) {
		t.Fatalf("Keyword after the migration: %v, %v; before %v", hitIDs(after), err, hitIDs(o.before))
	}
	if docs, err := s.Documents(ctx); err != nil || len(docs) != 3 {
		t.Fatalf("Documents: %d, %v", len(docs), err)
	}
	return s
}
