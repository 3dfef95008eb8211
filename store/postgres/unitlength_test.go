package postgres

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ibid-dev/ibid/store"
)

// TestUnitLengthMeansNormalizeKeeps checks the condition under which
// chunkRow hands the caller's vector to COPY without a copy: whenever
// unitLength says yes, store.Normalize changes nothing, and it says yes for
// vectors that Normalize has just normalised (so no copy is made of them).
func TestUnitLengthMeansNormalizeKeeps(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	yes := 0
	for i := range 5000 {
		v := make([]float32, 1+rng.IntN(1024))
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		if i%2 == 0 {
			if _, err := store.Normalize(v); err != nil {
				t.Fatal(err)
			}
		}
		if i%7 == 0 { // a length a hair off 1
			v[0] *= 1 + float32(rng.NormFloat64())*1e-7
		}
		if !unitLength(v) {
			continue
		}
		yes++
		c := slices.Clone(v)
		if _, err := store.Normalize(c); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(c, v) {
			t.Fatalf("vector %d: unitLength but Normalize changed it", i)
		}
	}
	if yes < 2000 {
		t.Fatalf("unitLength held for %d of the 2,500 normalised vectors", yes)
	}
	if unitLength([]float32{0, 0}) || unitLength([]float32{2}) {
		t.Fatal("unitLength of a zero or long vector")
	}
}
