//go:build !purego

#include "textflag.h"

// func sdotAVX2(n int, x, y *float32) float32
// n is a positive multiple of 8. Four accumulators of eight lanes hide the
// latency of the fused multiply-adds; they are added at the end.
TEXT ·sdotAVX2(SB), NOSPLIT, $0-28
	MOVQ n+0(FP), CX
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	CMPQ CX, $32
	JLT sdot_tail

sdot_loop32:
	VMOVUPS (SI), Y4
	VMOVUPS 32(SI), Y5
	VMOVUPS 64(SI), Y6
	VMOVUPS 96(SI), Y7
	VFMADD231PS (DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	VFMADD231PS 64(DI), Y6, Y2
	VFMADD231PS 96(DI), Y7, Y3
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	CMPQ CX, $32
	JGE sdot_loop32

sdot_tail:
	CMPQ CX, $8
	JLT sdot_done
	VMOVUPS (SI), Y4
	VFMADD231PS (DI), Y4, Y0
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP sdot_tail

sdot_done:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func scaleAddClampAVX2(n int, y, x *float32, s, b float32, add *float32, lo, hi float32)
// y[i] = x[i]*s + b, plus add[i] when add is not nil, then bounded to
// [lo, hi]; n a positive multiple of 8; y may be x. VMAXPS and VMINPS
// return their second Go operand when the comparison fails (also for
// NaN), so a NaN stays.
TEXT ·scaleAddClampAVX2(SB), NOSPLIT, $0-48
	MOVQ n+0(FP), CX
	MOVQ y+8(FP), R8
	MOVQ x+16(FP), SI
	VBROADCASTSS s+24(FP), Y1
	VBROADCASTSS b+28(FP), Y3
	MOVQ add+32(FP), DI
	VBROADCASTSS lo+40(FP), Y2
	VBROADCASTSS hi+44(FP), Y4
	TESTQ DI, DI
	JZ scaleclamp_plain

scaleclamp_add:
	VMOVUPS (SI), Y0
	VFMADD213PS Y3, Y1, Y0
	VADDPS (DI), Y0, Y0
	VMAXPS Y0, Y2, Y0
	VMINPS Y0, Y4, Y0
	VMOVUPS Y0, (R8)
	ADDQ $32, SI
	ADDQ $32, R8
	ADDQ $32, DI
	SUBQ $8, CX
	JNZ scaleclamp_add
	VZEROUPPER
	RET

scaleclamp_plain:
	VMOVUPS (SI), Y0
	VFMADD213PS Y3, Y1, Y0
	VMAXPS Y0, Y2, Y0
	VMINPS Y0, Y4, Y0
	VMOVUPS Y0, (R8)
	ADDQ $32, SI
	ADDQ $32, R8
	SUBQ $8, CX
	JNZ scaleclamp_plain
	VZEROUPPER
	RET

// func addVecReluAVX2(n int, x, b *float32, relu bool)
// x[i] += b[i], then relu as addReluAVX2; n a positive multiple of 8.
TEXT ·addVecReluAVX2(SB), NOSPLIT, $0-25
	MOVQ n+0(FP), CX
	MOVQ x+8(FP), SI
	MOVQ b+16(FP), DI
	VXORPS Y2, Y2, Y2
	MOVBLZX relu+24(FP), DX

addvec_loop:
	VMOVUPS (SI), Y0
	VADDPS (DI), Y0, Y0
	TESTQ DX, DX
	JZ addvec_store
	VMAXPS Y0, Y2, Y0

addvec_store:
	VMOVUPS Y0, (SI)
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JNZ addvec_loop
	VZEROUPPER
	RET

// func maxPool2x2AVX2(n int, r0, r1, out *float32)
// out[i] = the first maximum, in the order r0[2i], r0[2i+1], r1[2i],
// r1[2i+1], of that 2x2 block (as the scalar loop: a later element wins
// only when it compares greater, so a NaN wins only in first place), for
// n a positive multiple of 8. VMAXPS returns its second Go operand when
// the first does not compare greater (also for NaN), which is that rule.
// VSHUFPS splits 16 inputs into even and odd elements in a lane-crossed
// order, which VPERMPD $0xD8 puts back.
TEXT ·maxPool2x2AVX2(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	MOVQ r0+8(FP), SI
	MOVQ r1+16(FP), DI
	MOVQ out+24(FP), DX

maxpool_loop:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS (DI), Y2
	VMOVUPS 32(DI), Y3
	VSHUFPS $0x88, Y1, Y0, Y4 // r0 even
	VSHUFPS $0xDD, Y1, Y0, Y5 // r0 odd
	VSHUFPS $0x88, Y3, Y2, Y6 // r1 even
	VSHUFPS $0xDD, Y3, Y2, Y7 // r1 odd
	VMAXPS Y4, Y5, Y4         // r0 odd if greater, else the running max
	VMAXPS Y4, Y6, Y4
	VMAXPS Y4, Y7, Y4
	VPERMPD $0xD8, Y4, Y4
	VMOVUPS Y4, (DX)
	ADDQ $64, SI
	ADDQ $64, DI
	ADDQ $32, DX
	SUBQ $8, CX
	JNZ maxpool_loop
	VZEROUPPER
	RET

// func gatherRunsAVX2(dst *float32, w int, src *float32, tapBase *int, ntaps int, runs *int, nruns int)
// For each of the ntaps taps r and each of the nruns runs (t, o, n) (three
// ints each, n >= 1, in increasing t): copy n float32s from
// src[tapBase[r]+o:] to dst[r*w+t:]. This is the inner loop of
// Im2colPacked and Im2colPackedT. Runs of 8 or more are copied in blocks
// of 8, the last block overlapping the one before. A shorter run is copied
// as a whole block of 8: the caller guarantees that those 8 elements lie
// in src and in the row of dst, whose extra elements are written again by
// the next run or cleared afterwards.
TEXT ·gatherRunsAVX2(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ w+8(FP), R8
	SHLQ $2, R8
	MOVQ src+16(FP), SI
	MOVQ tapBase+24(FP), R9
	MOVQ ntaps+32(FP), R10
	MOVQ runs+40(FP), R11
	MOVQ nruns+48(FP), R12

gather_tap:
	MOVQ (R9), AX
	LEAQ (SI)(AX*4), BX
	MOVQ R11, CX
	MOVQ R12, DX

gather_run:
	MOVQ 0(CX), AX
	LEAQ (DI)(AX*4), R13
	MOVQ 8(CX), AX
	LEAQ (BX)(AX*4), R14
	MOVQ 16(CX), AX
	CMPQ AX, $8
	JLT gather_short

gather_copy8:
	VMOVUPS (R14), Y0
	VMOVUPS Y0, (R13)
	ADDQ $32, R14
	ADDQ $32, R13
	SUBQ $8, AX
	CMPQ AX, $8
	JGE gather_copy8
	TESTQ AX, AX
	JZ gather_next
	LEAQ -32(R14)(AX*4), R14
	LEAQ -32(R13)(AX*4), R13

gather_short:
	VMOVUPS (R14), Y0
	VMOVUPS Y0, (R13)

gather_next:
	ADDQ $24, CX
	DECQ DX
	JNZ gather_run
	ADDQ R8, DI
	ADDQ $8, R9
	DECQ R10
	JNZ gather_tap
	VZEROUPPER
	RET

// func maxPool2x2x4AVX(r0, r1, out *float32)
// maxPool2x2AVX2 for exactly 4 outputs, on 128-bit registers (where
// VSHUFPS needs no reordering).
TEXT ·maxPool2x2x4AVX(SB), NOSPLIT, $0-24
	MOVQ r0+0(FP), SI
	MOVQ r1+8(FP), DI
	MOVQ out+16(FP), DX
	VMOVUPS (SI), X0
	VMOVUPS 16(SI), X1
	VMOVUPS (DI), X2
	VMOVUPS 16(DI), X3
	VSHUFPS $0x88, X1, X0, X4
	VSHUFPS $0xDD, X1, X0, X5
	VSHUFPS $0x88, X3, X2, X6
	VSHUFPS $0xDD, X3, X2, X7
	VMAXPS X4, X5, X4
	VMAXPS X4, X6, X4
	VMAXPS X4, X7, X4
	VMOVUPS X4, (DX)
	RET

DATA reluGradOne<>+0(SB)/4, $0x3f800000
GLOBL reluGradOne<>(SB), RODATA|NOPTR, $4

// func axpyAVX2(n int, alpha float32, x, y *float32)
// y[i] += alpha*x[i] for n a positive multiple of 32: a multiplication
// and then an addition, each rounded, as Go rounds y[i] += alpha*x[i].
TEXT ·axpyAVX2(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	VBROADCASTSS alpha+8(FP), Y8
	MOVQ x+16(FP), SI
	MOVQ y+24(FP), DI

axpy_loop:
	VMULPS (SI), Y8, Y0
	VMULPS 32(SI), Y8, Y1
	VMULPS 64(SI), Y8, Y2
	VMULPS 96(SI), Y8, Y3
	VADDPS (DI), Y0, Y0
	VADDPS 32(DI), Y1, Y1
	VADDPS 64(DI), Y2, Y2
	VADDPS 96(DI), Y3, Y3
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JNZ axpy_loop
	VZEROUPPER
	RET

// func reluGradAVX2(n int, gr, y, out *float32)
// out[i] = gr[i] * (y[i] > 0 ? 1 : 0), for n a positive multiple of 8. The
// mask is multiplied in, not and-ed, so that a NaN or infinite gr still
// gives NaN where y <= 0, as the scalar product does.
TEXT ·reluGradAVX2(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	MOVQ gr+8(FP), SI
	MOVQ y+16(FP), DI
	MOVQ out+24(FP), DX
	VXORPS Y2, Y2, Y2
	VBROADCASTSS reluGradOne<>(SB), Y3

relugrad_loop:
	VMOVUPS (DI), Y0
	VCMPPS $0x1E, Y2, Y0, Y0 // y > 0, ordered: false for NaN
	VANDPS Y3, Y0, Y0        // 1 or 0
	VMULPS (SI), Y0, Y0
	VMOVUPS Y0, (DX)
	ADDQ $32, SI
	ADDQ $32, DI
	ADDQ $32, DX
	SUBQ $8, CX
	JNZ relugrad_loop
	VZEROUPPER
	RET

// func transpose8x8AVX(src *float32, ss int, dst *float32, ds int)
// dst[j*ds+i] = src[i*ss+j] for i, j < 8: the classic unpack, shuffle,
// permute sequence on eight YMM rows.
TEXT ·transpose8x8AVX(SB), NOSPLIT, $0-32
	MOVQ src+0(FP), SI
	MOVQ ss+8(FP), DX
	SHLQ $2, DX
	MOVQ dst+16(FP), DI
	MOVQ ds+24(FP), CX
	SHLQ $2, CX
	VMOVUPS (SI), Y0
	ADDQ DX, SI
	VMOVUPS (SI), Y1
	ADDQ DX, SI
	VMOVUPS (SI), Y2
	ADDQ DX, SI
	VMOVUPS (SI), Y3
	ADDQ DX, SI
	VMOVUPS (SI), Y4
	ADDQ DX, SI
	VMOVUPS (SI), Y5
	ADDQ DX, SI
	VMOVUPS (SI), Y6
	ADDQ DX, SI
	VMOVUPS (SI), Y7
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
	VMOVUPS Y8, (DI)
	ADDQ CX, DI
	VMOVUPS Y9, (DI)
	ADDQ CX, DI
	VMOVUPS Y10, (DI)
	ADDQ CX, DI
	VMOVUPS Y11, (DI)
	ADDQ CX, DI
	VMOVUPS Y12, (DI)
	ADDQ CX, DI
	VMOVUPS Y13, (DI)
	ADDQ CX, DI
	VMOVUPS Y14, (DI)
	ADDQ CX, DI
	VMOVUPS Y15, (DI)
	VZEROUPPER
	RET

// func fillAVX2(n int, dst *float32, v float32)
// dst[i] = v for n a positive multiple of 8.
TEXT ·fillAVX2(SB), NOSPLIT, $0-20
	MOVQ n+0(FP), CX
	MOVQ dst+8(FP), DI
	VBROADCASTSS v+16(FP), Y0

fill_loop:
	VMOVUPS Y0, (DI)
	ADDQ $32, DI
	SUBQ $8, CX
	JNZ fill_loop
	VZEROUPPER
	RET

// func arithAVX2(op ArithOp, n int, out, a, b *float32)
// out[i] = a[i] op b[i] for n a positive multiple of 8; op is 0 (add),
// 1 (subtract), 2 (multiply) or 3 (divide).
TEXT ·arithAVX2(SB), NOSPLIT, $0-40
	MOVBLZX op+0(FP), AX
	MOVQ n+8(FP), CX
	MOVQ out+16(FP), DI
	MOVQ a+24(FP), SI
	MOVQ b+32(FP), DX
	CMPQ AX, $1
	JEQ arith_sub
	CMPQ AX, $2
	JEQ arith_mul
	CMPQ AX, $3
	JEQ arith_div

arith_add:
	VMOVUPS (SI), Y0
	VADDPS (DX), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, DI
	SUBQ $8, CX
	JNZ arith_add
	VZEROUPPER
	RET

arith_sub:
	VMOVUPS (SI), Y0
	VSUBPS (DX), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, DI
	SUBQ $8, CX
	JNZ arith_sub
	VZEROUPPER
	RET

arith_mul:
	VMOVUPS (SI), Y0
	VMULPS (DX), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, DI
	SUBQ $8, CX
	JNZ arith_mul
	VZEROUPPER
	RET

arith_div:
	VMOVUPS (SI), Y0
	VDIVPS (DX), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, DI
	SUBQ $8, CX
	JNZ arith_div
	VZEROUPPER
	RET

// func reluAVX2(n int, x, y *float32)
// y[i] = x[i] if x[i] is not below 0, else 0 (NaN stays NaN), for n a
// positive multiple of 8.
TEXT ·reluAVX2(SB), NOSPLIT, $0-24
	MOVQ n+0(FP), CX
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DI
	VXORPS Y2, Y2, Y2

relu_loop:
	VMOVUPS (SI), Y0
	VMAXPS Y0, Y2, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JNZ relu_loop
	VZEROUPPER
	RET

// func maxPool2x2BackAVX2(n int, r0, r1, gout, gi0, gi1 *float32)
// The gradient of maxPool2x2AVX2 for n outputs (a positive multiple of 8):
// gout[i] is added to gi0 or gi1 at the first maximum of the 2x2 block i
// of the rows r0 and r1, in the scalar loop's order. The block's choice is
// made with the same comparisons as the forward (ordered, so that NaN
// never compares greater); the other three positions get 0 added.
TEXT ·maxPool2x2BackAVX2(SB), NOSPLIT, $0-48
	MOVQ n+0(FP), CX
	MOVQ r0+8(FP), SI
	MOVQ r1+16(FP), DI
	MOVQ gout+24(FP), DX
	MOVQ gi0+32(FP), R8
	MOVQ gi1+40(FP), R9

maxpoolback_loop:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS (DI), Y2
	VMOVUPS 32(DI), Y3
	VSHUFPS $0x88, Y1, Y0, Y4  // a: r0 even
	VSHUFPS $0xDD, Y1, Y0, Y5  // b: r0 odd
	VSHUFPS $0x88, Y3, Y2, Y6  // c: r1 even
	VSHUFPS $0xDD, Y3, Y2, Y7  // d: r1 odd
	VMOVUPS (DX), Y8
	VPERMPD $0xD8, Y8, Y8      // gout in the shuffled order
	VCMPPS $0x1E, Y4, Y5, Y9   // b > a
	VMAXPS Y4, Y5, Y10         // b if b > a, else a
	VCMPPS $0x1E, Y10, Y6, Y11 // c > max so far
	VMAXPS Y10, Y6, Y10
	VCMPPS $0x1E, Y10, Y7, Y12 // d > max so far
	VANDPS Y8, Y12, Y13        // to d
	VANDNPS Y8, Y12, Y8        // not to d
	VANDPS Y8, Y11, Y14        // to c
	VANDNPS Y8, Y11, Y8
	VANDPS Y8, Y9, Y15         // to b
	VANDNPS Y8, Y9, Y8         // to a
	VUNPCKLPS Y15, Y8, Y0      // (a, b) pairs: r0[0:8]
	VUNPCKHPS Y15, Y8, Y1      // r0[8:16]
	VUNPCKLPS Y13, Y14, Y2     // (c, d) pairs: r1[0:8]
	VUNPCKHPS Y13, Y14, Y3     // r1[8:16]
	VADDPS (R8), Y0, Y0
	VADDPS 32(R8), Y1, Y1
	VMOVUPS Y0, (R8)
	VMOVUPS Y1, 32(R8)
	VADDPS (R9), Y2, Y2
	VADDPS 32(R9), Y3, Y3
	VMOVUPS Y2, (R9)
	VMOVUPS Y3, 32(R9)
	ADDQ $64, SI
	ADDQ $64, DI
	ADDQ $32, DX
	ADDQ $64, R8
	ADDQ $64, R9
	SUBQ $8, CX
	JNZ maxpoolback_loop
	VZEROUPPER
	RET

// func maxRows3AVX2(n int, r0, r1, r2, out *float32)
// out[i] = the maximum of r0[i], r1[i] and r2[i] that are not NaN (-Inf
// when all are), for n a positive multiple of 8: VMAXPS keeps its second
// Go operand, the running maximum, unless the first compares greater.
TEXT ·maxRows3AVX2(SB), NOSPLIT, $0-40
	MOVQ n+0(FP), CX
	MOVQ r0+8(FP), SI
	MOVQ r1+16(FP), DI
	MOVQ r2+24(FP), R8
	MOVQ out+32(FP), DX
	MOVL $0xff800000, AX // -Inf
	VMOVD AX, X3
	VBROADCASTSS X3, Y3

maxrows3_loop:
	VMOVUPS (SI), Y0
	VMOVUPS (DI), Y1
	VMOVUPS (R8), Y2
	VMAXPS Y3, Y0, Y0 // r0 if greater than -Inf (not NaN), else -Inf
	VMAXPS Y0, Y1, Y0
	VMAXPS Y0, Y2, Y0
	VMOVUPS Y0, (DX)
	ADDQ $32, SI
	ADDQ $32, DI
	ADDQ $32, R8
	ADDQ $32, DX
	SUBQ $8, CX
	JNZ maxrows3_loop
	VZEROUPPER
	RET

// func maxStride2x3AVX2(n int, src, first, out *float32)
// out[i] = first[2i] when it is NaN, else the maximum of src[2i],
// src[2i+1] and src[2i+2] that are not NaN, for n a positive multiple of
// 8 (it reads src[0] to src[2n+1] and first[0] to first[2n-1]). VSHUFPS
// splits 16 elements into even and odd ones in a lane-crossed order,
// which VPERMPD $0xD8 puts back at the end.
TEXT ·maxStride2x3AVX2(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	MOVQ src+8(FP), SI
	MOVQ first+16(FP), DI
	MOVQ out+24(FP), DX
	MOVL $0xff800000, AX // -Inf
	VMOVD AX, X8
	VBROADCASTSS X8, Y8

maxstride_loop:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS 8(SI), Y2
	VMOVUPS 40(SI), Y3
	VSHUFPS $0x88, Y1, Y0, Y4 // src[2i]
	VSHUFPS $0xDD, Y1, Y0, Y5 // src[2i+1]
	VSHUFPS $0x88, Y3, Y2, Y6 // src[2i+2]
	VMAXPS Y8, Y4, Y4
	VMAXPS Y4, Y5, Y4
	VMAXPS Y4, Y6, Y4
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VSHUFPS $0x88, Y1, Y0, Y7 // first[2i]
	VCMPPS $3, Y7, Y7, Y0     // unordered: NaN
	VBLENDVPS Y0, Y7, Y4, Y4
	VPERMPD $0xD8, Y4, Y4
	VMOVUPS Y4, (DX)
	ADDQ $64, SI
	ADDQ $64, DI
	ADDQ $32, DX
	SUBQ $8, CX
	JNZ maxstride_loop
	VZEROUPPER
	RET
