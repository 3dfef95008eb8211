package embedded

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/store"
)

// newPut is a document for a library of codesInfo.
func newPut() []store.Put {
	doc, segs := makeDoc("new", 3, codesInfo.Dimension, 1)
	return []store.Put{{Document: doc, Segments: segs}}
}

// settled waits for s's background check of vectors and for the reload
// it asks for when it finds damage.
func settled(t *testing.T, s *Store) {
	t.Helper()
	ctx := context.Background()
	if err := s.lock(ctx); err != nil {
		t.Fatal(err)
	}
	defer s.unlock()
	if err := s.awaitCheck(ctx); err != nil {
		t.Fatal(err)
	}
}

// A library larger than checkAtOpenMax opens without reading its vectors
// (the codes file has their codes); the background pass checks them after:
// an intact library stays intact and writable, a flipped byte in the
// vector file is reported as soon as the pass reaches it (the library is
// then read-only with the reason), a write started before that waits for
// the pass and is refused, and `ibid doctor` (Check) finds it at once.
func TestVectorsCheckedAfterOpen(t *testing.T) {
	dir, queries, want := codesLibrary(t, 4)
	defer func(v int64) { checkAtOpenMax = v }(checkAtOpenMax)
	checkAtOpenMax = 0
	ctx := context.Background()

	t.Run("intact", func(t *testing.T) {
		lib := copyDir(t, dir)
		s := mustOpen(t, lib, codesInfo)
		defer s.Close()
		if err := s.lock(ctx); err != nil {
			t.Fatal(err)
		}
		c, docs := s.check, len(s.docs) // an intact library's pass leaves check set
		s.unlock()
		if c == nil || len(c.spans) != docs {
			t.Fatalf("the open left no vectors to the background check (%v)", c)
		}
		sameAnswers(t, s, queries, want)
		settled(t, s)
		if err := s.Damage(); err != nil {
			t.Fatal(err)
		}
		put(t, s, "new", 3, 1)
		checkDoc(t, s, "new", 3, 1)
	})

	damaged := func(t *testing.T) string {
		lib := copyDir(t, dir)
		path := filepath.Join(lib, vectorName(1))
		flipByte(t, path, fileSize(t, path)/2)
		return lib
	}
	isVectorDamage := func(t *testing.T, err error) {
		t.Helper()
		var de *DamageError
		if !errors.As(err, &de) || !strings.Contains(err.Error(), vectorName(1)) || !strings.Contains(err.Error(), "fail their checksum") {
			t.Fatalf("want the vectors' damage reported, got %v", err)
		}
	}

	t.Run("flipped byte", func(t *testing.T) {
		lib := damaged(t)
		s := mustOpen(t, lib, codesInfo)
		defer s.Close()
		settled(t, s)
		isVectorDamage(t, s.Damage())
		err := s.Update(ctx, newPut(), nil)
		if !errors.Is(err, store.ErrReadOnly) {
			t.Fatalf("Update on a damaged library: %v", err)
		}
		if fileSize(t, filepath.Join(lib, vectorName(1))) != fileSize(t, filepath.Join(dir, vectorName(1))) {
			t.Fatal("the vector file changed")
		}
	})

	t.Run("write before the check ends", func(t *testing.T) {
		s := mustOpen(t, damaged(t), codesInfo)
		defer s.Close()
		err := s.Update(ctx, newPut(), nil)
		if !errors.Is(err, store.ErrReadOnly) {
			t.Fatalf("Update before the check ended: %v", err)
		}
		isVectorDamage(t, err)
	})

	// A flipped code (the file mapped, its checksum left to the pass) is
	// found by the pass: the codes are computed again from the vectors,
	// the answers are the intact library's, nothing is reported damaged,
	// and the next writer puts the codes file right.
	t.Run("flipped code", func(t *testing.T) {
		lib := copyDir(t, dir)
		path := filepath.Join(lib, codesName(1))
		flipByte(t, path, fileSize(t, path)/2)
		s := mustOpen(t, lib, codesInfo)
		defer s.Close()
		settled(t, s)
		if err := s.Damage(); err != nil {
			t.Fatalf("damaged codes reported as damage: %v", err)
		}
		if n := len(s.disk.codesMissing); n != 1 {
			t.Fatalf("after the pass, %d documents' codes computed, want the flipped one", n)
		}
		sameAnswers(t, s, queries, want)
		put(t, s, "new", 3, 1)
		s.Close()
		again, err := OpenDir(ctx, lib, store.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer again.Close()
		settled(t, again)
		if n := len(again.disk.codesMissing); n != 0 || again.disk.codesBroken {
			t.Fatalf("after a write, %d documents' codes still computed (broken %v)", n, again.disk.codesBroken)
		}
	})

	t.Run("doctor", func(t *testing.T) {
		r, err := Check(damaged(t))
		if err != nil {
			t.Fatal(err)
		}
		if r.OK() || !strings.Contains(r.Problems[0].String(), vectorName(1)) {
			t.Fatalf("Check: %v", r.Problems)
		}
	})
}
