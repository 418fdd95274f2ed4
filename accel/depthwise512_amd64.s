//go:build !purego

#include "textflag.h"

// TAPROW adds the three taps of one filter row (weights in wl, wc, wr) at
// the input row at AX: its columns shifted one right (K2: the first lane
// is the padding), as they lie (K1) and shifted one left (K3: the last
// lane is the padding), under masks that keep the loads inside the row.
#define TAPROW(wl, wc, wr) \
	VMOVUPS.Z -4(AX), K2, Z1; VMOVUPS.Z (AX), K1, Z2; VMOVUPS.Z 4(AX), K3, Z3; \
	VFMADD231PS Z1, wl, Z0; VFMADD231PS Z2, wc, Z0; VFMADD231PS Z3, wr, Z0

// dw3x3PlaneAVX512 computes one plane of a depthwise 3x3 convolution at
// unit stride with one column and one row of zero padding on each side:
// each output row, sixteen columns at a time, is bias plus the filter's
// three rows times input rows i-1, i and i+1 (those that lie in the
// plane), bounded to [lo, hi] (NaN stays NaN: VMAXPS and VMINPS return
// their second source when either is NaN). The plane is read as it lies,
// without a bordered copy: masks keep the loads inside each row, and
// stand for the padding at its ends.
//
// func dw3x3PlaneAVX512(src *float32, h, w int, w9 *[9]float32, bias, lo, hi float32, dst *float32)
TEXT ·dw3x3PlaneAVX512(SB), NOSPLIT, $0-56
	MOVQ src+0(FP), SI
	MOVQ h+8(FP), R8
	MOVQ w+16(FP), R13
	MOVQ w9+24(FP), AX
	MOVQ dst+48(FP), DI
	VBROADCASTSS 0(AX), Z20
	VBROADCASTSS 4(AX), Z21
	VBROADCASTSS 8(AX), Z22
	VBROADCASTSS 12(AX), Z23
	VBROADCASTSS 16(AX), Z24
	VBROADCASTSS 20(AX), Z25
	VBROADCASTSS 24(AX), Z26
	VBROADCASTSS 28(AX), Z27
	VBROADCASTSS 32(AX), Z28
	VBROADCASTSS bias+32(FP), Z29
	VBROADCASTSS lo+36(FP), Z30
	VBROADCASTSS hi+40(FP), Z31
	MOVQ R13, DX
	SHLQ $2, DX // row bytes
	MOVQ R8, R9
	DECQ R9 // the last row's index
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
	VZEROUPPER
	RET
