// Package storetest is the conformance suite of the store contract: every
// backend runs it from its own tests, and a behaviour that is not checked
// here is not part of the contract.
//
// A backend's test calls Run with a Harness that hands out fresh
// locations, and, to let the suite start other processes (writers that
// are killed mid-batch, concurrent writers), calls Child first thing in its
// TestMain:
//
//	func TestMain(m *testing.M) {
//		storetest.Child()
//		os.Exit(m.Run())
//	}
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, storetest.Harness{Location: func(t testing.TB) string { return t.TempDir() }, Processes: true})
//	}
package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/ibid-dev/ibid/store"
)

// Harness is what the suite needs of a backend.
type Harness struct {
	// Location returns a location that holds no library yet, cleaned up
	// when t ends (a temporary folder, a fresh database schema).
	Location func(t testing.TB) string
	// Processes says that a location can be used from other processes: the
	// suite then re-executes the test binary (whose TestMain calls Child)
	// to kill a writer mid-batch and to write concurrently.
	Processes bool
	// Damage, when set, damages library name at loc as kind describes,
	// behind the store's back (no store has it open), and reports whether
	// the backend's storage can be damaged that way at all; Repair does
	// what `ibid doctor --repair` does for the backend. The suite's Damage
	// tests need both (see testDamage).
	Damage func(t testing.TB, loc, name string, kind Damage) bool
	Repair func(t testing.TB, loc, name string) error
}

// testInfo is the embedder the suite's libraries are built with.
var testInfo = store.Info{Embedder: "storetest-embedder", Dimension: 8}

// Run runs the whole suite against the backend h describes.
func Run(t *testing.T, h Harness) {
	if h.Location == nil {
		t.Fatal("storetest: Harness.Location is nil")
	}
	tests := []struct {
		name string
		f    func(*testing.T, Harness)
	}{
		{"PutReplaceDelete", testPutReplaceDelete},
		{"AtomicBatch", testAtomicBatch},
		{"BadInputChangesNothing", testBadInput},
		{"CancelledUpdate", testCancelledUpdate},
		{"Segments", testSegments},
		{"Reopen", testReopen},
		{"EmbedderMismatch", testEmbedderMismatch},
		{"DenseOrder", testDenseOrder},
		{"ZeroVectors", testZeroVectors},
		{"Filters", testFilters},
		{"Keyword", testKeyword},
		{"KeywordIndexText", testKeywordIndexText},
		{"IndexRows", testIndexRows},
		{"IndexRowsBadParent", testIndexRowsBadParent},
		{"Boxes", testBoxes},
		{"BadBoxes", testBadBoxes},
		{"Closed", testClosed},
		{"ReadOnly", testReadOnly},
		{"DocumentCount", testDocumentCount},
		{"Settings", testSettings},
		{"SettingsKill", testSettingsKill},
		{"Libraries", testLibraries},
		{"Drop", testDrop},
		{"DropSeenByReaders", testDropSeenByReaders},
		{"TwoStoresOneLibrary", testTwoStores},
		{"ConcurrentReaders", testConcurrentReaders},
		{"NoLoss", testNoLoss},
		{"KillDuringUpdate", testKill},
		{"OtherProcessWriter", testOtherProcess},
		{"Damage", testDamage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.f(t, h) })
	}
}

// open opens (creating) library name at loc with the suite's embedder.
func open(t testing.TB, loc, name string) store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), loc, store.Options{Library: name, Info: testInfo, Create: true})
	if err != nil {
		t.Fatalf("Open(%q, %q): %v", loc, name, err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// fresh opens a new library at a fresh location.
func fresh(t testing.TB, h Harness) (store.Store, string) {
	t.Helper()
	loc := h.Location(t)
	return open(t, loc, "lib"), loc
}

func update(t testing.TB, st store.Store, puts []store.Put, deletes ...string) {
	t.Helper()
	if err := st.Update(context.Background(), puts, deletes); err != nil {
		t.Fatalf("Update(%d puts, deletes %v): %v", len(puts), deletes, err)
	}
}

func wantErr(t testing.TB, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error = %v, want one wrapping %v", err, target)
	}
}

// state lists a library's documents and, for each, its segment texts:
// enough to compare two libraries or a library with what was written.
func state(ctx context.Context, st store.Store) (map[string][]string, error) {
	docs, err := st.Documents(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]string, len(docs))
	for _, d := range docs {
		segs, err := st.Segments(ctx, d.ID, 0, -1)
		if err != nil {
			return nil, err
		}
		if len(segs) != d.Segments {
			return nil, fmt.Errorf("document %s says %d segments, has %d", d.ID, d.Segments, len(segs))
		}
		texts := make([]string, len(segs))
		for i, s := range segs {
			if s.Index != i || s.DocumentID != d.ID {
				return nil, fmt.Errorf("segment %d of %s is %+v", i, d.ID, s)
			}
			texts[i] = s.Text
		}
		out[d.ID] = texts
	}
	return out, nil
}
