//go:build !purego

#include "textflag.h"

// ROW49 broadcasts A's value at addr and adds it times B's row (Z28..Z30)
// into one row's accumulators.
#define ROW49(addr, z0, z1, z2) VBROADCASTSS addr, Z31; VFMADD231PS Z28, Z31, z0; VFMADD231PS Z29, Z31, z1; VFMADD231PS Z30, Z31, z2

// STEP49 is one depth step: B's 48 values at bo(DI), A's seven at ao
// bytes into each row.
#define STEP49(bo, ao) \
	VMOVUPS bo(DI), Z28; VMOVUPS 64+bo(DI), Z29; VMOVUPS 128+bo(DI), Z30; \
	ROW49(ao(SI), Z0, Z1, Z2); ROW49(ao(SI)(R10*1), Z3, Z4, Z5); ROW49(ao(SI)(R10*2), Z6, Z7, Z8); \
	ROW49(ao(R11), Z9, Z10, Z11); ROW49(ao(R11)(R10*1), Z12, Z13, Z14); ROW49(ao(R11)(R10*2), Z15, Z16, Z17); \
	ROW49(ao(R12), Z18, Z19, Z20)

// ADDROW49 adds alpha (Z31) times a row's accumulators into C's row at R8
// and steps R8 to the next row; STOREROW49 stores them there.
#define ADDROW49(z0, z1, z2, x) \
	VFMADD213PS (R8), Z31, z0; VMOVUPS z0, (R8); VFMADD213PS 64(R8), Z31, z1; VMOVUPS z1, 64(R8); \
	VFMADD213PS 128(R8), Z31, z2; VMOVUPS z2, 128(R8); VFMADD213SS 192(R8), X31, x; VMOVSS x, 192(R8); ADDQ DX, R8
#define STOREROW49(z0, z1, z2, x) \
	VMULPS Z31, z0, z0; VMOVUPS z0, (R8); VMULPS Z31, z1, z1; VMOVUPS z1, 64(R8); \
	VMULPS Z31, z2, z2; VMOVUPS z2, 128(R8); VMULSS X31, x, x; VMOVSS x, 192(R8); ADDQ DX, R8

// EPROW49 finishes one row of the tile with the epilogue (see
// sgemm7x49RowsAVX512): alpha (Z31) times the row's accumulators (z0..z2
// and zx, whose lane 0 is the last column, x its X register), plus C's
// row under K2 and K3 (none when storing), times the row's scale at SI,
// plus its bias at R11, plus add's row at R13 under K4 and K5 (none
// without add), bounded to [Z28, Z29]; stored into C's row at R8. It
// then steps R8, SI, R11 and R13 to the next row.
#define EPROW49(z0, z1, z2, zx, x) \
	VMOVUPS.Z (R8), K2, Z30; VFMADD213PS Z30, Z31, z0; VMOVUPS.Z 64(R8), K2, Z30; VFMADD213PS Z30, Z31, z1; \
	VMOVUPS.Z 128(R8), K2, Z30; VFMADD213PS Z30, Z31, z2; VMOVUPS.Z 192(R8), K3, Z30; VFMADD213PS Z30, Z31, zx; \
	VBROADCASTSS (SI), Z30; VMULPS Z30, z0, z0; VMULPS Z30, z1, z1; VMULPS Z30, z2, z2; VMULPS Z30, zx, zx; \
	VBROADCASTSS (R11), Z30; VADDPS Z30, z0, z0; VADDPS Z30, z1, z1; VADDPS Z30, z2, z2; VADDPS Z30, zx, zx; \
	VADDPS (R13), z0, K4, z0; VADDPS 64(R13), z1, K4, z1; VADDPS 128(R13), z2, K4, z2; VADDPS 192(R13), zx, K5, zx; \
	VMAXPS z0, Z28, z0; VMAXPS z1, Z28, z1; VMAXPS z2, Z28, z2; VMAXPS zx, Z28, zx; \
	VMINPS z0, Z29, z0; VMINPS z1, Z29, z1; VMINPS z2, Z29, z2; VMINPS zx, Z29, zx; \
	VMOVUPS z0, (R8); VMOVUPS z1, 64(R8); VMOVUPS z2, 128(R8); VMOVSS x, 192(R8); \
	ADDQ DX, R8; ADDQ R9, SI; ADDQ R12, R11; ADDQ R14, R13

// PREFETCH_ROW49 asks for the four cache lines of C's row at AX and steps
// AX to the next row.
#define PREFETCH_ROW49 PREFETCHT0 (AX); PREFETCHT0 64(AX); PREFETCHT0 128(AX); PREFETCHT0 192(AX); ADDQ DX, AX

// ZERO7 clears seven registers.
#define ZERO7(a, b, c, d, e, f, g) VPXORD a, a, a; VPXORD b, b, b; VPXORD c, c, c; VPXORD d, d, d; VPXORD e, e, e; VPXORD f, f, f; VPXORD g, g, g

// SUM16 leaves the sum of Z's sixteen lanes in each lane of its X.
#define SUM16(z, y, x) VEXTRACTF32X8 $1, z, Y28; VADDPS Y28, y, y; VEXTRACTF32X4 $1, y, X28; VADDPS X28, x, x; VPERMILPS $0x4e, x, X28; VADDPS X28, x, x; VPERMILPS $0xb1, x, X28; VADDPS X28, x, x

// sgemm7x49RowsAVX512 multiplies 7 rows of A, read as they lie (row i at
// a + i*lda elements), by a B panel of 49 columns, into a 7 x 49 tile of C:
// C += alpha * A*B, or with store C = alpha * A*B. The panel is split: its
// first 48 columns lie depth-major (b[p*48 + j]), the last one after them
// along the depth (b[48*kc + p]).
//
// Columns 0 to 47 take three ZMM accumulators a row (Z0..Z20), each depth
// step loading B's row into Z28..Z30 and broadcasting A's seven values in
// turn into Z31. The last column takes one accumulator a row (Z21..Z27)
// that sums sixteen depths at a time, A's row times the column, and is
// reduced to one value at the end. Every lane of every multiply-add then
// does useful work on 7x7 planes, where a 64-wide tile of four vectors
// left 15 of its 64 columns empty. The depth loop also asks for the rows
// of the next tile's A at next (same lda), a cache line of each row per
// sixteen depths: A comes from memory, and its rows lie far apart.
//
// With ep not nil the tile is finished as it is stored, as a product's
// epilogue would be: row r times the scale at ep.scale + r*ep.scaleStep,
// plus the bias at ep.bias + r*ep.biasStep, plus row r of ep.add (row
// stride ep.addStride; none when nil), bounded to [ep.lo, ep.hi] (NaN
// stays NaN).
//
// func sgemm7x49RowsAVX512(kc int, alpha float32, a, b, c *float32, ldc int, store bool, lda int, next *float32, ep *rowEpilogue)
TEXT ·sgemm7x49RowsAVX512(SB), NOSPLIT, $0-80
	MOVQ kc+0(FP), CX
	MOVQ a+16(FP), SI
	MOVQ lda+56(FP), R10
	SHLQ $2, R10
	LEAQ (SI)(R10*2), R11
	ADDQ R10, R11
	LEAQ (R11)(R10*2), R12
	ADDQ R10, R12
	MOVQ next+64(FP), R13
	LEAQ (R13)(R10*2), R14
	ADDQ R10, R14
	MOVQ b+24(FP), DI
	MOVQ CX, R9
	IMULQ $192, R9
	ADDQ DI, R9
	MOVQ c+32(FP), R8
	MOVQ ldc+40(FP), DX
	SHLQ $2, DX
	MOVQ R8, AX
	// C's tile, 4 cache lines a row, is asked for first.
	PREFETCH_ROW49
	PREFETCH_ROW49
	PREFETCH_ROW49
	PREFETCH_ROW49
	PREFETCH_ROW49
	PREFETCH_ROW49
	PREFETCH_ROW49
	ZERO7(Z0, Z1, Z2, Z3, Z4, Z5, Z6)
	ZERO7(Z7, Z8, Z9, Z10, Z11, Z12, Z13)
	ZERO7(Z14, Z15, Z16, Z17, Z18, Z19, Z20)
	ZERO7(Z21, Z22, Z23, Z24, Z25, Z26, Z27)
	LEAQ (R14)(R10*2), AX // the next tile's row 6
	ADDQ R10, AX
	MOVQ CX, BX
	SHRQ $4, BX
	JZ sgemm7x49RowsAVX512_rest

sgemm7x49RowsAVX512_loop16:
	PREFETCHT0 (R13)
	PREFETCHT0 (R13)(R10*1)
	PREFETCHT0 (R13)(R10*2)
	PREFETCHT0 (R14)
	PREFETCHT0 (R14)(R10*1)
	PREFETCHT0 (R14)(R10*2)
	PREFETCHT0 (AX)
	ADDQ $64, R13
	ADDQ $64, R14
	ADDQ $64, AX
	STEP49(0, 0)
	STEP49(192, 4)
	STEP49(384, 8)
	STEP49(576, 12)
	STEP49(768, 16)
	STEP49(960, 20)
	STEP49(1152, 24)
	STEP49(1344, 28)
	STEP49(1536, 32)
	STEP49(1728, 36)
	STEP49(1920, 40)
	STEP49(2112, 44)
	STEP49(2304, 48)
	STEP49(2496, 52)
	STEP49(2688, 56)
	STEP49(2880, 60)
	VMOVUPS (R9), Z28
	VFMADD231PS (SI), Z28, Z21
	VFMADD231PS (SI)(R10*1), Z28, Z22
	VFMADD231PS (SI)(R10*2), Z28, Z23
	VFMADD231PS (R11), Z28, Z24
	VFMADD231PS (R11)(R10*1), Z28, Z25
	VFMADD231PS (R11)(R10*2), Z28, Z26
	VFMADD231PS (R12), Z28, Z27
	ADDQ $64, SI
	ADDQ $64, R11
	ADDQ $64, R12
	ADDQ $3072, DI
	ADDQ $64, R9
	DECQ BX
	JNZ sgemm7x49RowsAVX512_loop16

sgemm7x49RowsAVX512_rest:
	ANDQ $15, CX
	JZ sgemm7x49RowsAVX512_done
	// The last column's rest of the depth, under a mask of its length.
	MOVQ $1, AX
	SHLQ CX, AX
	DECQ AX
	KMOVW AX, K1
	VMOVUPS.Z (R9), K1, Z28
	VMOVUPS.Z (SI), K1, Z31
	VFMADD231PS Z31, Z28, Z21
	VMOVUPS.Z (SI)(R10*1), K1, Z31
	VFMADD231PS Z31, Z28, Z22
	VMOVUPS.Z (SI)(R10*2), K1, Z31
	VFMADD231PS Z31, Z28, Z23
	VMOVUPS.Z (R11), K1, Z31
	VFMADD231PS Z31, Z28, Z24
	VMOVUPS.Z (R11)(R10*1), K1, Z31
	VFMADD231PS Z31, Z28, Z25
	VMOVUPS.Z (R11)(R10*2), K1, Z31
	VFMADD231PS Z31, Z28, Z26
	VMOVUPS.Z (R12), K1, Z31
	VFMADD231PS Z31, Z28, Z27

sgemm7x49RowsAVX512_loop1:
	STEP49(0, 0)
	ADDQ $4, SI
	ADDQ $4, R11
	ADDQ $4, R12
	ADDQ $192, DI
	DECQ CX
	JNZ sgemm7x49RowsAVX512_loop1

sgemm7x49RowsAVX512_done:
	SUM16(Z21, Y21, X21)
	SUM16(Z22, Y22, X22)
	SUM16(Z23, Y23, X23)
	SUM16(Z24, Y24, X24)
	SUM16(Z25, Y25, X25)
	SUM16(Z26, Y26, X26)
	SUM16(Z27, Y27, X27)
	VBROADCASTSS alpha+8(FP), Z31
	MOVQ ep+72(FP), BX
	TESTQ BX, BX
	JNZ sgemm7x49RowsAVX512_ep
	MOVBLZX store+48(FP), AX
	TESTQ AX, AX
	JNZ sgemm7x49RowsAVX512_store
	ADDROW49(Z0, Z1, Z2, X21)
	ADDROW49(Z3, Z4, Z5, X22)
	ADDROW49(Z6, Z7, Z8, X23)
	ADDROW49(Z9, Z10, Z11, X24)
	ADDROW49(Z12, Z13, Z14, X25)
	ADDROW49(Z15, Z16, Z17, X26)
	ADDROW49(Z18, Z19, Z20, X27)
	VZEROUPPER
	RET

sgemm7x49RowsAVX512_store:
	STOREROW49(Z0, Z1, Z2, X21)
	STOREROW49(Z3, Z4, Z5, X22)
	STOREROW49(Z6, Z7, Z8, X23)
	STOREROW49(Z9, Z10, Z11, X24)
	STOREROW49(Z12, Z13, Z14, X25)
	STOREROW49(Z15, Z16, Z17, X26)
	STOREROW49(Z18, Z19, Z20, X27)
	VZEROUPPER
	RET

sgemm7x49RowsAVX512_ep:
	// K2 and K3: C's row and last column, read unless storing; K4 and
	// K5: add's, read when there is one.
	XORQ AX, AX
	XORQ CX, CX
	MOVBLZX store+48(FP), R10
	TESTQ R10, R10
	JNZ sgemm7x49RowsAVX512_epc
	MOVQ $0xffff, AX
	MOVQ $1, CX

sgemm7x49RowsAVX512_epc:
	KMOVW AX, K2
	KMOVW CX, K3
	// Without add, its loads are all masked off and read C instead: a
	// masked load from an unmapped address costs a fault's assist.
	MOVQ 40(BX), R14 // add's row stride
	SHLQ $2, R14
	XORQ AX, AX
	XORQ CX, CX
	MOVQ 32(BX), R13 // add
	TESTQ R13, R13
	JNZ sgemm7x49RowsAVX512_epadd
	MOVQ R8, R13
	MOVQ DX, R14
	JMP sgemm7x49RowsAVX512_epk

sgemm7x49RowsAVX512_epadd:
	MOVQ $0xffff, AX
	MOVQ $1, CX

sgemm7x49RowsAVX512_epk:
	KMOVW AX, K4
	KMOVW CX, K5
	MOVQ 0(BX), SI   // scale
	MOVQ 16(BX), R9  // its step
	SHLQ $2, R9
	MOVQ 8(BX), R11  // bias
	MOVQ 24(BX), R12 // its step
	SHLQ $2, R12
	VBROADCASTSS 48(BX), Z28 // lo
	VBROADCASTSS 52(BX), Z29 // hi
	EPROW49(Z0, Z1, Z2, Z21, X21)
	EPROW49(Z3, Z4, Z5, Z22, X22)
	EPROW49(Z6, Z7, Z8, Z23, X23)
	EPROW49(Z9, Z10, Z11, Z24, X24)
	EPROW49(Z12, Z13, Z14, Z25, X25)
	EPROW49(Z15, Z16, Z17, Z26, X26)
	EPROW49(Z18, Z19, Z20, Z27, X27)
	VZEROUPPER
	RET

// splitRowsAVX512 packs n rows of a B panel of 49 columns, row d at
// src + d*ds elements, into a split panel: the first 48 columns of row d
// to dst + 48*d, the last to last[d].
//
// func splitRowsAVX512(n int, src *float32, ds int, dst, last *float32)
TEXT ·splitRowsAVX512(SB), NOSPLIT, $0-40
	MOVQ n+0(FP), CX
	MOVQ src+8(FP), SI
	MOVQ ds+16(FP), DX
	SHLQ $2, DX
	MOVQ dst+24(FP), DI
	MOVQ last+32(FP), R8

splitRowsAVX512_row:
	VMOVUPS (SI), Z0
	VMOVUPS 64(SI), Z1
	VMOVUPS 128(SI), Z2
	MOVL 192(SI), AX
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	MOVL AX, (R8)
	ADDQ DX, SI
	ADDQ $192, DI
	ADDQ $4, R8
	DECQ CX
	JNZ splitRowsAVX512_row
	VZEROUPPER
	RET

// sgemm1x49AVX512 multiplies one row of A (kc values at a) by a split
// panel of 49 columns (as sgemm7x49RowsAVX512 takes it) into 49 values
// of C at c: C += alpha * a*B, or with store C = alpha * a*B. Columns 0
// to 47 take two sets of three accumulators, one for even depths and one
// for odd, so that six chains of multiply-adds are in flight; the last
// column is a's dot product with it, sixteen depths at a time.
//
// func sgemm1x49AVX512(kc int, alpha float32, a, b, c *float32, store bool)
TEXT ·sgemm1x49AVX512(SB), NOSPLIT, $0-41
	MOVQ kc+0(FP), CX
	MOVQ a+16(FP), SI
	MOVQ b+24(FP), DI
	MOVQ c+32(FP), R8
	MOVQ CX, R9
	IMULQ $192, R9
	ADDQ DI, R9 // the last column
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	MOVQ CX, BX
	SHRQ $1, BX
	JZ sgemm1x49AVX512_odd

sgemm1x49AVX512_pairs:
	VBROADCASTSS (SI), Z30
	VFMADD231PS (DI), Z30, Z0
	VFMADD231PS 64(DI), Z30, Z1
	VFMADD231PS 128(DI), Z30, Z2
	VBROADCASTSS 4(SI), Z31
	VFMADD231PS 192(DI), Z31, Z3
	VFMADD231PS 256(DI), Z31, Z4
	VFMADD231PS 320(DI), Z31, Z5
	ADDQ $8, SI
	ADDQ $384, DI
	DECQ BX
	JNZ sgemm1x49AVX512_pairs

sgemm1x49AVX512_odd:
	TESTQ $1, CX
	JZ sgemm1x49AVX512_last
	VBROADCASTSS (SI), Z30
	VFMADD231PS (DI), Z30, Z0
	VFMADD231PS 64(DI), Z30, Z1
	VFMADD231PS 128(DI), Z30, Z2

sgemm1x49AVX512_last:
	// The last column: a's dot product with it, under a mask for the
	// rest of the depth.
	MOVQ a+16(FP), SI
	MOVQ CX, BX
	SHRQ $4, BX
	JZ sgemm1x49AVX512_lastrest

sgemm1x49AVX512_last16:
	VMOVUPS (SI), Z30
	VFMADD231PS (R9), Z30, Z6
	ADDQ $64, SI
	ADDQ $64, R9
	DECQ BX
	JNZ sgemm1x49AVX512_last16

sgemm1x49AVX512_lastrest:
	ANDQ $15, CX
	JZ sgemm1x49AVX512_sum
	MOVQ $1, AX
	SHLQ CX, AX
	DECQ AX
	KMOVW AX, K1
	VMOVUPS.Z (SI), K1, Z30
	VMOVUPS.Z (R9), K1, Z31
	VFMADD231PS Z31, Z30, Z6

sgemm1x49AVX512_sum:
	VADDPS Z3, Z0, Z0
	VADDPS Z4, Z1, Z1
	VADDPS Z5, Z2, Z2
	SUM16(Z6, Y6, X6)
	VBROADCASTSS alpha+8(FP), Z31
	MOVBLZX store+40(FP), AX
	TESTQ AX, AX
	JNZ sgemm1x49AVX512_store
	VFMADD213PS (R8), Z31, Z0
	VFMADD213PS 64(R8), Z31, Z1
	VFMADD213PS 128(R8), Z31, Z2
	VFMADD213SS 192(R8), X31, X6
	JMP sgemm1x49AVX512_out

sgemm1x49AVX512_store:
	VMULPS Z31, Z0, Z0
	VMULPS Z31, Z1, Z1
	VMULPS Z31, Z2, Z2
	VMULSS X31, X6, X6

sgemm1x49AVX512_out:
	VMOVUPS Z0, (R8)
	VMOVUPS Z1, 64(R8)
	VMOVUPS Z2, 128(R8)
	VMOVSS X6, 192(R8)
	VZEROUPPER
	RET
