package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/store"
)

// Damage is a kind of damage a library's storage suffers behind the
// store's back (a copy or a sync cut short, a disk that lost a file's end,
// a stray write), for Harness.Damage.
type Damage int

const (
	// CutHalf cuts the record of commits (the embedded store's log) to
	// half its length.
	CutHalf Damage = iota
	// CutToZero empties the record of commits.
	CutToZero
	// CutLastByte cuts the record of commits by its last byte.
	CutLastByte
	// CutLastCommit cuts the record of commits exactly before its last
	// commit, so that what is left is a valid earlier state.
	CutLastCommit
	// LoseVectors removes the stored vectors; the texts are intact.
	LoseVectors
	// ZeroVectors overwrites the stored vectors with zeros.
	ZeroVectors
	// CutInfo cuts the record of the library's embedder (the embedded
	// store's manifest) to 20 bytes.
	CutInfo
)

var damageNames = [...]string{"CutHalf", "CutToZero", "CutLastByte", "CutLastCommit", "LoseVectors", "ZeroVectors", "CutInfo"}

func (k Damage) String() string {
	if int(k) < len(damageNames) {
		return damageNames[k]
	}
	return fmt.Sprintf("Damage(%d)", int(k))
}

// cut reports whether k loses commits (as opposed to vectors or the
// embedder's record).
func (k Damage) cut() bool { return k <= CutLastCommit }

// damageDocs is how many documents testDamage commits, one commit each.
const damageDocs = 12

// testDamage holds every backend to one promise about storage damaged
// behind its back: nothing committed is lost in silence, and no write
// makes a loss permanent before a repair has kept what can be kept.
//
//   - A library whose record of commits lost its end (by any amount,
//     also exactly at a commit's boundary) opens read-only: Damage says
//     what happened and how to repair; every document it shows is whole
//     and was committed; a write is refused and the damage is still
//     reported after reopening.
//   - A library whose vectors are lost keeps every text (found by keyword
//     search, never returned by dense search) and says so.
//   - A library whose record of its embedder is damaged is refused with
//     a message that says how to repair it, or opens with Damage.
//   - Harness.Repair then makes it whole and writable: every readable
//     document is kept; documents whose vectors were lost are listed by
//     store.Unembedded until they are put again with vectors.
//
// A backend whose storage cannot be damaged some way (Harness.Damage
// returns false) skips that case.
func testDamage(t *testing.T, h Harness) {
	if h.Damage == nil || h.Repair == nil {
		t.Skip("the backend has no damage hooks")
	}
	for k := CutHalf; k <= CutInfo; k++ {
		t.Run(k.String(), func(t *testing.T) {
			ctx := context.Background()
			st, loc := fresh(t, h)
			var committed []store.Put
			for i := range damageDocs {
				p := doc(fmt.Sprintf("dmg%02d", i), 3, 1)
				update(t, st, []store.Put{p})
				committed = append(committed, p)
			}
			st.Close()
			if !h.Damage(t, loc, "lib", k) {
				t.Skipf("%s does not apply to this backend", k)
			}
			readable := checkDamaged(t, loc, k, committed)
			if err := h.Repair(t, loc, "lib"); err != nil {
				t.Fatalf("Repair: %v", err)
			}
			st = open(t, loc, "lib")
			if d, ok := st.(store.Damaged); ok && d.Damage() != nil {
				t.Fatalf("after Repair: %v", d.Damage())
			}
			got, err := state(ctx, st)
			if err != nil {
				t.Fatal(err)
			}
			if k != CutInfo && len(got) != len(readable) {
				t.Fatalf("after Repair %d documents, want the %d that were readable", len(got), len(readable))
			}
			if k == CutInfo && len(got) != damageDocs {
				t.Fatalf("after Repair %d documents, want all %d", len(got), damageDocs)
			}
			for id, texts := range got {
				p := committed[slices.IndexFunc(committed, func(p store.Put) bool { return p.Document.ID == id })]
				if len(texts) != len(p.Segments) || texts[0] != p.Segments[0].Text {
					t.Fatalf("after Repair document %s is %v", id, texts)
				}
			}
			var unembedded []string
			if u, ok := st.(store.Unembedded); ok {
				if unembedded, err = u.Unembedded(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if k == LoseVectors || k == ZeroVectors {
				if len(unembedded) != damageDocs {
					t.Fatalf("after Repair %d documents wait for vectors, want %d", len(unembedded), damageDocs)
				}
				denseFindsNone(t, st, committed)
			} else if len(unembedded) != 0 {
				t.Fatalf("after Repair documents wait for vectors: %v", unembedded)
			}
			// Putting them again with vectors makes them whole.
			for _, id := range unembedded {
				update(t, st, []store.Put{committed[slices.IndexFunc(committed, func(p store.Put) bool { return p.Document.ID == id })]})
			}
			for id := range got {
				checkDoc(t, st, committed[slices.IndexFunc(committed, func(p store.Put) bool { return p.Document.ID == id })])
			}
			update(t, st, []store.Put{doc("after", 2, 1)})
		})
	}
}

// checkDamaged opens the library damaged by k and checks what it shows,
// twice (the second time after a refused write); it returns the ids of the
// documents it shows.
func checkDamaged(t *testing.T, loc string, k Damage, committed []store.Put) map[string][]string {
	t.Helper()
	ctx := context.Background()
	var readable map[string][]string
	for round := range 2 {
		st, err := store.Open(ctx, loc, store.Options{Library: "lib", Info: testInfo})
		if err != nil {
			if k != CutInfo || !strings.Contains(err.Error(), "doctor") || !strings.Contains(err.Error(), "--repair") {
				t.Fatalf("round %d: Open: %v", round, err)
			}
			return nil
		}
		d, ok := st.(store.Damaged)
		var damage error
		if ok {
			damage = d.Damage()
		}
		if damage == nil || !strings.Contains(damage.Error(), "doctor") || !strings.Contains(damage.Error(), "--repair") {
			st.Close()
			t.Fatalf("round %d: %s not reported, or without what to do: %v", round, k, damage)
		}
		got, err := state(ctx, st)
		if err != nil {
			st.Close()
			t.Fatal(err)
		}
		for id, texts := range got {
			i := slices.IndexFunc(committed, func(p store.Put) bool { return p.Document.ID == id })
			if i < 0 || len(texts) != len(committed[i].Segments) {
				st.Close()
				t.Fatalf("round %d: document %s shown with %d segments, not as committed", round, id, len(texts))
			}
		}
		if k.cut() && len(got) == damageDocs {
			st.Close()
			t.Fatalf("round %d: all %d documents shown after %s", round, damageDocs, k)
		}
		if !k.cut() {
			if len(got) != damageDocs {
				st.Close()
				t.Fatalf("round %d: %d documents' texts after %s, want all %d", round, len(got), k, damageDocs)
			}
			hits, err := st.Keyword(ctx, segText(committed[5].Document.ID, 1, 1), 1, store.Filter{})
			if err != nil || len(hits) != 1 || hits[0].Segment.ID != committed[5].Segments[1].ID {
				st.Close()
				t.Fatalf("round %d: keyword search after %s: %v, %v", round, k, hits, err)
			}
			denseFindsNone(t, st, committed)
		}
		err = st.Update(ctx, []store.Put{doc("new", 1, 1)}, nil)
		st.Close()
		if !errors.Is(err, store.ErrReadOnly) {
			t.Fatalf("round %d: a write to the damaged library: %v, want ErrReadOnly", round, err)
		}
		if round == 1 && len(got) != len(readable) {
			t.Fatalf("the second open shows %d documents, the first %d", len(got), len(readable))
		}
		readable = got
	}
	return readable
}

// denseFindsNone fails if a dense search returns a segment of committed.
func denseFindsNone(t *testing.T, st store.Store, committed []store.Put) {
	t.Helper()
	for _, p := range committed[:3] {
		hits, err := st.Dense(context.Background(), p.Segments[0].Vector, 5, store.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			if strings.HasPrefix(h.Segment.ID, "dmg") {
				t.Fatalf("dense search returned %s, whose vectors are lost", h.Segment.ID)
			}
		}
	}
}
