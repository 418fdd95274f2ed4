//go:build !purego

#include "textflag.h"

// POOLTAP compares the sixteen values at addr, a window tap's, with the
// best so far (Z8, their plane indices in Z9): lanes where they are
// larger (not where either is NaN) take them and their indices, the
// tap's columns (cols) plus its row's offset (row).
#define POOLTAP(addr, cols, row) \
	VMOVUPS addr, Z10; VPADDD row, cols, Z11; VCMPPS $0x1e, Z8, Z10, K1; \
	VMOVAPS Z10, K1, Z8; VMOVDQA32 Z11, K1, Z9

// maxPoolBack3x3s2AVX512 adds, for n outputs of one row of a 3x3 max
// pooling at stride 2, each output's gradient (grad[j]) to the gradient
// of its window's first largest element (gi, the plane's). Input row i
// of the windows (at plane offset r0, r1 or r2) is given split, its
// columns clamped to the row: e_i[j] is column 2j-pad and o_i[j] column
// 2j+1-pad, each clamped to [0, w-1]; both hold n+16 values. Sixteen
// outputs at a time take the taps in row-major order, the first as the
// best; idx (sixteen int32) holds their indices for the scalar adds,
// which go one after another since windows overlap. lanes is 0, 2, ...
// 30 in int32.
//
// func maxPoolBack3x3s2AVX512(n int, e0, o0, e1, o1, e2, o2 *float32, r0, r1, r2, pad, w int, grad, gi *float32, idx, lanes *int32)
TEXT ·maxPoolBack3x3s2AVX512(SB), NOSPLIT, $0-128
	MOVQ n+0(FP), CX
	MOVQ e0+8(FP), SI
	MOVQ o0+16(FP), DI
	MOVQ e1+24(FP), R9
	MOVQ o1+32(FP), R10
	MOVQ e2+40(FP), R11
	MOVQ o2+48(FP), R12
	VPBROADCASTD r0+56(FP), Z24
	VPBROADCASTD r1+64(FP), Z25
	VPBROADCASTD r2+72(FP), Z26
	MOVQ pad+80(FP), AX
	NEGQ AX
	VPBROADCASTD AX, Z29
	MOVQ lanes+120(FP), AX
	VPADDD (AX), Z29, Z29 // 2j - pad for the block's outputs j
	MOVQ w+88(FP), AX
	DECQ AX
	VPBROADCASTD AX, Z27 // the last column
	VPXORD Z28, Z28, Z28
	MOVL $1, AX
	VPBROADCASTD AX, Z23
	MOVL $32, AX
	VPBROADCASTD AX, Z22
	MOVQ grad+96(FP), BX
	MOVQ gi+104(FP), DX
	MOVQ idx+112(FP), R8

maxPoolBack_block:
	// The columns of the window's three taps, clamped to the row.
	VPMAXSD Z28, Z29, Z0
	VPMINSD Z27, Z0, Z0
	VPADDD Z23, Z29, Z1
	VPADDD Z23, Z1, Z2
	VPMAXSD Z28, Z1, Z1
	VPMINSD Z27, Z1, Z1
	VPMAXSD Z28, Z2, Z2
	VPMINSD Z27, Z2, Z2
	VMOVUPS (SI), Z8
	VPADDD Z24, Z0, Z9
	POOLTAP((DI), Z1, Z24)
	POOLTAP(4(SI), Z2, Z24)
	POOLTAP((R9), Z0, Z25)
	POOLTAP((R10), Z1, Z25)
	POOLTAP(4(R9), Z2, Z25)
	POOLTAP((R11), Z0, Z26)
	POOLTAP((R12), Z1, Z26)
	POOLTAP(4(R11), Z2, Z26)
	VMOVDQU32 Z9, (R8)
	MOVQ CX, R13
	CMPQ R13, $16
	JLE maxPoolBack_adds
	MOVQ $16, R13

maxPoolBack_adds:
	XORQ R14, R14

maxPoolBack_add:
	MOVLQSX (R8)(R14*4), AX
	VMOVSS (DX)(AX*4), X0
	VADDSS (BX)(R14*4), X0, X0
	VMOVSS X0, (DX)(AX*4)
	INCQ R14
	CMPQ R14, R13
	JLT maxPoolBack_add
	ADDQ $64, SI
	ADDQ $64, DI
	ADDQ $64, R9
	ADDQ $64, R10
	ADDQ $64, R11
	ADDQ $64, R12
	ADDQ $64, BX
	VPADDD Z22, Z29, Z29
	SUBQ $16, CX
	JGT maxPoolBack_block
	VZEROUPPER
	RET
