//go:build !purego

#include "textflag.h"

// The Winograd F(4x4, 3x3) transforms on eight lanes (tiles) at a time.
// Row p of a 6x6 (or 4x6) array of vectors is at base + p*stride.

// BT6 computes Bᵀ x of the six vectors Y0..Y5 into Y6, Y8, Y9, Y10, Y11
// and Y7 (rows 0 to 5), with Y12 = 4, Y13 = 5 and Y14 = 2.
#define BT6 \
	VMOVAPS Y4, Y6; \
	VFNMADD231PS Y13, Y2, Y6; \
	VFMADD231PS Y12, Y0, Y6; \
	VADDPS Y2, Y1, Y7; \
	VADDPS Y4, Y3, Y8; \
	VFNMADD231PS Y12, Y7, Y8; \
	VSUBPS Y2, Y1, Y7; \
	VSUBPS Y3, Y4, Y9; \
	VFMADD231PS Y12, Y7, Y9; \
	VSUBPS Y1, Y3, Y7; \
	VSUBPS Y2, Y4, Y10; \
	VMOVAPS Y10, Y11; \
	VFMADD231PS Y14, Y7, Y10; \
	VFNMADD231PS Y14, Y7, Y11; \
	VMOVAPS Y5, Y7; \
	VFMADD231PS Y12, Y1, Y7; \
	VFNMADD231PS Y13, Y3, Y7

// AT6 computes Aᵀ x of the six vectors Y0..Y5 into Y10, Y11, Y6 and Y7
// (rows 0 to 3), with Y12 = 4, Y14 = 2 and Y15 = 8.
#define AT6 \
	VADDPS Y2, Y1, Y6; \
	VSUBPS Y2, Y1, Y7; \
	VADDPS Y4, Y3, Y8; \
	VSUBPS Y4, Y3, Y9; \
	VADDPS Y6, Y0, Y10; \
	VADDPS Y8, Y10, Y10; \
	VMOVAPS Y7, Y11; \
	VFMADD231PS Y14, Y9, Y11; \
	VFMADD231PS Y12, Y8, Y6; \
	VADDPS Y5, Y7, Y7; \
	VFMADD231PS Y15, Y9, Y7

#define CONSTS \
	MOVL $0x40800000, AX; \
	VMOVD AX, X12; \
	VBROADCASTSS X12, Y12; \
	MOVL $0x40a00000, AX; \
	VMOVD AX, X13; \
	VBROADCASTSS X13, Y13; \
	MOVL $0x40000000, AX; \
	VMOVD AX, X14; \
	VBROADCASTSS X14, Y14; \
	MOVL $0x41000000, AX; \
	VMOVD AX, X15; \
	VBROADCASTSS X15, Y15

// func winoInputAVX2(n int, d *float32, ds int, v *float32, vs int)
// For n lanes (a positive multiple of 8): d holds the 36 rows of patch
// values (row r*6+q: element (r, q) of each lane's patch, row stride ds)
// and becomes Bᵀ d in place; v receives Bᵀ d B (row r*6+s at v+(r*6+s)*vs).
TEXT ·winoInputAVX2(SB), NOSPLIT, $0-40
	MOVQ n+0(FP), CX
	MOVQ d+8(FP), SI
	MOVQ ds+16(FP), R8
	SHLQ $2, R8          // row stride of d, bytes
	MOVQ v+24(FP), DI
	MOVQ vs+32(FP), R9
	SHLQ $2, R9          // row stride of v, bytes
	LEAQ (R8)(R8*2), R10
	SHLQ $1, R10         // 6 rows of d
	LEAQ (R9)(R9*2), R11
	SHLQ $1, R11         // 6 rows of v
	CONSTS

wino_in_lanes:
	// Columns: for q = 0..5, rows r*6+q, r = 0..5.
	MOVQ SI, BX
	MOVQ $6, DX

wino_in_cols:
	LEAQ (BX)(R10*2), R12
	LEAQ (R12)(R10*1), R13 // row 3
	VMOVUPS (BX), Y0
	VMOVUPS (BX)(R10*1), Y1
	VMOVUPS (R12), Y2
	VMOVUPS (R13), Y3
	VMOVUPS (R13)(R10*1), Y4
	VMOVUPS (R13)(R10*2), Y5
	BT6
	VMOVUPS Y6, (BX)
	VMOVUPS Y8, (BX)(R10*1)
	VMOVUPS Y9, (R12)
	VMOVUPS Y10, (R13)
	VMOVUPS Y11, (R13)(R10*1)
	VMOVUPS Y7, (R13)(R10*2)
	ADDQ R8, BX
	DECQ DX
	JNZ wino_in_cols

	// Rows: for r = 0..5, rows r*6+s, s = 0..5, into v.
	MOVQ SI, BX
	MOVQ DI, R14
	MOVQ $6, DX

wino_in_rows:
	LEAQ (BX)(R8*2), R12
	LEAQ (R12)(R8*1), R13
	VMOVUPS (BX), Y0
	VMOVUPS (BX)(R8*1), Y1
	VMOVUPS (R12), Y2
	VMOVUPS (R13), Y3
	VMOVUPS (R13)(R8*1), Y4
	VMOVUPS (R13)(R8*2), Y5
	BT6
	LEAQ (R14)(R9*2), R12
	LEAQ (R12)(R9*1), R13
	VMOVUPS Y6, (R14)
	VMOVUPS Y8, (R14)(R9*1)
	VMOVUPS Y9, (R12)
	VMOVUPS Y10, (R13)
	VMOVUPS Y11, (R13)(R9*1)
	VMOVUPS Y7, (R13)(R9*2)
	ADDQ R10, BX
	ADDQ R11, R14
	DECQ DX
	JNZ wino_in_rows

	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JNZ wino_in_lanes
	VZEROUPPER
	RET

// func winoOutputAVX2(n int, m *float32, ms int, o *float32, os int)
// For n lanes (a positive multiple of 8): m holds the 36 rows of the
// products (row r*6+s at m+(r*6+s)*ms); its rows i*6+s, i < 4, become
// Aᵀ m in place, and o receives Aᵀ m A (row i*4+j at o+(i*4+j)*os).
TEXT ·winoOutputAVX2(SB), NOSPLIT, $0-40
	MOVQ n+0(FP), CX
	MOVQ m+8(FP), SI
	MOVQ ms+16(FP), R8
	SHLQ $2, R8          // row stride of m, bytes
	MOVQ o+24(FP), DI
	MOVQ os+32(FP), R9
	SHLQ $2, R9          // row stride of o, bytes
	LEAQ (R8)(R8*2), R10
	SHLQ $1, R10         // 6 rows of m
	CONSTS

wino_out_lanes:
	// Columns: for s = 0..5, rows r*6+s, r = 0..5; results in rows i*6+s.
	MOVQ SI, BX
	MOVQ $6, DX

wino_out_cols:
	LEAQ (BX)(R10*2), R12
	LEAQ (R12)(R10*1), R13
	VMOVUPS (BX), Y0
	VMOVUPS (BX)(R10*1), Y1
	VMOVUPS (R12), Y2
	VMOVUPS (R13), Y3
	VMOVUPS (R13)(R10*1), Y4
	VMOVUPS (R13)(R10*2), Y5
	AT6
	VMOVUPS Y10, (BX)
	VMOVUPS Y11, (BX)(R10*1)
	VMOVUPS Y6, (R12)
	VMOVUPS Y7, (R13)
	ADDQ R8, BX
	DECQ DX
	JNZ wino_out_cols

	// Rows: for i = 0..3, rows i*6+s, s = 0..5, into o rows i*4+j.
	MOVQ SI, BX
	MOVQ DI, R14
	MOVQ $4, DX

wino_out_rows:
	LEAQ (BX)(R8*2), R12
	LEAQ (R12)(R8*1), R13
	VMOVUPS (BX), Y0
	VMOVUPS (BX)(R8*1), Y1
	VMOVUPS (R12), Y2
	VMOVUPS (R13), Y3
	VMOVUPS (R13)(R8*1), Y4
	VMOVUPS (R13)(R8*2), Y5
	AT6
	LEAQ (R14)(R9*2), R12
	VMOVUPS Y10, (R14)
	VMOVUPS Y11, (R14)(R9*1)
	VMOVUPS Y6, (R12)
	VMOVUPS Y7, (R12)(R9*1)
	ADDQ R10, BX
	LEAQ (R14)(R9*4), R14
	DECQ DX
	JNZ wino_out_rows

	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JNZ wino_out_lanes
	VZEROUPPER
	RET

// TRANSPOSE4x8 turns Y0..Y3, eight rows of four (two per register: rows
// 2k and 2k+1 in register k), into four rows of eight, Y0..Y3, whose
// lanes hold the rows in the order 0 2 4 6 1 3 5 7 (a 4x4 transpose in
// each 128-bit half); the same steps undo it. It uses Y4..Y7. VPERMPS
// with winoToOrder puts the lanes in order, with winoFromOrder back.
#define TRANSPOSE4x8 \
	VUNPCKLPS Y1, Y0, Y4; \
	VUNPCKHPS Y1, Y0, Y5; \
	VUNPCKLPS Y3, Y2, Y6; \
	VUNPCKHPS Y3, Y2, Y7; \
	VUNPCKLPD Y6, Y4, Y0; \
	VUNPCKHPD Y6, Y4, Y1; \
	VUNPCKLPD Y7, Y5, Y2; \
	VUNPCKHPD Y7, Y5, Y3

// The lane orders that put TRANSPOSE4x8's rows in order (gather) and
// out of it (scatter).
DATA winoToOrder<>+0(SB)/4, $0
DATA winoToOrder<>+4(SB)/4, $4
DATA winoToOrder<>+8(SB)/4, $1
DATA winoToOrder<>+12(SB)/4, $5
DATA winoToOrder<>+16(SB)/4, $2
DATA winoToOrder<>+20(SB)/4, $6
DATA winoToOrder<>+24(SB)/4, $3
DATA winoToOrder<>+28(SB)/4, $7
GLOBL winoToOrder<>(SB), RODATA|NOPTR, $32

DATA winoFromOrder<>+0(SB)/4, $0
DATA winoFromOrder<>+4(SB)/4, $2
DATA winoFromOrder<>+8(SB)/4, $4
DATA winoFromOrder<>+12(SB)/4, $6
DATA winoFromOrder<>+16(SB)/4, $1
DATA winoFromOrder<>+20(SB)/4, $3
DATA winoFromOrder<>+24(SB)/4, $5
DATA winoFromOrder<>+28(SB)/4, $7
GLOBL winoFromOrder<>(SB), RODATA|NOPTR, $32

// func winoGatherAVX2(groups int, src *float32, ss int, d *float32, ds int)
// For groups of eight tiles, tile t of a group at column 4t of src (rows
// of stride ss): element (r, q) of each tile's 6x6 patch goes to row
// r*6+q of d (stride ds), tile t of a group in lane t. Columns q 4 and 5
// are columns 0 and 1 of the next tile. It reads 36 elements of each row
// from a group's start.
TEXT ·winoGatherAVX2(SB), NOSPLIT, $0-40
	MOVQ groups+0(FP), CX
	MOVQ src+8(FP), SI
	MOVQ ss+16(FP), R8
	SHLQ $2, R8
	MOVQ d+24(FP), DI
	MOVQ ds+32(FP), R9
	SHLQ $2, R9
	LEAQ (R9)(R9*2), R11 // 3 rows of d
	LEAQ (R11)(R11*1), R13 // 6 rows of d
	VMOVDQU winoToOrder<>(SB), Y15

gather_group:
	MOVQ SI, BX
	MOVQ DI, DX
	MOVQ $6, R10

gather_row:
	VMOVUPS (BX), Y0
	VMOVUPS 32(BX), Y1
	VMOVUPS 64(BX), Y2
	VMOVUPS 96(BX), Y3
	TRANSPOSE4x8
	VPERMPS Y0, Y15, Y0
	VPERMPS Y1, Y15, Y1
	VPERMPS Y2, Y15, Y2
	VPERMPS Y3, Y15, Y3
	VMOVUPS Y0, (DX)
	VMOVUPS Y1, (DX)(R9*1)
	VMOVUPS Y2, (DX)(R9*2)
	VMOVUPS Y3, (DX)(R11*1)
	VMOVUPS 16(BX), Y0
	VMOVUPS 48(BX), Y1
	VMOVUPS 80(BX), Y2
	VMOVUPS 112(BX), Y3
	TRANSPOSE4x8
	VPERMPS Y0, Y15, Y0
	VPERMPS Y1, Y15, Y1
	LEAQ (DX)(R9*1), R12
	VMOVUPS Y0, (DX)(R9*4)
	VMOVUPS Y1, (R12)(R9*4)
	ADDQ R8, BX
	ADDQ R13, DX
	DECQ R10
	JNZ gather_row

	ADDQ $128, SI
	ADDQ $32, DI
	DECQ CX
	JNZ gather_group
	VZEROUPPER
	RET

// func winoScatterAVX2(groups int, o *float32, os int, dst *float32, ds int)
// The reverse of winoGatherAVX2 for output tiles: for groups of eight
// tiles in eight lanes, element (i, j) of each 4x4 tile, at row i*4+j of
// o (stride os), goes to row i of dst (stride ds) at column 4t+j for tile
// t of the group. It writes 32 elements of each of four rows per group.
TEXT ·winoScatterAVX2(SB), NOSPLIT, $0-40
	MOVQ groups+0(FP), CX
	MOVQ o+8(FP), SI
	MOVQ os+16(FP), R9
	SHLQ $2, R9
	MOVQ dst+24(FP), DI
	MOVQ ds+32(FP), R8
	SHLQ $2, R8
	LEAQ (R9)(R9*2), R11 // 3 rows of o
	MOVQ R9, R12
	SHLQ $2, R12         // 4 rows of o
	VMOVDQU winoFromOrder<>(SB), Y15

scatter_group:
	MOVQ SI, BX
	MOVQ DI, DX
	MOVQ $4, R10

scatter_row:
	VMOVUPS (BX), Y0
	VMOVUPS (BX)(R9*1), Y1
	VMOVUPS (BX)(R9*2), Y2
	VMOVUPS (BX)(R11*1), Y3
	VPERMPS Y0, Y15, Y0
	VPERMPS Y1, Y15, Y1
	VPERMPS Y2, Y15, Y2
	VPERMPS Y3, Y15, Y3
	TRANSPOSE4x8
	VMOVUPS Y0, (DX)
	VMOVUPS Y1, 32(DX)
	VMOVUPS Y2, 64(DX)
	VMOVUPS Y3, 96(DX)
	ADDQ R12, BX
	ADDQ R8, DX
	DECQ R10
	JNZ scatter_row

	ADDQ $32, SI
	ADDQ $128, DI
	DECQ CX
	JNZ scatter_group
	VZEROUPPER
	RET
