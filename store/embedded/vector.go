package embedded

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"unsafe"
)

// normalise scales v in place to unit length and reports whether it is the
// zero vector (left as it is). A vector already within 1e-7 of unit length
// is left untouched, so that a stored vector passes chromem-go's own norm
// check (within 1e-6) without being copied. NaN and infinities are refused.
func normalise(v []float32) (zero bool, err error) {
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
	if math.Abs(math.Sqrt(sum)-1) >= 1e-7 {
		norm := math.Sqrt(sum)
		for j := range v {
			v[j] = float32(float64(v[j]) / norm)
		}
	}
	return false, nil
}

func dot(a, b []float32) float32 {
	var s float32
	b = b[:len(a)]
	for i, x := range a {
		s += x * b[i]
	}
	return s
}

// vecSum is the checksum a put op records of its document's vector rows.
func vecSum(v []float32) uint32 { return crc32.Checksum(floatBytes(v), crcTable) }

// littleEndian reports whether float32s are laid out in memory as the vector
// file stores them, so that rows can be read and written without copying.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// floatView is the memory of f as bytes.
func floatView(f []float32) []byte {
	if len(f) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&f[0])), len(f)*4)
}

// floatBytes returns the bytes of f in the vector file's byte order: a view
// of f itself on little-endian machines, a copy elsewhere.
func floatBytes(f []float32) []byte {
	if len(f) == 0 {
		return nil
	}
	if littleEndian {
		return floatView(f)
	}
	b := make([]byte, len(f)*4)
	for i, v := range f {
		binary.LittleEndian.PutUint32(b[i*4:], math.Float32bits(v))
	}
	return b
}

// fromFileOrder turns dst, just read from a vector file into its memory,
// into native floats.
func fromFileOrder(dst []float32) {
	if littleEndian {
		return
	}
	b := floatView(dst)
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[i*4:]))
	}
}
