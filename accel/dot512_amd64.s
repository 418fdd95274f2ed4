//go:build !purego

#include "textflag.h"

// func sdot4AVX512(k int, a *float32, lda int, x, out *float32)
// out[r] = Σ_i a[r*lda+i] * x[i] for the four rows r of a, k a positive
// multiple of 16. Each vector of x is loaded once for the four rows; two
// accumulators per row (even and odd vectors) hide the multiply-adds'
// latency. The four rows are four streams for the prefetchers, where a
// row at a time was one: a classifier's weights come from memory.
TEXT ·sdot4AVX512(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ lda+16(FP), DX
	SHLQ $2, DX
	MOVQ x+24(FP), DI
	LEAQ (SI)(DX*1), R8
	LEAQ (SI)(DX*2), R9
	LEAQ (R8)(DX*2), R10
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	XORQ AX, AX
	CMPQ CX, $32
	JLT sdot4_tail

sdot4_loop:
	VMOVUPS (DI)(AX*1), Z8
	VMOVUPS 64(DI)(AX*1), Z9
	VFMADD231PS (SI)(AX*1), Z8, Z0
	VFMADD231PS 64(SI)(AX*1), Z9, Z4
	VFMADD231PS (R8)(AX*1), Z8, Z1
	VFMADD231PS 64(R8)(AX*1), Z9, Z5
	VFMADD231PS (R9)(AX*1), Z8, Z2
	VFMADD231PS 64(R9)(AX*1), Z9, Z6
	VFMADD231PS (R10)(AX*1), Z8, Z3
	VFMADD231PS 64(R10)(AX*1), Z9, Z7
	ADDQ $128, AX
	SUBQ $32, CX
	CMPQ CX, $32
	JGE sdot4_loop

sdot4_tail:
	CMPQ CX, $16
	JLT sdot4_done
	VMOVUPS (DI)(AX*1), Z8
	VFMADD231PS (SI)(AX*1), Z8, Z0
	VFMADD231PS (R8)(AX*1), Z8, Z1
	VFMADD231PS (R9)(AX*1), Z8, Z2
	VFMADD231PS (R10)(AX*1), Z8, Z3

sdot4_done:
	VADDPS Z4, Z0, Z0
	VADDPS Z5, Z1, Z1
	VADDPS Z6, Z2, Z2
	VADDPS Z7, Z3, Z3
	VEXTRACTF64X4 $1, Z0, Y8
	VADDPS Y8, Y0, Y0
	VEXTRACTF64X4 $1, Z1, Y8
	VADDPS Y8, Y1, Y1
	VEXTRACTF64X4 $1, Z2, Y8
	VADDPS Y8, Y2, Y2
	VEXTRACTF64X4 $1, Z3, Y8
	VADDPS Y8, Y3, Y3
	VEXTRACTF128 $1, Y0, X8
	VADDPS X8, X0, X0
	VEXTRACTF128 $1, Y1, X8
	VADDPS X8, X1, X1
	VEXTRACTF128 $1, Y2, X8
	VADDPS X8, X2, X2
	VEXTRACTF128 $1, Y3, X8
	VADDPS X8, X3, X3
	VHADDPS X1, X0, X0
	VHADDPS X3, X2, X2
	VHADDPS X2, X0, X0
	MOVQ out+32(FP), R11
	VMOVUPS X0, (R11)
	VZEROUPPER
	RET
