//go:build !purego

#include "textflag.h"

// GRADCOL computes A x of the four vectors x0..x3 (A is Aᵀ of the output
// transform, transposed): rows 0 and 5 are x0 and x3, rows 1 to 4 go to
// Z4..Z7. Z28 = 4, Z29 = 2, Z30 = 8; Z8..Z11 are scratch.
#define GRADCOL(x0, x1, x2, x3) \
	VADDPS x2, x0, Z8; \
	VADDPS x3, x1, Z9; \
	VMOVAPS x0, Z10; \
	VFMADD231PS Z28, x2, Z10; \
	VMULPS Z30, x3, Z11; \
	VFMADD231PS Z29, x1, Z11; \
	VADDPS Z9, Z8, Z4; \
	VSUBPS Z9, Z8, Z5; \
	VADDPS Z11, Z10, Z6; \
	VSUBPS Z11, Z10, Z7

// func winoGradOutAVX512(n int, e *float32, es int, u *float32, us int, t *float32)
//
// For n lanes (a positive multiple of 16): e holds the 16 rows of output
// gradient tiles (row i*4+j: element (i, j) of each lane's tile, row
// stride es); u receives A e Aᵀ (row r*6+s at u+(r*6+s)*us). t is scratch
// for the 24 rows of A e of sixteen lanes (1536 bytes).
TEXT ·winoGradOutAVX512(SB), NOSPLIT, $0-48
	MOVQ n+0(FP), CX
	MOVQ e+8(FP), SI
	MOVQ es+16(FP), DX
	SHLQ $2, DX
	MOVQ u+24(FP), DI
	MOVQ us+32(FP), R8
	SHLQ $2, R8
	MOVQ t+40(FP), R9
	MOVL $0x40800000, AX
	VPBROADCASTD AX, Z28
	MOVL $0x40000000, AX
	VPBROADCASTD AX, Z29
	MOVL $0x41000000, AX
	VPBROADCASTD AX, Z30
	LEAQ (R8)(R8*2), R11 // 3 rows of u

gradout_lanes:
	// A e, a column j of e at a time: rows r*4+j of t.
	MOVQ SI, AX
	MOVQ R9, BX
	MOVQ $4, R12

gradout_col:
	VMOVUPS (AX), Z0
	VMOVUPS (AX)(DX*4), Z1
	VMOVUPS (AX)(DX*8), Z2
	LEAQ (AX)(DX*8), R13
	VMOVUPS (R13)(DX*4), Z3
	GRADCOL(Z0, Z1, Z2, Z3)
	VMOVUPS Z0, 0(BX)
	VMOVUPS Z4, 256(BX)
	VMOVUPS Z5, 512(BX)
	VMOVUPS Z6, 768(BX)
	VMOVUPS Z7, 1024(BX)
	VMOVUPS Z3, 1280(BX)
	ADDQ DX, AX
	ADDQ $64, BX
	DECQ R12
	JNZ gradout_col

	// (A e) Aᵀ, a row r of t at a time: rows r*6+s of u.
	MOVQ R9, BX
	MOVQ DI, AX
	MOVQ $6, R12

gradout_row:
	VMOVUPS 0(BX), Z0
	VMOVUPS 64(BX), Z1
	VMOVUPS 128(BX), Z2
	VMOVUPS 192(BX), Z3
	GRADCOL(Z0, Z1, Z2, Z3)
	VMOVUPS Z0, (AX)
	VMOVUPS Z4, (AX)(R8*1)
	VMOVUPS Z5, (AX)(R8*2)
	VMOVUPS Z6, (AX)(R11*1)
	VMOVUPS Z7, (AX)(R8*4)
	LEAQ (AX)(R8*4), R13
	VMOVUPS Z3, (R13)(R8*1)
	ADDQ $256, BX
	LEAQ (AX)(R11*2), AX // six rows on
	DECQ R12
	JNZ gradout_row

	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $16, CX
	JNZ gradout_lanes
	VZEROUPPER
	RET
