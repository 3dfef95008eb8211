//go:build !amd64

package quant

func dots(p []int16, codes []int8, out []int32) { dotsGo(p, codes, out) }
