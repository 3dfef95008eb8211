package embedded

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"testing"

	"github.com/ibid-dev/ibid/store"
	"github.com/ibid-dev/ibid/store/storetest"
)

var testInfo = store.Info{Embedder: "test-embedder", Dimension: 8}

// vec is the deterministic, normalised vector of segment i of document
// doc (storetest's, so that the suite and these tests agree).
func vec(doc string, i, dim int) []float32 { return storetest.Vector(doc, i, dim) }

// makeDoc builds document id with n segments whose text and vectors follow
// from id and version, so that a reader can check every segment is whole.
// Every fourth segment is an index row of segment 0, which is then a parent
// (its vector is not kept: see docWhole).
func makeDoc(id string, n, dim, version int) (store.Document, []store.Segment) {
	doc := store.Document{ID: id, Path: "/docs/" + id + ".md", Hash: "h-" + id, Title: "Title " + id,
		Format: "markdown", Added: 1700000000, Meta: map[string]string{"v": strconv.Itoa(version)}}
	segs := make([]store.Segment, n)
	for i := range segs {
		segs[i] = store.Segment{
			ID: id + ":" + strconv.Itoa(i), DocumentID: id, Index: i,
			Text:      segText(id, i, version),
			Section:   []string{"Chapter " + id, "Part " + strconv.Itoa(i%3)},
			PageStart: i + 1, PageEnd: i + 2, Start: i * 100, End: i*100 + 99,
			Vector: vec(id+"/"+strconv.Itoa(version), i, dim),
		}
		if i%4 == 3 {
			segs[i].IndexText = "generated context for " + segs[i].ID
			segs[i].Parent = id + ":0"
		}
	}
	return doc, segs
}

func segText(id string, i, version int) string {
	return fmt.Sprintf("segment %d of %s, version %d: ünïcode ✓ and text", i, id, version)
}

// openTest opens (creating) the library in dir for info; dir "" is a store
// in memory.
func openTest(dir string, info store.Info) (*Store, error) {
	if dir == "" {
		return NewMemory(info)
	}
	return OpenDir(context.Background(), dir, store.Options{Info: info, Create: true})
}

func mustOpen(t testing.TB, dir string, info store.Info) *Store {
	t.Helper()
	s, err := openTest(dir, info)
	if err != nil {
		t.Fatalf("open %q: %v", dir, err)
	}
	return s
}

func put(t testing.TB, s *Store, id string, n, version int) {
	t.Helper()
	doc, segs := makeDoc(id, n, s.Info().Dimension, version)
	if err := s.Update(context.Background(), []store.Put{{Document: doc, Segments: segs}}, nil); err != nil {
		t.Fatalf("put %s: %v", id, err)
	}
}

// checkDoc fails unless the store holds document id whole: n segments, in
// order, with the text and vectors of version.
func checkDoc(t testing.TB, s *Store, id string, n, version int) {
	t.Helper()
	if err := docWhole(s, id, n, version); err != nil {
		t.Fatal(err)
	}
}

func docWhole(s *Store, id string, n, version int) error {
	ctx := context.Background()
	want, wantSegs := makeDoc(id, n, s.Info().Dimension, version)
	got, err := s.Document(ctx, id)
	if err != nil {
		return err
	}
	want.Segments = n
	if !reflect.DeepEqual(got, want) {
		return fmt.Errorf("document %s = %+v, want %+v", id, got, want)
	}
	segs, err := s.Segments(ctx, id, 0, -1)
	if err != nil {
		return err
	}
	if len(segs) != n {
		return fmt.Errorf("document %s has %d segments, want %d", id, len(segs), n)
	}
	vecs, err := s.Vectors(ctx, id)
	if err != nil {
		return err
	}
	parent, err := store.Parents(wantSegs)
	if err != nil {
		return err
	}
	for i, sg := range segs {
		w := wantSegs[i]
		if parent[i] {
			w.Vector = make([]float32, s.Info().Dimension) // a parent's vector is not kept
		}
		if !close32(vecs[i], w.Vector) {
			return fmt.Errorf("segment %s vector differs", w.ID)
		}
		w.Vector = nil
		if !reflect.DeepEqual(sg, w) {
			return fmt.Errorf("segment %d of %s = %+v, want %+v", i, id, sg, w)
		}
	}
	return nil
}

func close32(a, b []float32) bool { return storetest.Near(a, b) }

func wantErr(t testing.TB, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error = %v, want one wrapping %v", err, target)
	}
}
