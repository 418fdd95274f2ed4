//go:build !purego

#include "textflag.h"

// DWWEIGHTS broadcasts the nine weights at AX into Z20..Z28.
#define DWWEIGHTS \
	VBROADCASTSS 0(AX), Z20; VBROADCASTSS 4(AX), Z21; VBROADCASTSS 8(AX), Z22; \
	VBROADCASTSS 12(AX), Z23; VBROADCASTSS 16(AX), Z24; VBROADCASTSS 20(AX), Z25; \
	VBROADCASTSS 24(AX), Z26; VBROADCASTSS 28(AX), Z27; VBROADCASTSS 32(AX), Z28

// PLANECONSTS broadcasts a plane's weights (the kernels' argument w9),
// times its scale (at the argument scale), into Z20..Z28 and its bias
// (at the argument bias) into Z29; NEXTPLANE steps the three arguments to
// the next plane's and loops to label while planes remain. Z17 is
// scratch.
#define PLANECONSTS(scale) \
	MOVQ w9+32(FP), AX; DWWEIGHTS; MOVQ bias+40(FP), AX; VBROADCASTSS (AX), Z29; \
	MOVQ scale, AX; VBROADCASTSS (AX), Z17; \
	VMULPS Z17, Z20, Z20; VMULPS Z17, Z21, Z21; VMULPS Z17, Z22, Z22; \
	VMULPS Z17, Z23, Z23; VMULPS Z17, Z24, Z24; VMULPS Z17, Z25, Z25; \
	VMULPS Z17, Z26, Z26; VMULPS Z17, Z27, Z27; VMULPS Z17, Z28, Z28
#define NEXTPLANE(label, scale, scaleStep) \
	ADDQ $36, w9+32(FP); MOVQ biasStep+48(FP), AX; SHLQ $2, AX; ADDQ AX, bias+40(FP); \
	MOVQ scaleStep, AX; SHLQ $2, AX; ADDQ AX, scale; \
	DECQ planes+24(FP); JNZ label

// TAPROW adds the three taps of one filter row (weights in wl, wc, wr) at
// the input row at AX: its columns shifted one right (K2: the first lane
// is the padding), as they lie (K1) and shifted one left (K3: the last
// lane is the padding), under masks that keep the loads inside the row.
#define TAPROW(wl, wc, wr) \
	VMOVUPS.Z -4(AX), K2, Z1; VMOVUPS.Z (AX), K1, Z2; VMOVUPS.Z 4(AX), K3, Z3; \
	VFMADD231PS Z1, wl, Z0; VFMADD231PS Z2, wc, Z0; VFMADD231PS Z3, wr, Z0

// ROWLOADS loads the input row at AX for a strip: its columns shifted one
// right (K2: the first lane is the padding) into Z1, as they lie (K1)
// into Z2 and shifted one left (K3: the last lane is the padding) into
// Z3, under masks that keep the loads inside the row. It asks the cache
// for the strip's line eight rows down (past a plane's end, the next
// plane's; a prefetch never faults): a strip walks down its plane a row
// at a time, a stride the hardware's prefetchers follow poorly across
// pages, and a layer's input has just been written out of the core's
// own cache by the layer before. In MobileNet v2 its depthwise layers at
// unit stride took 0.83 to 0.93 of their time, at stride 2 (S2LOADS)
// 0.85 to 0.87.
#define ROWLOADS PREFETCHT0 (AX)(DX*8); VMOVUPS.Z -4(AX), K2, Z1; VMOVUPS.Z (AX), K1, Z2; VMOVUPS.Z 4(AX), K3, Z3

// DWSTORE bounds acc to [lo, hi] and stores it, under K1, to the output
// row at BX.
#define DWSTORE(acc) VMAXPS acc, Z30, acc; VMINPS acc, Z31, acc; VMOVUPS acc, K1, (BX)

// DWSTEP takes the next input row: it finishes the output row above it
// (prev, stored at BX, which then steps a row), adds the filter's middle
// row to the output row it is on (cur) and starts the one below (next)
// from the bias. Each row's three taps are summed apart (Z7, Z8) and
// added once, so that an accumulator's chain grows by one addition a row.
#define DWSTEP(prev, cur, next) \
	ADDQ DX, AX; ROWLOADS; \
	VMULPS Z1, Z26, Z7; VFMADD231PS Z2, Z27, Z7; VFMADD231PS Z3, Z28, Z7; VADDPS Z7, prev, prev; \
	DWSTORE(prev); ADDQ DX, BX; \
	VMULPS Z1, Z23, Z8; VFMADD231PS Z2, Z24, Z8; VFMADD231PS Z3, Z25, Z8; VADDPS Z8, cur, cur; \
	VMOVAPS Z29, next; VFMADD231PS Z1, Z20, next; VFMADD231PS Z2, Z21, next; VFMADD231PS Z3, Z22, next

// dw3x3PlanesAVX512 computes planes planes of a depthwise 3x3 convolution
// at unit stride with one column and one row of zero padding on each
// side, one after another in src and dst (h x w each): plane i takes the
// nine weights at w9+9i times the scale at scale+i*scaleStep, and the
// bias at bias+i*biasStep. A plane is
// computed in strips of sixteen columns, each walked down its rows: input
// row i, loaded once in three shifts (ROWLOADS), finishes output row i-1
// with the filter's bottom row, adds the middle row to output row i and
// starts output row i+1 with the top row (DWSTEP), so that an output
// vector costs three loads, not nine, and three accumulators are in
// flight. Outputs are bounded to [lo, hi] (NaN stays NaN: VMAXPS and
// VMINPS return their second source when either is NaN). The planes are
// read as they lie, without a bordered copy: masks keep the loads inside
// each row, and stand for the padding at its ends.
//
// func dw3x3PlanesAVX512(src *float32, h, w, planes int, w9, bias *float32, biasStep int, lo, hi float32, dst *float32, scale *float32, scaleStep int)
TEXT ·dw3x3PlanesAVX512(SB), NOSPLIT, $0-88
	MOVQ src+0(FP), SI
	MOVQ h+8(FP), R8
	MOVQ w+16(FP), R13
	MOVQ dst+64(FP), DI
	VBROADCASTSS lo+56(FP), Z30
	VBROADCASTSS hi+60(FP), Z31
	MOVQ R13, DX
	SHLQ $2, DX // row bytes
	MOVQ R8, R12
	IMULQ DX, R12 // plane bytes

dw3x3PlaneAVX512_plane:
	PLANECONSTS(scale+72(FP))
	XORQ R10, R10 // the strip's first column, in bytes
	MOVQ R13, R11 // the columns left in the row

dw3x3PlaneAVX512_seg:
	// K1: the strip's columns; K2: those with a column to their left
	// in the row; K3: those with one to their right.
	MOVQ R11, CX
	CMPQ CX, $16
	JLE dw3x3PlaneAVX512_n
	MOVQ $16, CX

dw3x3PlaneAVX512_n:
	MOVQ $1, AX
	SHLQ CX, AX
	DECQ AX
	KMOVW AX, K1
	TESTQ R10, R10
	JNZ dw3x3PlaneAVX512_left
	ANDQ $-2, AX

dw3x3PlaneAVX512_left:
	KMOVW AX, K2
	MOVQ R11, CX
	DECQ CX
	CMPQ CX, $16
	JLE dw3x3PlaneAVX512_r
	MOVQ $16, CX

dw3x3PlaneAVX512_r:
	MOVQ $1, AX
	SHLQ CX, AX
	DECQ AX
	KMOVW AX, K3
	LEAQ (SI)(R10*1), AX // the input row
	LEAQ (DI)(R10*1), BX // the output row that the next step finishes
	// Row 0 starts output rows 0 (Z4) and 1 (Z5).
	ROWLOADS
	VMOVAPS Z29, Z4
	VFMADD231PS Z1, Z23, Z4; VFMADD231PS Z2, Z24, Z4; VFMADD231PS Z3, Z25, Z4
	VMOVAPS Z29, Z5
	VFMADD231PS Z1, Z20, Z5; VFMADD231PS Z2, Z21, Z5; VFMADD231PS Z3, Z22, Z5
	MOVQ $1, CX // the input row's index
	CMPQ CX, R8
	JGE dw3x3PlaneAVX512_last4

dw3x3PlaneAVX512_rows:
	DWSTEP(Z4, Z5, Z6)
	INCQ CX
	CMPQ CX, R8
	JGE dw3x3PlaneAVX512_last5
	DWSTEP(Z5, Z6, Z4)
	INCQ CX
	CMPQ CX, R8
	JGE dw3x3PlaneAVX512_last6
	DWSTEP(Z6, Z4, Z5)
	INCQ CX
	CMPQ CX, R8
	JLT dw3x3PlaneAVX512_rows

dw3x3PlaneAVX512_last4:
	DWSTORE(Z4)
	JMP dw3x3PlaneAVX512_next

dw3x3PlaneAVX512_last5:
	DWSTORE(Z5)
	JMP dw3x3PlaneAVX512_next

dw3x3PlaneAVX512_last6:
	DWSTORE(Z6)

dw3x3PlaneAVX512_next:
	ADDQ $64, R10
	SUBQ $16, R11
	JG dw3x3PlaneAVX512_seg
	ADDQ R12, SI
	ADDQ R12, DI
	NEXTPLANE(dw3x3PlaneAVX512_plane, scale+72(FP), scaleStep+80(FP))
	VZEROUPPER
	RET

// S2LOADS loads the input row at AX for a strip of sixteen outputs at
// stride 2: the columns from the strip's first output's left one (K1, K2:
// 32 of them, from the strip's first input column less one) split into
// the even ones, the left taps (Z1), and the odd ones, the middle taps
// (Z2), by Z18 and Z19; those from its right one (K3, K4) give the right
// taps (Z3). The masks stand for the padding. It asks the cache for the
// strip's two lines eight rows down, as ROWLOADS does.
#define S2LOADS \
	PREFETCHT0 (AX)(DX*8); PREFETCHT0 64(AX)(DX*8); \
	VMOVUPS.Z -4(AX), K1, Z1; VMOVUPS.Z 60(AX), K2, Z9; VMOVAPS Z1, Z2; \
	VPERMT2PS Z9, Z18, Z1; VPERMT2PS Z9, Z19, Z2; \
	VMOVUPS.Z 4(AX), K3, Z3; VMOVUPS.Z 68(AX), K4, Z10; VPERMT2PS Z10, Z18, Z3

// S2MID adds the filter's middle row times the input row at AX to acc;
// S2BOTTOM adds its bottom row to acc and starts next, the output row
// below, from the bias and the top row; S2STORE bounds acc to [lo, hi],
// stores it under K5 at BX and steps BX a row. A row's three taps are
// summed apart (Z7, Z8) and added to acc once.
#define S2MID(acc) S2LOADS; VMULPS Z1, Z23, Z7; VFMADD231PS Z2, Z24, Z7; VFMADD231PS Z3, Z25, Z7; VADDPS Z7, acc, acc
#define S2BOTTOM(acc, next) \
	S2LOADS; VMULPS Z1, Z26, Z8; VFMADD231PS Z2, Z27, Z8; VFMADD231PS Z3, Z28, Z8; VADDPS Z8, acc, acc; \
	VMOVAPS Z29, next; VFMADD231PS Z1, Z20, next; VFMADD231PS Z2, Z21, next; VFMADD231PS Z3, Z22, next
#define S2STORE(acc) VMAXPS acc, Z30, acc; VMINPS acc, Z31, acc; VMOVUPS acc, K5, (BX); ADDQ R13, BX

// dw3x3PlanesS2AVX512 is dw3x3PlanesAVX512 at stride 2 in both
// directions: planes of oh x ow outputs, in strips of sixteen columns
// walked down their rows. Output row o takes input rows 2o-1, 2o and
// 2o+1; the odd rows, which two output rows share, are loaded once: row
// 2o+1 finishes output row o and starts output row o+1. Each strip's five
// masks (its loads' four and its store's) are at masks, ten bytes a
// strip; idx holds the even lane indices 0, 2, ... 30, then the odd ones.
//
// func dw3x3PlanesS2AVX512(src *float32, h, w, planes int, w9, bias *float32, biasStep int, lo, hi float32, dst *float32, oh, ow int, masks *uint16, idx *int32, scale *float32, scaleStep int)
TEXT ·dw3x3PlanesS2AVX512(SB), NOSPLIT, $0-120
	MOVQ src+0(FP), SI
	MOVQ dst+64(FP), DI
	VBROADCASTSS lo+56(FP), Z30
	VBROADCASTSS hi+60(FP), Z31
	MOVQ idx+96(FP), AX
	VMOVDQU32 (AX), Z18
	VMOVDQU32 64(AX), Z19
	MOVQ w+16(FP), DX
	SHLQ $2, DX // input row bytes
	MOVQ ow+80(FP), R13
	SHLQ $2, R13 // output row bytes
	MOVQ h+8(FP), R8
	MOVQ R8, R12
	IMULQ DX, R12 // input plane bytes
	MOVQ oh+72(FP), R9
	IMULQ R13, R9 // output plane bytes

s2_plane:
	PLANECONSTS(scale+104(FP))
	XORQ R10, R10 // the strip's first input column, in bytes
	XORQ R11, R11 // its first output column, in bytes
	MOVQ masks+88(FP), R14

s2_seg:
	KMOVW 0(R14), K1
	KMOVW 2(R14), K2
	KMOVW 4(R14), K3
	KMOVW 6(R14), K4
	KMOVW 8(R14), K5
	LEAQ (SI)(R10*1), AX // the input row
	LEAQ (DI)(R11*1), BX // the output row
	XORQ CX, CX          // the input row's index
	VMOVAPS Z29, Z4      // output row 0: its top row is the padding

s2_rows:
	S2MID(Z4)
	INCQ CX
	CMPQ CX, R8
	JGE s2_last4
	ADDQ DX, AX
	S2BOTTOM(Z4, Z5)
	S2STORE(Z4)
	INCQ CX
	CMPQ CX, R8
	JGE s2_strip
	ADDQ DX, AX
	S2MID(Z5)
	INCQ CX
	CMPQ CX, R8
	JGE s2_last5
	ADDQ DX, AX
	S2BOTTOM(Z5, Z4)
	S2STORE(Z5)
	INCQ CX
	CMPQ CX, R8
	JGE s2_strip
	ADDQ DX, AX
	JMP s2_rows

s2_last4:
	S2STORE(Z4)
	JMP s2_strip

s2_last5:
	S2STORE(Z5)

s2_strip:
	ADDQ $128, R10
	ADDQ $64, R11
	ADDQ $10, R14
	CMPQ R11, R13
	JLT s2_seg
	ADDQ R12, SI
	ADDQ R9, DI
	NEXTPLANE(s2_plane, scale+104(FP), scaleStep+112(FP))
	VZEROUPPER
	RET

// LOWMASK sets k to the lowest CX bits (CX below 32; R8 is scratch);
// SPLITMASK sets k1 to the first 16 of the lowest CX bits and k2 to the
// next 16: the lanes of two vectors.
#define LOWMASK(k) MOVQ $1, R8; SHLQ CX, R8; DECQ R8; KMOVW R8, k
#define SPLITMASK(k1, k2) MOVQ $1, R8; SHLQ CX, R8; DECQ R8; KMOVW R8, k1; SHRQ $16, R8; KMOVW R8, k2

// deinterleaveAVX512 writes even[j] = src[2j] and odd[j] = src[2j+1] for
// j below n, sixteen pairs at a time, the last fewer under masks; idx
// holds the even lane indices of two vectors, then the odd ones.
//
// func deinterleaveAVX512(n int, src, even, odd *float32, idx *int32)
TEXT ·deinterleaveAVX512(SB), NOSPLIT, $0-40
	MOVQ n+0(FP), CX
	MOVQ src+8(FP), SI
	MOVQ even+16(FP), DI
	MOVQ odd+24(FP), DX
	MOVQ idx+32(FP), AX
	VMOVDQU32 (AX), Z18
	VMOVDQU32 64(AX), Z19

deinterleaveAVX512_loop:
	CMPQ CX, $16
	JLT deinterleaveAVX512_tail
	VMOVUPS (SI), Z0
	VMOVUPS 64(SI), Z1
	VMOVAPS Z0, Z2
	VPERMT2PS Z1, Z18, Z0
	VPERMT2PS Z1, Z19, Z2
	VMOVUPS Z0, (DI)
	VMOVUPS Z2, (DX)
	ADDQ $128, SI
	ADDQ $64, DI
	ADDQ $64, DX
	SUBQ $16, CX
	JMP deinterleaveAVX512_loop

deinterleaveAVX512_tail:
	TESTQ CX, CX
	JEQ deinterleaveAVX512_done
	// K3: the r pairs left; K1 and K2: their 2r elements in two vectors.
	LOWMASK(K3)
	SHLQ $1, CX
	SPLITMASK(K1, K2)
	VMOVUPS.Z (SI), K1, Z0
	VMOVUPS.Z 64(SI), K2, Z1
	VMOVAPS Z0, Z2
	VPERMT2PS Z1, Z18, Z0
	VPERMT2PS Z1, Z19, Z2
	VMOVUPS Z0, K3, (DI)
	VMOVUPS Z2, K3, (DX)

deinterleaveAVX512_done:
	VZEROUPPER
	RET

// subsample2AVX512 writes dst[j] = src[2j] for j below n (positive),
// sixteen at a time: the last one to sixteen under masks, which read no
// element past src[2(n-1)]. idx is as deinterleaveAVX512's.
//
// func subsample2AVX512(n int, src, dst *float32, idx *int32)
TEXT ·subsample2AVX512(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	MOVQ src+8(FP), SI
	MOVQ dst+16(FP), DI
	MOVQ idx+24(FP), AX
	VMOVDQU32 (AX), Z18

subsample2AVX512_loop:
	CMPQ CX, $16
	JLE subsample2AVX512_tail
	VMOVUPS (SI), Z0
	VPERMT2PS 64(SI), Z18, Z0
	VMOVUPS Z0, (DI)
	ADDQ $128, SI
	ADDQ $64, DI
	SUBQ $16, CX
	JMP subsample2AVX512_loop

subsample2AVX512_tail:
	// K3: the r outputs left; K1 and K2: the 2r-1 elements they read.
	LOWMASK(K3)
	LEAQ -1(CX)(CX*1), CX
	SPLITMASK(K1, K2)
	VMOVUPS.Z (SI), K1, Z0
	VMOVUPS.Z 64(SI), K2, Z1
	VPERMT2PS Z1, Z18, Z0
	VMOVUPS Z0, K3, (DI)
	VZEROUPPER
	RET
