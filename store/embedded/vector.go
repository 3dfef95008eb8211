package embedded

import (
	"encoding/binary"
	"hash/crc32"
	"math"
	"unsafe"
)

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
