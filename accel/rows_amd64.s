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

// func col2imVecsAVX2(dst *float32, col *float32, offs *int, noffs int, taps *col2imTap, kw int, iw0 *int, nvec int)
// One image row of Col2imSet: for each of the nvec vectors v, the sum
// over the kw taps j (the entries taps[v*kw+j], each an element offset,
// a lane mask and a permutation) and over the noffs kernel rows (offs)
// of the masked load of 8 float32s at col[offs[i]+taps[v*kw+j].off:],
// its lanes moved by the permutation, stored whole at dst[iw0[v]:].
// noffs, kw and nvec are positive. Masked-off lanes are not read, so
// their addresses may lie outside col.
TEXT ·col2imVecsAVX2(SB), NOSPLIT, $0-64
	MOVQ dst+0(FP), DI
	MOVQ col+8(FP), SI
	MOVQ offs+16(FP), R8
	MOVQ noffs+24(FP), R9
	MOVQ taps+32(FP), R12
	MOVQ iw0+48(FP), R13
	MOVQ nvec+56(FP), R14

col2im_vec:
	VXORPS Y0, Y0, Y0
	VXORPS Y3, Y3, Y3
	MOVQ kw+40(FP), CX

col2im_tap:
	VMOVDQU 8(R12), Y1
	VMOVDQU 40(R12), Y5
	MOVQ 0(R12), AX
	LEAQ (SI)(AX*4), BX
	MOVQ R8, DX
	MOVQ R9, R10
	CMPQ R10, $2
	JLT col2im_one

col2im_two:
	MOVQ (DX), AX
	VMASKMOVPS (BX)(AX*4), Y1, Y2
	VPERMPS Y2, Y5, Y2
	VADDPS Y2, Y0, Y0
	MOVQ 8(DX), AX
	VMASKMOVPS (BX)(AX*4), Y1, Y4
	VPERMPS Y4, Y5, Y4
	VADDPS Y4, Y3, Y3
	ADDQ $16, DX
	SUBQ $2, R10
	CMPQ R10, $2
	JGE col2im_two
	TESTQ R10, R10
	JZ col2im_tapdone

col2im_one:
	MOVQ (DX), AX
	VMASKMOVPS (BX)(AX*4), Y1, Y2
	VPERMPS Y2, Y5, Y2
	VADDPS Y2, Y0, Y0

col2im_tapdone:
	ADDQ $72, R12
	DECQ CX
	JNZ col2im_tap
	VADDPS Y3, Y0, Y0
	MOVQ (R13), AX
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ $8, R13
	DECQ R14
	JNZ col2im_vec
	VZEROUPPER
	RET

// func pack6x8AVX(src *float32, ss, rows int, dst *float32)
// Packs a block of rows (1 to 6) rows of 8 float32s at src (row stride ss
// elements) into a six-wide panel: dst[j*6+i] = src[i*ss+j] for j < 8,
// i < 6, with zeros for the rows i >= rows. The 8x8 transpose of
// transpose8x8AVX on the rows and two zero rows; six floats are stored
// per output row.
TEXT ·pack6x8AVX(SB), NOSPLIT, $0-32
	MOVQ src+0(FP), SI
	MOVQ ss+8(FP), DX
	SHLQ $2, DX
	MOVQ rows+16(FP), CX
	MOVQ dst+24(FP), DI
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VMOVUPS (SI), Y0
	CMPQ CX, $2
	JLT pack6_transpose
	ADDQ DX, SI
	VMOVUPS (SI), Y1
	CMPQ CX, $3
	JLT pack6_transpose
	ADDQ DX, SI
	VMOVUPS (SI), Y2
	CMPQ CX, $4
	JLT pack6_transpose
	ADDQ DX, SI
	VMOVUPS (SI), Y3
	CMPQ CX, $5
	JLT pack6_transpose
	ADDQ DX, SI
	VMOVUPS (SI), Y4
	CMPQ CX, $6
	JLT pack6_transpose
	ADDQ DX, SI
	VMOVUPS (SI), Y5

pack6_transpose:
	VUNPCKLPS Y1, Y0, Y8
	VUNPCKHPS Y1, Y0, Y9
	VUNPCKLPS Y3, Y2, Y10
	VUNPCKHPS Y3, Y2, Y11
	VUNPCKLPS Y5, Y4, Y12
	VUNPCKHPS Y5, Y4, Y13
	VUNPCKLPS Y7, Y6, Y14
	VUNPCKHPS Y7, Y6, Y15
	VSHUFPS $0x44, Y10, Y8, Y0
	VSHUFPS $0xEE, Y10, Y8, Y1
	VSHUFPS $0x44, Y11, Y9, Y2
	VSHUFPS $0xEE, Y11, Y9, Y3
	VSHUFPS $0x44, Y14, Y12, Y4
	VSHUFPS $0xEE, Y14, Y12, Y5
	VSHUFPS $0x44, Y15, Y13, Y6
	VSHUFPS $0xEE, Y15, Y13, Y7
	VPERM2F128 $0x20, Y4, Y0, Y8
	VPERM2F128 $0x20, Y5, Y1, Y9
	VPERM2F128 $0x20, Y6, Y2, Y10
	VPERM2F128 $0x20, Y7, Y3, Y11
	VPERM2F128 $0x31, Y4, Y0, Y12
	VPERM2F128 $0x31, Y5, Y1, Y13
	VPERM2F128 $0x31, Y6, Y2, Y14
	VPERM2F128 $0x31, Y7, Y3, Y15
	// Output row j is in Y(8+j); its first six lanes go to dst[j*6:].
	VMOVUPS X8, 0(DI)
	VEXTRACTF128 $1, Y8, X0
	VMOVLPS X0, 16(DI)
	VMOVUPS X9, 24(DI)
	VEXTRACTF128 $1, Y9, X0
	VMOVLPS X0, 40(DI)
	VMOVUPS X10, 48(DI)
	VEXTRACTF128 $1, Y10, X0
	VMOVLPS X0, 64(DI)
	VMOVUPS X11, 72(DI)
	VEXTRACTF128 $1, Y11, X0
	VMOVLPS X0, 88(DI)
	VMOVUPS X12, 96(DI)
	VEXTRACTF128 $1, Y12, X0
	VMOVLPS X0, 112(DI)
	VMOVUPS X13, 120(DI)
	VEXTRACTF128 $1, Y13, X0
	VMOVLPS X0, 136(DI)
	VMOVUPS X14, 144(DI)
	VEXTRACTF128 $1, Y14, X0
	VMOVLPS X0, 160(DI)
	VMOVUPS X15, 168(DI)
	VEXTRACTF128 $1, Y15, X0
	VMOVLPS X0, 184(DI)
	VZEROUPPER
	RET
