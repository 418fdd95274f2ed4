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

// SCALE0 sets Z0 to Z0*s + b (Z1, Z2); CLAMP0 bounds it to [lo, hi]
// (Z30, Z31; NaN stays NaN).
#define SCALE0 VFMADD213PS Z2, Z1, Z0
#define CLAMP0 VMAXPS Z0, Z30, Z0; VMINPS Z0, Z31, Z0

// func scaleAddClampRowsAVX512(c *float32, ldc, rows, cols int, scale *float32, scaleStep int, bias *float32, biasStep int, add *float32, addStride int, lo, hi float32)
//
// scaleAddClampRowsAVX512 sets row r of the rows x cols matrix at c (row
// stride ldc) to x*scale[r*scaleStep] + bias[r*biasStep], adds row r of
// add (row stride addStride) when add is not nil, and bounds the result
// to [lo, hi]: sixteen columns at a time, the last cols%16 under a mask.
// A step of 0 gives every row the same scale or bias.
TEXT ·scaleAddClampRowsAVX512(SB), NOSPLIT, $0-88
	MOVQ c+0(FP), DI
	MOVQ ldc+8(FP), R8
	SHLQ $2, R8
	MOVQ rows+16(FP), R9
	MOVQ cols+24(FP), R10
	MOVQ scale+32(FP), R11
	MOVQ scaleStep+40(FP), R12
	SHLQ $2, R12
	MOVQ bias+48(FP), R13
	MOVQ biasStep+56(FP), R14
	SHLQ $2, R14
	MOVQ add+64(FP), SI
	MOVQ addStride+72(FP), DX
	SHLQ $2, DX
	VBROADCASTSS lo+80(FP), Z30
	VBROADCASTSS hi+84(FP), Z31
	MOVQ R10, CX
	ANDQ $15, CX
	MOVQ $1, AX
	SHLQ CX, AX
	DECQ AX
	KMOVW AX, K1 // the tail's lanes
	TESTQ R9, R9
	JLE scalerows_done

scalerows_row:
	VBROADCASTSS (R11), Z1
	VBROADCASTSS (R13), Z2
	MOVQ DI, AX
	MOVQ SI, BX
	MOVQ R10, CX
	TESTQ SI, SI
	JZ scalerows_plain

scalerows_add:
	CMPQ CX, $16
	JLT scalerows_addtail
	VMOVUPS (AX), Z0
	SCALE0
	VADDPS (BX), Z0, Z0
	CLAMP0
	VMOVUPS Z0, (AX)
	ADDQ $64, AX
	ADDQ $64, BX
	SUBQ $16, CX
	JMP scalerows_add

scalerows_addtail:
	TESTQ CX, CX
	JZ scalerows_next
	VMOVUPS.Z (AX), K1, Z0
	VMOVUPS.Z (BX), K1, Z3
	SCALE0
	VADDPS Z3, Z0, Z0
	CLAMP0
	VMOVUPS Z0, K1, (AX)
	JMP scalerows_next

scalerows_plain:
	CMPQ CX, $16
	JLT scalerows_plaintail
	VMOVUPS (AX), Z0
	SCALE0
	CLAMP0
	VMOVUPS Z0, (AX)
	ADDQ $64, AX
	SUBQ $16, CX
	JMP scalerows_plain

scalerows_plaintail:
	TESTQ CX, CX
	JZ scalerows_next
	VMOVUPS.Z (AX), K1, Z0
	SCALE0
	CLAMP0
	VMOVUPS Z0, K1, (AX)

scalerows_next:
	ADDQ R8, DI
	ADDQ R12, R11
	ADDQ R14, R13
	ADDQ DX, SI
	DECQ R9
	JNZ scalerows_row

scalerows_done:
	VZEROUPPER
	RET
