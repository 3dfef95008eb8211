package embedded

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/ibid-dev/ibid/store"
)

// TestStoredVectorsPassChromemNormCheck: chromem-go copies (and so doubles
// in memory) any vector whose float64 magnitude is not within 1e-6 of 1.
// Whatever scale the embedder returns, stored vectors must pass that check,
// as written and as read back from disk.
func TestStoredVectorsPassChromemNormCheck(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	info := store.Info{Embedder: "scaled", Dimension: 768}
	s := mustOpen(t, dir, info)
	r := rand.New(rand.NewPCG(7, 8))
	for d := range 20 {
		id := "d" + strconv.Itoa(d)
		segs := make([]store.Segment, 50)
		for i := range segs {
			v := make([]float32, info.Dimension)
			scale := float32(math.Pow(10, r.Float64()*8-4))
			for j := range v {
				v[j] = (r.Float32()*2 - 1) * scale
			}
			segs[i] = store.Segment{ID: id + ":" + strconv.Itoa(i), DocumentID: id, Index: i, Vector: v}
		}
		if err := s.Update(ctx, []store.Put{{Document: store.Document{ID: id}, Segments: segs}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, reopen := range []bool{false, true} {
		if reopen {
			s.Close()
			s = mustOpen(t, dir, info)
		}
		for d := range 20 {
			vecs, err := s.Vectors(ctx, "d"+strconv.Itoa(d))
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range vecs {
				var sq float64
				for _, x := range v {
					sq += float64(x) * float64(x)
				}
				if m := math.Sqrt(sq); math.Abs(m-1) >= 1e-6 {
					t.Fatalf("segment d%d:%d has magnitude %v: chromem-go would copy it", d, i, m)
				}
			}
		}
	}
	s.Close()
}

// TestNoLossIDsCollide: the ids of the conformance suite's NoLoss test
// (storetest) include pairs whose first 4 bytes of SHA-256 collide, the
// file naming under which chromem-go's own persistence loses segments; so
// that test would catch a store that relied on it.
func TestNoLossIDsCollide(t *testing.T) {
	t.Parallel()
	seen := map[[4]byte]bool{}
	for d := range 2000 {
		doc := fmt.Sprintf("sha256-%08x", d*2654435761)
		for i := range 100 {
			h := sha256.Sum256([]byte(doc + ":" + strconv.Itoa(i)))
			k := [4]byte(h[:4])
			if seen[k] {
				t.Logf("the first collision: document %d, segment %d", d, i)
				return // one is enough
			}
			seen[k] = true
		}
	}
	t.Fatal("no 4-byte hash collisions among the NoLoss ids")
}
