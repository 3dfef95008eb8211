package embedded

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"
)

var testInfo = Info{Embedder: "test-embedder", Dimension: 8}

// vec is the deterministic, normalised vector of segment i of document doc.
func vec(doc string, i, dim int) []float32 {
	h := fnv.New64a()
	h.Write([]byte(doc))
	r := rand.New(rand.NewPCG(h.Sum64(), uint64(i)))
	v := make([]float32, dim)
	var sum float64
	for j := range v {
		v[j] = float32(r.NormFloat64())
		sum += float64(v[j]) * float64(v[j])
	}
	n := float32(math.Sqrt(sum))
	for j := range v {
		v[j] /= n
	}
	return v
}

// makeDoc builds document id with n segments whose text and vectors follow
// from id and version, so that a reader can check every segment is whole.
func makeDoc(id string, n, dim, version int) (Document, []Segment) {
	doc := Document{ID: id, Path: "/docs/" + id + ".md", Hash: "h-" + id, Title: "Title " + id,
		Format: "markdown", Added: 1700000000, Meta: map[string]string{"v": strconv.Itoa(version)}}
	segs := make([]Segment, n)
	for i := range segs {
		segs[i] = Segment{
			ID: id + ":" + strconv.Itoa(i), DocumentID: id, Index: i,
			Text:      segText(id, i, version),
			Section:   []string{"Chapter " + id, "Part " + strconv.Itoa(i%3)},
			PageStart: i + 1, PageEnd: i + 2, Start: i * 100, End: i*100 + 99,
			Vector: vec(id+"/"+strconv.Itoa(version), i, dim),
		}
	}
	return doc, segs
}

func segText(id string, i, version int) string {
	return fmt.Sprintf("segment %d of %s, version %d: ünïcode ✓ and text", i, id, version)
}

func mustOpen(t testing.TB, dir string, info Info) *Chromem {
	t.Helper()
	s, err := Open(dir, info)
	if err != nil {
		t.Fatalf("Open(%q): %v", dir, err)
	}
	return s
}

func put(t testing.TB, s *Chromem, id string, n, version int) {
	t.Helper()
	doc, segs := makeDoc(id, n, s.Info().Dimension, version)
	if err := s.PutDocument(context.Background(), doc, segs); err != nil {
		t.Fatalf("PutDocument(%s): %v", id, err)
	}
}

// checkDoc fails unless the store holds document id whole: n segments, in
// order, with the text and vectors of version.
func checkDoc(t testing.TB, s *Chromem, id string, n, version int) {
	t.Helper()
	if err := docWhole(s, id, n, version); err != nil {
		t.Fatal(err)
	}
}

func docWhole(s *Chromem, id string, n, version int) error {
	want, wantSegs := makeDoc(id, n, s.Info().Dimension, version)
	got, ok := s.Document(id)
	if !ok {
		return fmt.Errorf("document %s missing", id)
	}
	want.Segments = n
	if !reflect.DeepEqual(got, want) {
		return fmt.Errorf("document %s = %+v, want %+v", id, got, want)
	}
	segs := s.Segments(id)
	if len(segs) != n {
		return fmt.Errorf("document %s has %d segments, want %d", id, len(segs), n)
	}
	for i, sg := range segs {
		w := wantSegs[i]
		v, ok := s.Vector(w.ID)
		if !ok {
			return fmt.Errorf("segment %s has no vector", w.ID)
		}
		if !close32(v, w.Vector) {
			return fmt.Errorf("segment %s vector differs", w.ID)
		}
		w.Vector = nil
		if !reflect.DeepEqual(sg, w) {
			return fmt.Errorf("segment %d of %s = %+v, want %+v", i, id, sg, w)
		}
		if one, ok := s.Segment(w.ID); !ok || !reflect.DeepEqual(one, w) {
			return fmt.Errorf("Segment(%s) = %+v, %v", w.ID, one, ok)
		}
	}
	return nil
}

func close32(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > 1e-6 {
			return false
		}
	}
	return true
}

func wantErr(t testing.TB, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error = %v, want one wrapping %v", err, target)
	}
}
