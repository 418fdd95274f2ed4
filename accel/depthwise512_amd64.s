//go:build !purego

#include "textflag.h"

// DWWEIGHTS broadcasts the nine weights at AX into Z20..Z28.
#define DWWEIGHTS \
	VBROADCASTSS 0(AX), Z20; VBROADCASTSS 4(AX), Z21; VBROADCASTSS 8(AX), Z22; \
	VBROADCASTSS 12(AX), Z23; VBROADCASTSS 16(AX), Z24; VBROADCASTSS 20(AX), Z25; \
	VBROADCASTSS 24(AX), Z26; VBROADCASTSS 28(AX), Z27; VBROADCASTSS 32(AX), Z28

// PLANECONSTS broadcasts a plane's weights (the kernels' argument w9)
// into Z20..Z28 and its bias (at the argument bias) into Z29; NEXTPLANE
// steps both arguments to the next plane's and loops to label while
// planes remain.
#define PLANECONSTS MOVQ w9+32(FP), AX; DWWEIGHTS; MOVQ bias+40(FP), AX; VBROADCASTSS (AX), Z29
#define NEXTPLANE(label) \
	ADDQ $36, w9+32(FP); MOVQ biasStep+48(FP), AX; SHLQ $2, AX; ADDQ AX, bias+40(FP); \
	DECQ planes+24(FP); JNZ label

// TAPROW adds the three taps of one filter row (weights in wl, wc, wr) at
// the input row at AX: its columns shifted one right (K2: the first lane
// is the padding), as they lie (K1) and shifted one left (K3: the last
// lane is the padding), under masks that keep the loads inside the row.
#define TAPROW(wl, wc, wr) \
	VMOVUPS.Z -4(AX), K2, Z1; VMOVUPS.Z (AX), K1, Z2; VMOVUPS.Z 4(AX), K3, Z3; \
	VFMADD231PS Z1, wl, Z0; VFMADD231PS Z2, wc, Z0; VFMADD231PS Z3, wr, Z0

// dw3x3PlanesAVX512 computes planes planes of a depthwise 3x3 convolution
// at unit stride with one column and one row of zero padding on each
// side, one after another in src and dst (h x w each): plane i takes the
// nine weights at w9+9i and the bias at bias+i*biasStep. Each output row,
// sixteen columns at a time, is bias plus the filter's three rows times
// input rows i-1, i and i+1 (those that lie in the plane), bounded to
// [lo, hi] (NaN stays NaN: VMAXPS and VMINPS return their second source
// when either is NaN). The planes are read as they lie, without a
// bordered copy: masks keep the loads inside each row, and stand for the
// padding at its ends.
//
// func dw3x3PlanesAVX512(src *float32, h, w, planes int, w9, bias *float32, biasStep int, lo, hi float32, dst *float32)
TEXT ·dw3x3PlanesAVX512(SB), NOSPLIT, $0-72
	MOVQ src+0(FP), SI
	MOVQ h+8(FP), R8
	MOVQ w+16(FP), R13
	MOVQ dst+64(FP), DI
	VBROADCASTSS lo+56(FP), Z30
	VBROADCASTSS hi+60(FP), Z31
	MOVQ R13, DX
	SHLQ $2, DX // row bytes
	MOVQ R8, R9
	DECQ R9 // the last row's index

dw3x3PlaneAVX512_plane:
	PLANECONSTS
	XORQ BX, BX

dw3x3PlaneAVX512_row:
	XORQ R10, R10 // the segment's first column, in bytes
	MOVQ R13, R11 // the columns left in the row

dw3x3PlaneAVX512_seg:
	// K1: the segment's columns; K2: those with a column to their left
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
	VMOVAPS Z29, Z0
	LEAQ (SI)(R10*1), R12
	TESTQ BX, BX
	JZ dw3x3PlaneAVX512_mid
	MOVQ R12, AX
	SUBQ DX, AX
	TAPROW(Z20, Z21, Z22)

dw3x3PlaneAVX512_mid:
	MOVQ R12, AX
	TAPROW(Z23, Z24, Z25)
	CMPQ BX, R9
	JGE dw3x3PlaneAVX512_store
	ADDQ DX, AX
	TAPROW(Z26, Z27, Z28)

dw3x3PlaneAVX512_store:
	VMAXPS Z0, Z30, Z0
	VMINPS Z0, Z31, Z0
	VMOVUPS Z0, K1, (DI)(R10*1)
	ADDQ $64, R10
	SUBQ $16, R11
	JG dw3x3PlaneAVX512_seg
	ADDQ DX, SI
	ADDQ DX, DI
	INCQ BX
	CMPQ BX, R8
	JLT dw3x3PlaneAVX512_row
	// SI and DI have reached the next plane.
	NEXTPLANE(dw3x3PlaneAVX512_plane)
	VZEROUPPER
	RET

// TAPROW2 adds the three taps of one filter row (weights in wl, wc, wr) at
// the input row at AX for sixteen outputs at stride 2: the input's columns
// from the segment's first output's left one (K1, K2: 32 of them from
// R10 bytes in, less one column) are split into the even ones (the left
// taps) and the odd ones (the middle taps) by Z18 and Z19; those from the
// right one (K3, K4) give the right taps. The masks stand for the padding.
#define TAPROW2(wl, wc, wr) \
	VMOVUPS.Z -4(AX)(R10*1), K1, Z1; VMOVUPS.Z 60(AX)(R10*1), K2, Z2; VMOVAPS Z1, Z3; \
	VPERMT2PS Z2, Z18, Z1; VPERMT2PS Z2, Z19, Z3; \
	VMOVUPS.Z 4(AX)(R10*1), K3, Z4; VMOVUPS.Z 68(AX)(R10*1), K4, Z5; VPERMT2PS Z5, Z18, Z4; \
	VFMADD231PS Z1, wl, Z0; VFMADD231PS Z3, wc, Z0; VFMADD231PS Z4, wr, Z0

// dw3x3PlanesS2AVX512 is dw3x3PlanesAVX512 at stride 2 in both
// directions: planes of oh x ow outputs, sixteen columns at a time, each
// segment's five masks (its loads' four and its store's) at masks, ten
// bytes a segment; idx holds the even lane indices 0, 2, ... 30, then the
// odd ones.
//
// func dw3x3PlanesS2AVX512(src *float32, h, w, planes int, w9, bias *float32, biasStep int, lo, hi float32, dst *float32, oh, ow int, masks *uint16, idx *int32)
TEXT ·dw3x3PlanesS2AVX512(SB), NOSPLIT, $0-104
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
	MOVQ oh+72(FP), R9

s2_plane:
	PLANECONSTS
	MOVQ SI, R12 // the plane's first row
	XORQ BX, BX  // the output row's index

s2_row:
	XORQ R10, R10 // the segment's first input column, less one, in bytes
	XORQ R11, R11 // its first output column, in bytes
	MOVQ masks+88(FP), R14
	LEAQ 1(BX)(BX*1), CX // the last input row it reads

s2_seg:
	KMOVW 0(R14), K1
	KMOVW 2(R14), K2
	KMOVW 4(R14), K3
	KMOVW 6(R14), K4
	KMOVW 8(R14), K5
	VMOVAPS Z29, Z0
	TESTQ BX, BX
	JZ s2_mid
	MOVQ SI, AX
	SUBQ DX, AX
	TAPROW2(Z20, Z21, Z22)

s2_mid:
	MOVQ SI, AX
	TAPROW2(Z23, Z24, Z25)
	CMPQ CX, R8
	JGE s2_store
	ADDQ DX, AX
	TAPROW2(Z26, Z27, Z28)

s2_store:
	VMAXPS Z0, Z30, Z0
	VMINPS Z0, Z31, Z0
	VMOVUPS Z0, K5, (DI)(R11*1)
	ADDQ $128, R10
	ADDQ $64, R11
	ADDQ $10, R14
	CMPQ R11, R13
	JLT s2_seg
	LEAQ (SI)(DX*2), SI
	ADDQ R13, DI
	INCQ BX
	CMPQ BX, R9
	JLT s2_row
	// DI has reached the next plane; SI goes there from the plane's start.
	MOVQ R8, AX
	IMULQ DX, AX
	LEAQ (R12)(AX*1), SI
	NEXTPLANE(s2_plane)
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
