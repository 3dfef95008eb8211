package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/ibid-dev/ibid/store"
)

// testTwoStores: two stores open on one library (as two processes would
// have) both write; each sees the other's commits without reopening, and
// nothing is lost or overwritten.
func testTwoStores(t *testing.T, h Harness) {
	ctx := context.Background()
	loc := h.Location(t)
	s1 := open(t, loc, "lib")
	s2 := open(t, loc, "lib")
	update(t, s1, []store.Put{doc("a", 2, 1)})
	update(t, s2, []store.Put{doc("b", 3, 1)})
	update(t, s1, []store.Put{doc("c", 1, 1)}, "b") // s1 deletes what s2 wrote
	update(t, s2, []store.Put{doc("a", 4, 2)})
	for _, st := range []store.Store{s1, s2} {
		checkDoc(t, st, doc("a", 4, 2))
		checkDoc(t, st, doc("c", 1, 1))
		if _, err := st.Document(ctx, "b"); !isNotFound(err) {
			t.Fatalf("b after its delete: %v", err)
		}
		hits, err := st.Dense(ctx, doc("a", 4, 2).Segments[3].Vector, 1, store.Filter{})
		if err != nil || len(hits) != 1 || hits[0].Segment.ID != "a:3" {
			t.Fatalf("Dense sees %v, %v", hits, err)
		}
		hits, err = st.Keyword(ctx, "segment 3 of a version 2", 1, store.Filter{})
		if err != nil || len(hits) != 1 || hits[0].Segment.ID != "a:3" {
			t.Fatalf("Keyword sees %v, %v", hits, err)
		}
		if n := length(t, st); n != 5 {
			t.Fatalf("Len = %d, want 5", n)
		}
	}
	// Both write at once: all of it lands.
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for w, st := range []store.Store{s1, s2} {
		wg.Go(func() {
			for i := range 20 {
				errs <- st.Update(ctx, []store.Put{doc(fmt.Sprintf("w%d-%d", w, i), 2, 1)}, nil)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, st := range []store.Store{s1, s2} {
		if n := length(t, st); n != 5+80 {
			t.Fatalf("Len after concurrent writers = %d, want 85", n)
		}
	}
}

// testConcurrentReaders runs searches and reads while a writer replaces
// and deletes documents (run it with -race): every read sees whole
// documents.
func testConcurrentReaders(t *testing.T, h Harness) {
	ctx := context.Background()
	st, _ := fresh(t, h)
	for d := range 5 {
		update(t, st, []store.Put{doc(fmt.Sprintf("d%d", d), 4, 0)})
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(done)
		for v := 1; v <= 15; v++ {
			id := fmt.Sprintf("d%d", v%5)
			if err := st.Update(ctx, []store.Put{doc(id, 2+v%4, v)}, nil); err != nil {
				t.Error(err)
				return
			}
			if v%4 == 0 {
				if err := st.Update(ctx, nil, []string{id}); err != nil {
					t.Error(err)
					return
				}
			}
		}
	})
	for r := range 3 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				if _, err := st.Dense(ctx, Vector("q", r, testInfo.Dimension), 5, store.Filter{}); err != nil {
					t.Error(err)
					return
				}
				if _, err := st.Keyword(ctx, "segment version", 5, store.Filter{Section: "part"}); err != nil {
					t.Error(err)
					return
				}
				if err := wholeDocs(ctx, st); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// wholeDocs checks that every document read is whole: segments 0..n-1, all
// of one version. A document may go between listing and reading it.
func wholeDocs(ctx context.Context, st store.Store) error {
	docs, err := st.Documents(ctx)
	if err != nil {
		return err
	}
	for _, d := range docs {
		segs, err := st.Segments(ctx, d.ID, 0, -1)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		for i, sg := range segs {
			_, v, _ := strings.Cut(segs[0].Text, "version ")
			if sg.Index != i || !strings.HasSuffix(sg.Text, "version "+v) {
				return fmt.Errorf("document %s read half-replaced: segment %d is %q, segment 0 %q", d.ID, i, sg.Text, segs[0].Text)
			}
		}
	}
	return nil
}
