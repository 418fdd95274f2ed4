//go:build !purego

#include "textflag.h"

// func addRowsAVX2(rows, n int, dst *float32, dstStride int, src *float32, srcStride int)
// dst[r*dstStride+i] += src[r*srcStride+i] for r < rows and i < n; rows
// and n are positive. Eight lanes at a time, then one at a time.
TEXT ·addRowsAVX2(SB), NOSPLIT, $0-48
	MOVQ rows+0(FP), CX
	MOVQ n+8(FP), BX
	MOVQ dst+16(FP), DI
	MOVQ dstStride+24(FP), R8
	MOVQ src+32(FP), SI
	MOVQ srcStride+40(FP), R9
	SHLQ $2, R8
	SHLQ $2, R9
	MOVQ BX, R10
	ANDQ $-8, R10

addrows_row:
	XORQ AX, AX
	CMPQ R10, $0
	JE addrows_tail

addrows_vec:
	VMOVUPS (SI)(AX*4), Y0
	VADDPS (DI)(AX*4), Y0, Y0
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ $8, AX
	CMPQ AX, R10
	JB addrows_vec

addrows_tail:
	CMPQ AX, BX
	JAE addrows_next
	VMOVSS (SI)(AX*4), X0
	VADDSS (DI)(AX*4), X0, X0
	VMOVSS X0, (DI)(AX*4)
	INCQ AX
	JMP addrows_tail

addrows_next:
	ADDQ R8, DI
	ADDQ R9, SI
	DECQ CX
	JNZ addrows_row
	VZEROUPPER
	RET

// func maxPool2x2Back4AVX(r0, r1, gout, gi0, gi1 *float32)
// maxPool2x2BackAVX2 for exactly four outputs, in 128-bit registers
// (where shuffles keep the lanes in order): gout[i] is added to gi0 or
// gi1 at the first maximum of the 2x2 block i of r0 and r1.
TEXT ·maxPool2x2Back4AVX(SB), NOSPLIT, $0-40
	MOVQ r0+0(FP), SI
	MOVQ r1+8(FP), DI
	MOVQ gout+16(FP), DX
	MOVQ gi0+24(FP), R8
	MOVQ gi1+32(FP), R9
	VMOVUPS (SI), X0
	VMOVUPS 16(SI), X1
	VMOVUPS (DI), X2
	VMOVUPS 16(DI), X3
	VSHUFPS $0x88, X1, X0, X4  // a: r0 even
	VSHUFPS $0xDD, X1, X0, X5  // b: r0 odd
	VSHUFPS $0x88, X3, X2, X6  // c: r1 even
	VSHUFPS $0xDD, X3, X2, X7  // d: r1 odd
	VMOVUPS (DX), X8
	VCMPPS $0x1E, X4, X5, X9   // b > a
	VMAXPS X4, X5, X10
	VCMPPS $0x1E, X10, X6, X11 // c > max so far
	VMAXPS X10, X6, X10
	VCMPPS $0x1E, X10, X7, X12 // d > max so far
	VANDPS X8, X12, X13        // to d
	VANDNPS X8, X12, X8
	VANDPS X8, X11, X14        // to c
	VANDNPS X8, X11, X8
	VANDPS X8, X9, X15         // to b
	VANDNPS X8, X9, X8         // to a
	VUNPCKLPS X15, X8, X0      // (a, b) pairs: r0[0:4]
	VUNPCKHPS X15, X8, X1      // r0[4:8]
	VUNPCKLPS X13, X14, X2     // (c, d) pairs: r1[0:4]
	VUNPCKHPS X13, X14, X3     // r1[4:8]
	VADDPS (R8), X0, X0
	VADDPS 16(R8), X1, X1
	VMOVUPS X0, (R8)
	VMOVUPS X1, 16(R8)
	VADDPS (R9), X2, X2
	VADDPS 16(R9), X3, X3
	VMOVUPS X2, (R9)
	VMOVUPS X3, 16(R9)
	RET
