package quant

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ibid-dev/ibid/store/internal/synthvec"
)

// The kernel in use (assembly where the CPU allows) agrees with the plain
// Go one on every stride and row count, extreme codes included.
func TestDotsMatchGo(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, dim := range []int{1, 15, 16, 17, 31, 32, 33, 48, 100, 384, 768, 1536, 3072} {
		stride := Stride(dim)
		for _, rows := range []int{1, 2, 3, 7, 64} {
			codes := make([]int8, rows*stride)
			for i := range codes {
				switch r.IntN(5) {
				case 0:
					codes[i] = -128
				case 1:
					codes[i] = 127
				default:
					codes[i] = int8(r.IntN(256) - 128)
				}
			}
			q := make([]float32, dim)
			for i := range q {
				q[i] = float32(r.NormFloat64())
			}
			qq := NewQuery(q)
			got := make([]int32, rows)
			want := make([]int32, rows)
			qq.Dots(codes, got)
			dotsGo(qq.p, codes, want)
			if !slices.Equal(got, want) {
				t.Fatalf("dim %d rows %d: kernel %v, Go %v", dim, rows, got, want)
			}
			for rr := range rows {
				var ref int64
				for i := range stride {
					ref += int64(qq.p[i]) * int64(codes[rr*stride+i])
				}
				if int64(want[rr]) != ref {
					t.Fatalf("dim %d row %d: %d, exact %d", dim, rr, want[rr], ref)
				}
			}
		}
	}
}

// The largest sums a row can reach do not overflow: every code at -128
// and the query at its largest magnitude.
func TestDotsNoOverflow(t *testing.T) {
	for _, dim := range []int{16, 768, 4096, 8192} {
		q := make([]float32, dim)
		for i := range q {
			q[i] = -1
		}
		qq := NewQuery(q)
		codes := make([]int8, Stride(dim))
		for i := range codes {
			codes[i] = -128
		}
		out := make([]int32, 1)
		qq.Dots(codes, out)
		var want int64
		for i := range codes {
			want += int64(qq.p[i]) * -128
		}
		if int64(out[0]) != want || want <= 0 {
			t.Errorf("dim %d: %d, want %d", dim, out[0], want)
		}
	}
}

// Encoded vectors come back within half a step per dimension, and the
// approximate similarity is close to the exact one.
func TestEncodeError(t *testing.T) {
	sp := synthvec.New(7, 768, 20)
	for range 200 {
		v, q := sp.Vector(), sp.Vector()
		c := make([]int8, Stride(len(v)))
		s := Encode(c, v)
		var m float32
		for _, x := range v {
			m = max(m, abs(x))
		}
		for i, x := range v {
			if d := math.Abs(float64(x - s*float32(c[i]))); d > float64(m)/127/2*1.0001 {
				t.Fatalf("dim %d: %v decodes as %v", i, x, s*float32(c[i]))
			}
		}
		qq := NewQuery(q)
		out := make([]int32, 1)
		qq.Dots(c, out)
		var exact float64
		for i := range v {
			exact += float64(v[i]) * float64(q[i])
		}
		if d := math.Abs(float64(qq.Similarity(out[0], s)) - exact); d > 0.003 {
			t.Fatalf("approximate similarity %v, exact %v", qq.Similarity(out[0], s), exact)
		}
	}
	if s := Encode(make([]int8, 16), make([]float32, 16)); s != 0 {
		t.Errorf("zero vector: scale %v", s)
	}
}

// Top keeps what sorting everything and taking the first n keeps, however
// the candidates arrive and with ties.
func TestTopMatchesSort(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 5, 40, 200} {
		var all []Candidate
		for i := range 500 {
			all = append(all, Candidate{Score: float32(r.IntN(50)), ID: uint64(i)})
		}
		r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
		var top Top
		top.Reset(n)
		half := len(all) / 2
		for _, c := range all[:half] {
			top.Offer(c)
		}
		var other Top
		other.Reset(n)
		for _, c := range all[half:] {
			other.Offer(c)
		}
		top.Merge(&other)
		got := top.Sorted()
		want := slices.Clone(all)
		slices.SortFunc(want, func(a, b Candidate) int {
			if better(a, b) {
				return -1
			}
			return 1
		})
		want = want[:n]
		if !slices.Equal(got, want) {
			t.Fatalf("n %d: got %v\nwant %v", n, got, want)
		}
	}
}

func FuzzDots(f *testing.F) {
	f.Add([]byte{1, 2, 3}, int64(1), uint8(3))
	f.Fuzz(func(t *testing.T, b []byte, seed int64, rows uint8) {
		if len(b) == 0 {
			return
		}
		dim := len(b)%70 + 1
		stride := Stride(dim)
		n := int(rows%5) + 1
		codes := make([]int8, n*stride)
		for i := range codes {
			codes[i] = int8(b[i%len(b)])
		}
		r := rand.New(rand.NewPCG(uint64(seed), 1))
		q := make([]float32, dim)
		for i := range q {
			q[i] = float32(r.NormFloat64())
		}
		qq := NewQuery(q)
		got, want := make([]int32, n), make([]int32, n)
		qq.Dots(codes, got)
		dotsGo(qq.p, codes, want)
		if !slices.Equal(got, want) {
			t.Fatalf("kernel %v, Go %v", got, want)
		}
	})
}

// BenchmarkDots scans 100,000 rows of dimension 768 on one core: the
// kernel in use, and the plain Go one.
func BenchmarkDots(b *testing.B) {
	const rows, dim = 100_000, 768
	r := rand.New(rand.NewPCG(5, 6))
	codes := make([]int8, rows*Stride(dim))
	for i := range codes {
		codes[i] = int8(r.IntN(255) - 127)
	}
	q := make([]float32, dim)
	for i := range q {
		q[i] = float32(r.NormFloat64())
	}
	qq := NewQuery(q)
	out := make([]int32, rows)
	b.Run("kernel", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			qq.Dots(codes, out)
		}
	})
	b.Run("go", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			dotsGo(qq.p, codes, out)
		}
	})
}
