// Package quant is the compact copy of a library's vectors that dense
// search scans before it rescores a few candidates exactly: int8 scalar
// quantisation of unit vectors, one scale per vector, and a dot-product
// kernel that scans rows of codes without allocating (AVX2 where the CPU
// has it, plain Go elsewhere).
//
// A vector v of dimension dim is stored as a row of Stride(dim) int8 codes
// c and a scale s, v[i] ≈ s·c[i] (s = max|v[i]|/127, the bytes past dim
// zero). A query q is prepared once as int16 values p and a scale t,
// q[i] ≈ t·p[i], chosen so that no sum over a row can overflow an int32.
// The approximate similarity of q and v is then t·s·Σ p[i]·c[i]: what Dots
// computes for many rows at once, in integers, exactly the same on every
// platform.
package quant

import (
	"math"
)

// Stride is the length of a code row for vectors of dimension dim: dim
// rounded up to a multiple of 16, so that the kernel reads whole blocks.
func Stride(dim int) int { return (dim + 15) &^ 15 }

// Encode writes the code of v into dst (len(dst) == Stride(len(v))) and
// returns its scale; a vector of zeros has the codes 0 and the scale 0.
// v must hold no NaN or infinity (the store refuses them).
func Encode(dst []int8, v []float32) float32 {
	var m float32
	for _, x := range v {
		m = max(m, abs(x))
	}
	clear(dst)
	if m == 0 {
		return 0
	}
	f := 127 / m
	for i, x := range v {
		dst[i] = int8(round(x * f))
	}
	return m / 127
}

// Query is a query vector prepared for Dots.
type Query struct {
	p     []int16
	scale float32
}

// NewQuery prepares q (of dimension dim, any length) for scanning rows of
// Stride(len(q)) codes. The largest value of p is chosen so that a row's
// sum, at most Stride·max|p|·128 in magnitude, fits an int32.
func NewQuery(q []float32) *Query {
	stride := Stride(len(q))
	top := float32(min(math.MaxInt16, (math.MaxInt32/128)/stride))
	p := make([]int16, stride)
	var m float32
	for _, x := range q {
		m = max(m, abs(x))
	}
	if m == 0 {
		return &Query{p: p}
	}
	f := top / m
	for i, x := range q {
		p[i] = int16(round(x * f))
	}
	return &Query{p: p, scale: m / top}
}

// Stride is the row length the query scans.
func (q *Query) Stride() int { return len(q.p) }

// Dots sets out[r] to the integer dot product of the query with row r of
// codes, for r < len(out); codes holds len(out) rows of q.Stride() codes.
// It allocates nothing.
func (q *Query) Dots(codes []int8, out []int32) {
	stride := len(q.p)
	if len(out) == 0 {
		return
	}
	_ = codes[len(out)*stride-1] // the rows are all there
	dots(q.p, codes, out)
}

// Similarity is the approximate similarity of the query to a row whose
// integer dot product is dot and whose scale is scale.
func (q *Query) Similarity(dot int32, scale float32) float32 {
	return float32(dot) * scale * q.scale
}

// dotsGo is the portable kernel: out[r] = Σ p[i]·codes[r·stride+i].
func dotsGo(p []int16, codes []int8, out []int32) {
	stride := len(p)
	for r := range out {
		row := codes[r*stride : (r+1)*stride : (r+1)*stride]
		out[r] = dotGo(p, row)
	}
}

// dotGo is one row's dot product, with four accumulators so that the
// additions do not wait for each other. len(p) is a multiple of 16.
func dotGo(p []int16, c []int8) int32 {
	c = c[:len(p)]
	var s0, s1, s2, s3 int32
	for i := 0; i+8 <= len(p); i += 8 {
		a := p[i : i+8 : i+8]
		b := c[i : i+8 : i+8]
		s0 += int32(a[0])*int32(b[0]) + int32(a[4])*int32(b[4])
		s1 += int32(a[1])*int32(b[1]) + int32(a[5])*int32(b[5])
		s2 += int32(a[2])*int32(b[2]) + int32(a[6])*int32(b[6])
		s3 += int32(a[3])*int32(b[3]) + int32(a[7])*int32(b[7])
	}
	return s0 + s1 + s2 + s3
}

func abs(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }

// round rounds half away from zero.
func round(x float32) float32 { return float32(math.Round(float64(x))) }
