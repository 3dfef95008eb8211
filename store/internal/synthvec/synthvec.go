// Package synthvec makes vectors with the structure real embeddings have,
// for the store's tests and benchmarks: a shared mean direction (real
// embeddings are anisotropic: any two texts score well above zero),
// dimensions of unequal spread, and clusters (topics) of near neighbours.
// Uniform noise has none of these and flatters a quantised scan: its
// similarities are spread wide, so the top few stand far apart.
package synthvec

import (
	"math"
	"math/rand/v2"
)

// Space is a family of clustered vectors of one dimension.
type Space struct {
	dim     int
	spread  []float32   // per-dimension standard deviation of the noise
	centres [][]float32 // cluster centres, mean direction included
	r       *rand.Rand
}

// New returns a space of dimension dim with the given number of clusters,
// drawn from seed.
func New(seed uint64, dim, clusters int) *Space {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	sp := &Space{dim: dim, spread: make([]float32, dim), r: r}
	mean := make([]float32, dim)
	for i := range dim {
		// Log-normal spreads: a few dimensions carry much of the variance.
		sp.spread[i] = float32(math.Exp(r.NormFloat64() * 0.6))
		mean[i] = float32(r.NormFloat64()) * 1.2
	}
	for range max(clusters, 1) {
		c := make([]float32, dim)
		for i := range c {
			c[i] = mean[i] + float32(r.NormFloat64())*sp.spread[i]
		}
		sp.centres = append(sp.centres, c)
	}
	return sp
}

// Fork returns a space with the same clusters and spreads whose vectors
// come from another random stream: queries near a library's vectors that
// are not among them.
func (sp *Space) Fork(seed uint64) *Space {
	f := *sp
	f.r = rand.New(rand.NewPCG(seed, seed^0x94d049bb133111eb))
	return &f
}

// Vector returns a new unit vector: a random cluster's centre plus noise
// about as large as the spread between centres.
func (sp *Space) Vector() []float32 {
	v := make([]float32, sp.dim)
	sp.Fill(v)
	return v
}

// Fill writes a new unit vector into v (len(v) == the dimension).
func (sp *Space) Fill(v []float32) {
	c := sp.centres[sp.r.IntN(len(sp.centres))]
	var sum float64
	for i := range v {
		v[i] = c[i] + float32(sp.r.NormFloat64())*sp.spread[i]*0.8
		sum += float64(v[i]) * float64(v[i])
	}
	n := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= n
	}
}
