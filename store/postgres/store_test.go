package postgres

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/store"
)

func TestRoundTrip(t *testing.T) {
	s := openTest(t, 4)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	a := makePut(rng, "aaa", 3, 4)
	a.Document.Meta = map[string]string{"k": "v"}
	a.Segments[1].Section = []string{"Methods", "Data"}
	a.Segments[1].PageStart, a.Segments[1].PageEnd = 2, 3
	a.Segments[1].Parent = "aaa:0"
	a.Segments[1].IndexText = "generated context"
	a.Segments[2].Vector = []float32{0, 0, 0, 0}
	b := makePut(rng, "bbb", 2, 4)
	mustUpdate(t, s, []store.Put{a, b}, nil)

	doc, err := s.Document(ctx, "aaa")
	if err != nil {
		t.Fatal(err)
	}
	if doc.Segments != 3 || doc.Added == 0 || doc.Meta["k"] != "v" || doc.Title != "Title of aaa" {
		t.Errorf("document read back as %+v", doc)
	}
	sg, d, err := s.Segment(ctx, "aaa:1")
	if err != nil {
		t.Fatal(err)
	}
	want := a.Segments[1]
	want.Vector = nil
	if !reflect.DeepEqual(sg, want) || d.ID != "aaa" {
		t.Errorf("segment read back as %+v, want %+v", sg, want)
	}
	segs, err := s.Segments(ctx, "aaa", 1, -1)
	if err != nil || len(segs) != 2 || segs[0].ID != "aaa:1" || segs[1].ID != "aaa:2" {
		t.Errorf("Segments(aaa, 1, -1) = %v, %v", segs, err)
	}
	segs, err = s.Segments(ctx, "aaa", -5, 100)
	if err != nil || len(segs) != 3 {
		t.Errorf("Segments clipped = %d, %v", len(segs), err)
	}
	vecs, err := s.Vectors(ctx, "aaa")
	// aaa:0 is a parent (aaa:1 names it): its vector is not kept.
	if err != nil || len(vecs) != 3 || !reflect.DeepEqual(vecs[0], []float32{0, 0, 0, 0}) ||
		!near(vecs[1], normalised(a.Segments[1].Vector)) || !reflect.DeepEqual(vecs[2], []float32{0, 0, 0, 0}) {
		t.Errorf("Vectors = %v, %v", vecs, err)
	}
	if n := checkWhole(t, s); n != 5 {
		t.Errorf("Len = %d, want 5", n)
	}
	for _, call := range []func() error{
		func() error { _, err := s.Document(ctx, "zzz"); return err },
		func() error { _, _, err := s.Segment(ctx, "aaa:9"); return err },
		func() error { _, _, err := s.Segment(ctx, "nocolon"); return err },
		func() error { _, err := s.Segments(ctx, "zzz", 0, -1); return err },
		func() error { _, err := s.Vectors(ctx, "zzz"); return err },
	} {
		if err := call(); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("got %v, want ErrNotFound", err)
		}
	}
	// Another process sees committed changes without reopening.
	o := reopen(t, s)
	mustUpdate(t, s, nil, []string{"bbb"})
	if n, _ := o.Len(ctx); n != 3 {
		t.Errorf("other store sees %d segments, want 3", n)
	}
}

func TestUpdateIsAtomic(t *testing.T) {
	s := openTest(t, 4)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	mustUpdate(t, s, []store.Put{makePut(rng, "keep", 5, 4)}, nil)

	// A delete of a missing document refuses the whole batch.
	err := s.Update(ctx, []store.Put{makePut(rng, "new", 3, 4)}, []string{"missing"})
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("delete missing: %v, want ErrNotFound", err)
	}
	// A bad segment refuses the whole batch.
	bad := makePut(rng, "bad", 3, 4)
	bad.Segments[2].Vector = []float32{1}
	if err := s.Update(ctx, []store.Put{makePut(rng, "new", 3, 4), bad}, []string{"keep"}); !errors.Is(err, store.ErrEmbedderMismatch) {
		t.Fatalf("bad vector: %v, want ErrEmbedderMismatch", err)
	}
	// A batch cancelled in the middle of its COPY leaves nothing behind.
	var big []store.Put
	for i := range 400 {
		big = append(big, makePut(rng, "big"+string(rune('a'+i%26))+string(rune('a'+i/26)), 100, 4))
	}
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() { done <- s.Update(cctx, big, []string{"keep"}) }()
	waitForCopy(t, s)
	cancel()
	if err := <-done; err == nil {
		t.Fatal("cancelled update succeeded")
	}
	docs, _ := s.Documents(ctx)
	if len(docs) != 1 || docs[0].ID != "keep" || checkWhole(t, s) != 5 {
		t.Fatalf("after failed batches: %d documents %v", len(docs), docs)
	}
	// Replacing a document drops its old segments.
	mustUpdate(t, s, []store.Put{makePut(rng, "keep", 2, 4)}, nil)
	if n := checkWhole(t, s); n != 2 {
		t.Fatalf("after replace: %d segments, want 2", n)
	}
}

// waitForCopy waits until some connection is running a COPY into s.
func waitForCopy(t testing.TB, s *Store) {
	t.Helper()
	ctx := context.Background()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		var n int
		if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE query ILIKE 'copy%'||$1||'%' AND state = 'active'`, s.chunks).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
	}
	t.Fatal("no COPY seen")
}

func TestReadOnly(t *testing.T) {
	s := openTest(t, 2)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(30, 31))
	mustUpdate(t, s, []store.Put{makePut(rng, "r", 3, 2)}, nil)
	ro, err := Open(ctx, testLocation(t), store.Options{Library: s.name, ReadOnly: true, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if err := ro.Update(ctx, nil, []string{"r"}); !errors.Is(err, store.ErrReadOnly) {
		t.Fatalf("read-only update: %v, want ErrReadOnly", err)
	}
	if n, err := ro.Len(ctx); err != nil || n != 3 {
		t.Fatalf("read-only Len = %d, %v", n, err)
	}
	if _, err := Open(ctx, testLocation(t), store.Options{Library: s.name + "-new", Info: s.info, ReadOnly: true, Create: true}); !errors.Is(err, store.ErrNoLibrary) {
		t.Fatalf("read-only open of a missing library created it: %v", err)
	}
}
