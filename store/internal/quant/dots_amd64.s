#include "textflag.h"

// func dotsAVX2(p *int16, codes *int8, stride, rows int, out *int32)
//
// For each of rows rows of stride int8 codes (stride a multiple of 16):
// sign-extend 16 codes to int16 (VPMOVSXBW), multiply with 16 int16 of p
// and add pairs into 8 int32 (VPMADDWD), two accumulators; then sum the
// lanes into out[r].
TEXT ·dotsAVX2(SB), NOSPLIT, $0-40
	MOVQ p+0(FP), SI
	MOVQ codes+8(FP), DI
	MOVQ stride+16(FP), CX
	MOVQ rows+24(FP), DX
	MOVQ out+32(FP), R8
	TESTQ DX, DX
	JZ   done

row:
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	MOVQ  SI, R9
	MOVQ  CX, R10

pair:
	CMPQ R10, $32
	JLT  single
	VPMOVSXBW (DI), Y2
	VPMOVSXBW 16(DI), Y3
	VPMADDWD  (R9), Y2, Y2
	VPMADDWD  32(R9), Y3, Y3
	VPADDD    Y2, Y0, Y0
	VPADDD    Y3, Y1, Y1
	ADDQ      $32, DI
	ADDQ      $64, R9
	SUBQ      $32, R10
	JMP       pair

single:
	TESTQ R10, R10
	JZ    sum
	VPMOVSXBW (DI), Y2
	VPMADDWD  (R9), Y2, Y2
	VPADDD    Y2, Y0, Y0
	ADDQ      $16, DI

sum:
	VPADDD       Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4E, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xB1, X0, X1
	VPADDD       X1, X0, X0
	VMOVD        X0, R11
	MOVL         R11, (R8)
	ADDQ         $4, R8
	DECQ         DX
	JNZ          row
	VZEROUPPER

done:
	RET
