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

// TILEROWS loads tile t's four rows of four (t's first element at R10
// elements from the plane, row i at R_i: AX, BX, R13, R14) into 128-bit
// lane pos of q0..q3 (row i into q_i); lane 0 clears the rest.
#define TILEROWS0(off, q0, q1, q2, q3) \
	MOVLQSX off(SI), R10; \
	VMOVUPS (AX)(R10*4), q0; VMOVUPS (BX)(R10*4), q1; VMOVUPS (R13)(R10*4), q2; VMOVUPS (R14)(R10*4), q3
#define TILEROWS(off, pos, q0, q1, q2, q3) \
	MOVLQSX off(SI), R10; \
	VINSERTF32X4 $pos, (AX)(R10*4), q0, q0; VINSERTF32X4 $pos, (BX)(R10*4), q1, q1; \
	VINSERTF32X4 $pos, (R13)(R10*4), q2, q2; VINSERTF32X4 $pos, (R14)(R10*4), q3, q3

// TRANSPOSE turns one row i of sixteen tiles, q0..q3 (tiles 4k..4k+3 in
// q_k, four columns each), into its four columns e0..e3 (e_j lane l:
// column j of tile l). Z0 and Z1 hold the permutations of the tiles'
// columns 0 and 1, and 2 and 3, of eight tiles; Z2 and Z3 are scratch.
// It leaves e0 in q1, e1 in q3, e2 in q0 and e3 in q2.
#define TRANSPOSE(q0, q1, q2, q3) \
	VMOVAPS q0, Z2; VPERMT2PS q1, Z0, Z2; VPERMT2PS q1, Z1, q0; \
	VMOVAPS q2, Z3; VPERMT2PS q3, Z0, Z3; VPERMT2PS q3, Z1, q2; \
	VSHUFF32X4 $0x44, Z3, Z2, q1; VSHUFF32X4 $0xee, Z3, Z2, q3; \
	VSHUFF32X4 $0x44, q2, q0, Z2; VSHUFF32X4 $0xee, q2, q0, q2; VMOVAPS Z2, q0

// KEEP clears the lanes of e outside the plane: mask K1..K4 of its row
// (kr) and K5 of its column.
#define KEEP(kr, e) KANDW K5, kr, K6; VMOVAPS.Z e, K6, e

// AECOL stores GRADCOL's six rows of column j into t (at R9, row r*4+j,
// at bytes into each row).
#define AECOL(at) \
	VMOVUPS Z0, at(R9); VMOVUPS Z4, 256+at(R9); VMOVUPS Z5, 512+at(R9); \
	VMOVUPS Z6, 768+at(R9); VMOVUPS Z7, 1024+at(R9); VMOVUPS Z3, 1280+at(R9)

// func winoGradOutPlaneAVX512(groups int, plane *float32, ow int, lanes *winoGradLanes, u *float32, us int, t *float32, perm *int32)
//
// A e Aᵀ of groups of sixteen 4x4 tiles of one output gradient plane
// (rows ow elements long), each tile's rows loaded where they lie:
// lanes[q] gives group q's tiles' first elements and which of their rows
// and columns lie in the plane (the rest are cleared after loading; a
// tile's four rows of four must all be readable). u receives A e Aᵀ (row
// r*6+s at u+(r*6+s)*us); t is scratch for the 24 rows of A e of sixteen
// lanes (1536 bytes); perm holds TRANSPOSE's two permutations.
TEXT ·winoGradOutPlaneAVX512(SB), NOSPLIT, $0-64
	MOVQ groups+0(FP), CX
	MOVQ plane+8(FP), AX
	MOVQ ow+16(FP), DX
	SHLQ $2, DX
	LEAQ (AX)(DX*1), BX
	LEAQ (AX)(DX*2), R13
	LEAQ (BX)(DX*2), R14
	MOVQ lanes+24(FP), SI
	MOVQ u+32(FP), DI
	MOVQ us+40(FP), R8
	SHLQ $2, R8
	MOVQ t+48(FP), R9
	MOVQ perm+56(FP), R12
	MOVL $0x40800000, R10
	VPBROADCASTD R10, Z28
	MOVL $0x40000000, R10
	VPBROADCASTD R10, Z29
	MOVL $0x41000000, R10
	VPBROADCASTD R10, Z30
	LEAQ (R8)(R8*2), R11 // 3 rows of u

gradplane_group:
	// Row i of tiles 4k..4k+3 into Z(12+4i+k).
	TILEROWS0(0, X12, X16, X20, X24)
	TILEROWS(4, 1, Z12, Z16, Z20, Z24)
	TILEROWS(8, 2, Z12, Z16, Z20, Z24)
	TILEROWS(12, 3, Z12, Z16, Z20, Z24)
	TILEROWS0(16, X13, X17, X21, X25)
	TILEROWS(20, 1, Z13, Z17, Z21, Z25)
	TILEROWS(24, 2, Z13, Z17, Z21, Z25)
	TILEROWS(28, 3, Z13, Z17, Z21, Z25)
	TILEROWS0(32, X14, X18, X22, X26)
	TILEROWS(36, 1, Z14, Z18, Z22, Z26)
	TILEROWS(40, 2, Z14, Z18, Z22, Z26)
	TILEROWS(44, 3, Z14, Z18, Z22, Z26)
	TILEROWS0(48, X15, X19, X23, X27)
	TILEROWS(52, 1, Z15, Z19, Z23, Z27)
	TILEROWS(56, 2, Z15, Z19, Z23, Z27)
	TILEROWS(60, 3, Z15, Z19, Z23, Z27)
	VMOVDQU32 (R12), Z0
	VMOVDQU32 64(R12), Z1
	// Row i's columns: e_i0 in Z(13+4i), e_i1 in Z(15+4i), e_i2 in
	// Z(12+4i), e_i3 in Z(14+4i).
	TRANSPOSE(Z12, Z13, Z14, Z15)
	TRANSPOSE(Z16, Z17, Z18, Z19)
	TRANSPOSE(Z20, Z21, Z22, Z23)
	TRANSPOSE(Z24, Z25, Z26, Z27)
	KMOVW 64(SI), K1
	KMOVW 66(SI), K2
	KMOVW 68(SI), K3
	KMOVW 70(SI), K4

	// A e, a column j at a time: rows r*4+j of t.
	KMOVW 72(SI), K5
	KEEP(K1, Z13); KEEP(K2, Z17); KEEP(K3, Z21); KEEP(K4, Z25)
	GRADCOL(Z13, Z17, Z21, Z25)
	VMOVAPS Z13, Z0
	VMOVAPS Z25, Z3
	AECOL(0)
	KMOVW 74(SI), K5
	KEEP(K1, Z15); KEEP(K2, Z19); KEEP(K3, Z23); KEEP(K4, Z27)
	GRADCOL(Z15, Z19, Z23, Z27)
	VMOVAPS Z15, Z0
	VMOVAPS Z27, Z3
	AECOL(64)
	KMOVW 76(SI), K5
	KEEP(K1, Z12); KEEP(K2, Z16); KEEP(K3, Z20); KEEP(K4, Z24)
	GRADCOL(Z12, Z16, Z20, Z24)
	VMOVAPS Z12, Z0
	VMOVAPS Z24, Z3
	AECOL(128)
	KMOVW 78(SI), K5
	KEEP(K1, Z14); KEEP(K2, Z18); KEEP(K3, Z22); KEEP(K4, Z26)
	GRADCOL(Z14, Z18, Z22, Z26)
	VMOVAPS Z14, Z0
	VMOVAPS Z26, Z3
	AECOL(192)

	// (A e) Aᵀ, a row r of t at a time: rows r*6+s of u.
	MOVQ R9, R15
	MOVQ DI, R10
	MOVQ $6, DX

gradplane_row:
	VMOVUPS 0(R15), Z0
	VMOVUPS 64(R15), Z1
	VMOVUPS 128(R15), Z2
	VMOVUPS 192(R15), Z3
	GRADCOL(Z0, Z1, Z2, Z3)
	VMOVUPS Z0, (R10)
	VMOVUPS Z4, (R10)(R8*1)
	VMOVUPS Z5, (R10)(R8*2)
	VMOVUPS Z6, (R10)(R11*1)
	VMOVUPS Z7, (R10)(R8*4)
	LEAQ (R10)(R8*4), R10
	VMOVUPS Z3, (R10)(R8*1)
	SUBQ R8, R10
	SUBQ R8, R10
	LEAQ (R10)(R8*4), R10 // six rows on from the row's first
	ADDQ $256, R15
	DECQ DX
	JNZ gradplane_row

	ADDQ $80, SI
	ADDQ $64, DI
	DECQ CX
	JNZ gradplane_group
	VZEROUPPER
	RET
