package embedded

import (
	"context"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/store"
)

// checkIndex fails unless s.dense, kept up to date change by change, is
// what a rebuild from the store's documents makes, and its invariants
// hold: every row of a live entry is found by at, and no other.
func checkIndex(t *testing.T, s *Store) {
	t.Helper()
	x := &s.dense
	var fresh denseIndex
	fresh.rebuild(s.docs)
	byRowID := func(l []*entry) []*entry {
		// Documents without segments share their row with the next one:
		// their order among equal rows is free.
		slices.SortStableFunc(l, func(a, b *entry) int {
			if a.row != b.row {
				return a.row - b.row
			}
			return strings.Compare(a.doc.ID, b.doc.ID)
		})
		return l
	}
	if !slices.Equal(byRowID(x.live()), byRowID(fresh.live())) {
		t.Fatalf("index lists %d live entries, the store %d (or in another order)", len(x.live()), len(fresh.live()))
	}
	if x.n != fresh.n {
		t.Fatalf("index counts %d searchable segments, the store has %d", x.n, fresh.n)
	}
	dead := 0
	for j, sl := range x.slots {
		if sl.e == nil {
			dead++
		}
		if j > 0 && sl.row < x.slots[j-1].row {
			t.Fatalf("slot %d at row %d after row %d", j, sl.row, x.slots[j-1].row)
		}
	}
	if dead != x.dead || dead > max(compactDeadMin, len(x.slots)/2)+1 {
		t.Fatalf("%d dead slots of %d, counted %d", dead, len(x.slots), x.dead)
	}
	top := 0
	for _, sl := range x.slots {
		top = max(top, sl.row+sl.rows)
	}
	for _, e := range s.docs {
		top = max(top, e.row+len(e.segs))
	}
	owner := make([]*entry, top+2) // by row
	for _, e := range s.docs {
		for i := range e.segs {
			owner[e.row+i] = e
		}
	}
	for row := range top + 2 {
		e, i, ok := x.at(row)
		if want := owner[row]; want == nil {
			if ok {
				t.Fatalf("row %d: found in %s, which does not hold it", row, e.doc.ID)
			}
		} else if !ok || e != want || e.row+i != row {
			t.Fatalf("row %d: want %s, found %v", row, want.doc.ID, ok)
		}
	}
}

// The dense index follows every kind of change without a rebuild: puts,
// replacements (also twice in one batch), deletes, documents without
// segments, enough dead documents to compact it; in memory and in a
// folder, where compactions of the files give every entry a new row.
func TestDenseIndexIncremental(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{"", t.TempDir()} {
		s := mustOpen(t, dir, testInfo)
		r := rand.New(rand.NewPCG(8, 9))
		ctx := context.Background()
		added := 0
		ids := func() string { return "d" + strconv.Itoa(r.IntN(150)) }
		for step := range 300 {
			var puts []store.Put
			var deletes []string
			for range 1 + r.IntN(4) {
				id := ids()
				if _, ok := s.docs[id]; ok && r.IntN(3) == 0 && !slices.Contains(deletes, id) {
					deletes = append(deletes, id)
					continue
				}
				if slices.Contains(deletes, id) {
					continue
				}
				n := r.IntN(20) // 0: a document without segments
				doc, segs := makeDoc(id, n, testInfo.Dimension, step)
				puts = append(puts, store.Put{Document: doc, Segments: segs})
				added++
			}
			if err := s.Update(ctx, puts, deletes); err != nil {
				t.Fatal(err)
			}
			checkIndex(t, s)
		}
		if s.dense.exact {
			t.Fatalf("dir %q: %d searchable segments, still on the exact path", dir, s.dense.n)
		}
		if len(s.dense.slots) > len(s.docs)+max(compactDeadMin, len(s.dense.slots)/2) || len(s.dense.slots) >= added {
			t.Fatalf("dir %q: %d slots for %d documents, %d puts: dead slots never dropped", dir, len(s.dense.slots), len(s.docs), added)
		}
		if dir != "" && s.disk.man.Generation < 2 {
			t.Fatalf("the files were never compacted (generation %d)", s.disk.man.Generation)
		}
		s.Close()
	}
}
