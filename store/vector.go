package store

import (
	"fmt"
	"math"
)

// Normalize scales v in place to unit length, as every store keeps and
// compares vectors (cosine is then a dot product). It reports a vector of
// zeros (left as it is: it matches nothing) and refuses a vector holding
// NaN or an infinity, or too long to scale, leaving it unchanged.
func Normalize(v []float32) (zero bool, err error) {
	var sum float64
	for j, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false, fmt.Errorf("vector has %v at %d", x, j)
		}
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return true, nil
	}
	if math.IsInf(sum, 0) {
		return false, fmt.Errorf("vector is too long to normalise")
	}
	if norm := math.Sqrt(sum); math.Abs(norm-1) >= 1e-7 {
		for j := range v {
			v[j] = float32(float64(v[j]) / norm)
		}
	}
	return false, nil
}
