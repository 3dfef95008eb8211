//go:build unix

package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ibid-dev/ibid/store"
	"github.com/ibid-dev/ibid/store/embedded"
	"github.com/ibid-dev/ibid/store/internal/synthvec"
)

// The library build makes holds, at row r, the r-th vector of the space
// (normalised as the store keeps it): what recall's exact scan and the
// sizes' figures take for granted. The documents of one batch once shared
// one block of vectors, so each vector was stored fifty times.
func TestBuildStoresEachVectorOnce(t *testing.T) {
	const n, dim = 2*perDoc + perDoc/2, 16 // a commit of three documents, the last one short
	lib := filepath.Join(t.TempDir(), "lib")
	if err := build(lib, n, dim); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := embedded.OpenDir(ctx, lib, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got, err := s.Len(ctx); err != nil || got != n {
		t.Fatalf("Len = %d, %v; want %d", got, err, n)
	}
	sp := synthvec.New(seed, dim, clusters)
	want := make([]float32, dim)
	for d := 0; d*perDoc < n; d++ {
		id := fmt.Sprintf("doc%07d", d)
		vecs, err := s.Vectors(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if want := min(perDoc, n-d*perDoc); len(vecs) != want {
			t.Fatalf("%s: %d vectors, want %d", id, len(vecs), want)
		}
		for i, v := range vecs {
			sp.Fill(want)
			store.Normalize(want)
			if !slices.EqualFunc(v, want, func(a, b float32) bool { return a-b < 1e-6 && b-a < 1e-6 }) {
				t.Fatalf("segment %s:%d holds another vector than row %d of the space", id, i, d*perDoc+i)
			}
		}
	}
}
