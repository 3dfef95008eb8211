package quant

import "golang.org/x/sys/cpu"

var haveAVX2 = cpu.X86.HasAVX2

// dotsAVX2 is the kernel in assembly: rows of stride codes (a multiple of
// 16), sign-extended to int16 and multiplied with p, 32 codes a step.
//
//go:noescape
func dotsAVX2(p *int16, codes *int8, stride, rows int, out *int32)

func dots(p []int16, codes []int8, out []int32) {
	if haveAVX2 {
		dotsAVX2(&p[0], &codes[0], len(p), len(out), &out[0])
		return
	}
	dotsGo(p, codes, out)
}
