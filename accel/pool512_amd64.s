//go:build !purego

#include "textflag.h"

// PREFETCHROWS asks the cache for the first four lines of the row eight
// rows (DX bytes each) below r.
#define PREFETCHROWS(r) \
	PREFETCHT0 (r)(DX*8); PREFETCHT0 64(r)(DX*8); PREFETCHT0 128(r)(DX*8); PREFETCHT0 192(r)(DX*8)

// POOLTAP compares the sixteen values at addr, a window tap's, with the
// best so far (Z8, their plane indices in Z9): lanes where they are
// larger (not where either is NaN) take them and their indices, the
// tap's columns (cols) plus its row's offset (row).
#define POOLTAP(addr, cols, row) \
	VMOVUPS addr, Z10; VPADDD row, cols, Z11; VCMPPS $0x1e, Z8, Z10, K1; \
	VMOVAPS Z10, K1, Z8; VMOVDQA32 Z11, K1, Z9

// maxPoolBack3x3s2AVX512 adds, for n outputs of one row of a 3x3 max
// pooling at stride 2, each output's gradient (grad[j]) to the gradient
// of its window's first largest element (gi, the plane's). Input row i
// of the windows (at plane offset r0, r1 or r2) is given split, its
// columns clamped to the row: e_i[j] is column 2j-pad and o_i[j] column
// 2j+1-pad, each clamped to [0, w-1]; both hold n+16 values. Sixteen
// outputs at a time take the taps in row-major order, the first as the
// best; idx (sixteen int32) holds their indices for the scalar adds,
// which go one after another since windows overlap. lanes is 0, 2, ...
// 30 in int32.
//
// func maxPoolBack3x3s2AVX512(n int, e0, o0, e1, o1, e2, o2 *float32, r0, r1, r2, pad, w int, grad, gi *float32, idx, lanes *int32)
TEXT ·maxPoolBack3x3s2AVX512(SB), NOSPLIT, $0-128
	MOVQ n+0(FP), CX
	MOVQ e0+8(FP), SI
	MOVQ o0+16(FP), DI
	MOVQ e1+24(FP), R9
	MOVQ o1+32(FP), R10
	MOVQ e2+40(FP), R11
	MOVQ o2+48(FP), R12
	VPBROADCASTD r0+56(FP), Z24
	VPBROADCASTD r1+64(FP), Z25
	VPBROADCASTD r2+72(FP), Z26
	MOVQ pad+80(FP), AX
	NEGQ AX
	VPBROADCASTD AX, Z29
	MOVQ lanes+120(FP), AX
	VPADDD (AX), Z29, Z29 // 2j - pad for the block's outputs j
	MOVQ w+88(FP), AX
	DECQ AX
	VPBROADCASTD AX, Z27 // the last column
	VPXORD Z28, Z28, Z28
	MOVL $1, AX
	VPBROADCASTD AX, Z23
	MOVL $32, AX
	VPBROADCASTD AX, Z22
	MOVQ grad+96(FP), BX
	MOVQ gi+104(FP), DX
	MOVQ idx+112(FP), R8

maxPoolBack_block:
	// The columns of the window's three taps, clamped to the row.
	VPMAXSD Z28, Z29, Z0
	VPMINSD Z27, Z0, Z0
	VPADDD Z23, Z29, Z1
	VPADDD Z23, Z1, Z2
	VPMAXSD Z28, Z1, Z1
	VPMINSD Z27, Z1, Z1
	VPMAXSD Z28, Z2, Z2
	VPMINSD Z27, Z2, Z2
	VMOVUPS (SI), Z8
	VPADDD Z24, Z0, Z9
	POOLTAP((DI), Z1, Z24)
	POOLTAP(4(SI), Z2, Z24)
	POOLTAP((R9), Z0, Z25)
	POOLTAP((R10), Z1, Z25)
	POOLTAP(4(R9), Z2, Z25)
	POOLTAP((R11), Z0, Z26)
	POOLTAP((R12), Z1, Z26)
	POOLTAP(4(R11), Z2, Z26)
	VMOVDQU32 Z9, (R8)
	MOVQ CX, R13
	CMPQ R13, $16
	JLE maxPoolBack_adds
	MOVQ $16, R13

maxPoolBack_adds:
	XORQ R14, R14

maxPoolBack_add:
	MOVLQSX (R8)(R14*4), AX
	VMOVSS (DX)(AX*4), X0
	VADDSS (BX)(R14*4), X0, X0
	VMOVSS X0, (DX)(AX*4)
	INCQ R14
	CMPQ R14, R13
	JLT maxPoolBack_add
	ADDQ $64, SI
	ADDQ $64, DI
	ADDQ $64, R9
	ADDQ $64, R10
	ADDQ $64, R11
	ADDQ $64, R12
	ADDQ $64, BX
	VPADDD Z22, Z29, Z29
	SUBQ $16, CX
	JGT maxPoolBack_block
	VZEROUPPER
	RET

// BLOCKMASKS loads the masks of a block of n = min(R11, 16) windows
// from maxPoolConsts' blocks[n] (at R9): K5 the windows, K3 and K4 their
// 2n columns; it leaves CX at the row's offset from the first.
#define BLOCKMASKS \
	MOVQ $16, CX; CMPQ R11, CX; CMOVQLT R11, CX; SHLQ $4, CX; \
	KMOVW 832(R9)(CX*1), K5; KMOVW 834(R9)(CX*1), K3; KMOVW 836(R9)(CX*1), K4

// TAPK compares a window tap's sixteen values v with the best so far
// (Z21): lanes where v is larger (neither being NaN) take v, and in Z22
// the tap's code, the vector at code bytes into the constants (R9).
#define TAPK(v, code) VCMPPS $0x1e, Z21, v, K1; VMOVAPS v, K1, Z21; VMOVDQU32 code(R9), K1, Z22

// PICK sets dst to the gradients (Z23) of the lanes whose first maximum
// is the tap of the given code, zero elsewhere.
#define PICK(code, dst) VPCMPEQD code(R9), Z22, K1; VMOVAPS.Z Z23, K1, dst

// ROWOUT writes one input row's gradient over the block's 32 columns
// from column 32b-1 (at g, R10 = 128b bytes; masks K6 and K7): each even
// column 2w takes ec[w], the gradient of window w's middle tap; each odd
// column 2w-1 takes sc[w-1], window w-1's right tap (lane 0 from scarry,
// the last block's), then pc[w], window w's left tap, added in the
// windows' order onto lo and hi (the row's gradient so far, or zero).
#define ROWOUT(pc, ec, sc, scarry, g, lo, hi) \
	VALIGND $15, scarry, sc, Z24; VMOVAPS sc, scarry; \
	VMOVDQU32 Z2, Z25; VPERMI2PS ec, Z24, Z25; \
	VMOVDQU32 Z3, Z26; VPERMI2PS ec, Z24, Z26; \
	VMOVDQU32 Z2, Z27; VPERMI2PS Z28, pc, Z27; \
	VMOVDQU32 Z3, Z24; VPERMI2PS Z28, pc, Z24; \
	VADDPS Z25, lo, Z25; VADDPS Z27, Z25, Z25; VMOVUPS Z25, K6, -4(g)(R10*1); \
	VADDPS Z26, hi, Z26; VADDPS Z24, Z26, Z26; VMOVUPS Z26, K7, 60(g)(R10*1)

// SPLITROW loads 32 columns of an input row (at r, R10 bytes on; masks
// K3 and K4) and splits them into its even (e) and odd (o) columns.
#define SPLITROW(r, e, o) \
	VMOVUPS.Z (r)(R10*1), K3, Z24; VMOVUPS.Z 64(r)(R10*1), K4, Z25; \
	VMOVDQU32 Z0, e; VPERMI2PS Z25, Z24, e; VMOVDQU32 Z1, o; VPERMI2PS Z25, Z24, o

// func maxPoolBack3x3s2P1AVX512(src, gout, gi *float32, inW, outH, outW int, c *maxPoolConsts)
//
// The gradient of a 3x3 max pooling at stride 2 with padding 1 of one
// plane of 2*outH rows of inW = 2*outW columns, written whole to gi: for
// each output row, blocks of sixteen windows (their 32 columns, one
// column before them) find each window's first largest tap, as
// maxPoolBack3x3s2AVX512 does, and add the windows' gradients into the
// rows of gi in the windows' order, each row set, not added to, where it
// first appears. The window clipped at the top takes row 0 for its first
// row, the one at the left column 0 for its first column, which changes
// neither maximum nor sum: a clipped tap and the one beside it are the
// same element.
TEXT ·maxPoolBack3x3s2P1AVX512(SB), NOSPLIT, $0-56
	MOVQ src+0(FP), SI
	MOVQ gout+8(FP), R8
	MOVQ gi+16(FP), DI
	MOVQ inW+24(FP), DX
	SHLQ $2, DX
	MOVQ outH+32(FP), R14
	MOVQ c+48(FP), R9
	VMOVDQU32 576(R9), Z0
	VMOVDQU32 640(R9), Z1
	VMOVDQU32 704(R9), Z2
	VMOVDQU32 768(R9), Z3
	VPXORD Z28, Z28, Z28
	MOVL $1, AX
	KMOVW AX, K2
	MOVQ SI, R15 // the windows' first row: row 0 for the first output row

maxBackP1_row:
	LEAQ (SI)(DX*1), R12 // the windows' last row
	MOVQ DI, AX
	SUBQ DX, AX          // gi's row 2oh-1
	LEAQ (DI)(DX*1), BX  // gi's row 2oh+1
	// The rows four output rows down, of src and of gi, are asked for
	// (their first 64 columns): a network's planes at a batch of 16 lie
	// in memory, not in the cache, where the prefetchers follow rows
	// poorly. The gradient of 1024 planes of 56x56 took 0.33 of its time
	// (the forward 0.62), ResNet-18's training step at batch 16 0.96.
	PREFETCHROWS(SI)
	PREFETCHROWS(R12)
	PREFETCHROWS(DI)
	PREFETCHROWS(BX)
	MOVQ R8, R13
	XORQ R10, R10
	MOVQ outW+40(FP), R11
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11

maxBackP1_block:
	// The masks of the block's n = min(R11, 16) windows (maxPoolConsts'
	// blocks[n]): K5 their gradients, K3 and K4 their 2n columns, K6 and
	// K7 the 2n+1 columns written from column 32b-1.
	BLOCKMASKS
	KMOVW 838(R9)(CX*1), K6
	KMOVW 840(R9)(CX*1), K7
	TESTQ R10, R10
	JNZ maxBackP1_split
	KANDNW K6, K2, K6 // no column -1

maxBackP1_split:
	// The three rows' columns: even in Z12..Z14, odd in Z15..Z17, and
	// each window's first column (the odd one before it) in Z18..Z20,
	// from the last block's odd columns (Z6..Z8); column -1 is column 0.
	SPLITROW(R15, Z12, Z15)
	SPLITROW(SI, Z13, Z16)
	SPLITROW(R12, Z14, Z17)
	TESTQ R10, R10
	JNZ maxBackP1_prev
	VPBROADCASTD X12, Z6
	VPBROADCASTD X13, Z7
	VPBROADCASTD X14, Z8

maxBackP1_prev:
	VALIGND $15, Z6, Z15, Z18
	VALIGND $15, Z7, Z16, Z19
	VALIGND $15, Z8, Z17, Z20
	VMOVAPS Z15, Z6
	VMOVAPS Z16, Z7
	VMOVAPS Z17, Z8

	// Each window's first largest tap, in row-major order: its code in Z22.
	VMOVAPS Z18, Z21
	VPXORD Z22, Z22, Z22
	TAPK(Z12, 64)
	TAPK(Z15, 128)
	TAPK(Z19, 192)
	TAPK(Z13, 256)
	TAPK(Z16, 320)
	TAPK(Z20, 384)
	TAPK(Z14, 448)
	TAPK(Z17, 512)

	// The gradients by tap: left in Z18..Z20, middle in Z12..Z14, right
	// in Z15..Z17, one register per window row.
	VMOVUPS.Z (R13), K5, Z23
	PICK(0, Z18)
	PICK(64, Z12)
	PICK(128, Z15)
	PICK(192, Z19)
	PICK(256, Z13)
	PICK(320, Z16)
	PICK(384, Z20)
	PICK(448, Z14)
	PICK(512, Z17)
	CMPQ R14, outH+32(FP)
	JNE maxBackP1_inner

	// The first output row: its windows' first row is row 0 too.
	VADDPS Z18, Z19, Z19
	VADDPS Z12, Z13, Z13
	VADDPS Z15, Z16, Z16
	TESTQ R10, R10
	JNZ maxBackP1_top
	VADDPS Z19, Z13, K2, Z13 // column -1 is column 0
	VADDPS Z20, Z14, K2, Z14

maxBackP1_top:
	ROWOUT(Z19, Z13, Z16, Z10, DI, Z28, Z28)
	ROWOUT(Z20, Z14, Z17, Z11, BX, Z28, Z28)
	JMP maxBackP1_next

maxBackP1_inner:
	TESTQ R10, R10
	JNZ maxBackP1_rows
	VADDPS Z18, Z12, K2, Z12 // column -1 is column 0
	VADDPS Z19, Z13, K2, Z13
	VADDPS Z20, Z14, K2, Z14

maxBackP1_rows:
	VMOVUPS.Z -4(AX)(R10*1), K6, Z29
	VMOVUPS.Z 60(AX)(R10*1), K7, Z30
	ROWOUT(Z18, Z12, Z15, Z9, AX, Z29, Z30)
	ROWOUT(Z19, Z13, Z16, Z10, DI, Z28, Z28)
	ROWOUT(Z20, Z14, Z17, Z11, BX, Z28, Z28)

maxBackP1_next:
	ADDQ $128, R10
	ADDQ $64, R13
	SUBQ $16, R11
	JGE maxBackP1_block

	// The next output row: two input rows down.
	LEAQ (SI)(DX*1), R15
	LEAQ (SI)(DX*2), SI
	LEAQ (DI)(DX*2), DI
	MOVQ outW+40(FP), CX
	LEAQ (R8)(CX*4), R8
	DECQ R14
	JNZ maxBackP1_row
	VZEROUPPER
	RET

// COLMAX loads 32 columns of the three rows (at R15, SI and R12, R10
// bytes on; masks K3 and K4) and leaves in lo and hi each column's
// largest value that is not NaN (-Inf, Z5, where all are), and row 0's
// columns in Z24 and Z25.
#define COLMAX(lo, hi) \
	VMOVUPS.Z (R15)(R10*1), K3, Z24; VMOVUPS.Z 64(R15)(R10*1), K4, Z25; \
	VMAXPS Z5, Z24, lo; VMAXPS Z5, Z25, hi; \
	VMOVUPS.Z (SI)(R10*1), K3, Z26; VMOVUPS.Z 64(SI)(R10*1), K4, Z27; \
	VMAXPS lo, Z26, lo; VMAXPS hi, Z27, hi; \
	VMOVUPS.Z (R12)(R10*1), K3, Z26; VMOVUPS.Z 64(R12)(R10*1), K4, Z27; \
	VMAXPS lo, Z26, lo; VMAXPS hi, Z27, hi

// func maxPool3x3s2P1AVX512(src, dst *float32, inW, outH, outW int, c *maxPoolConsts)
//
// A 3x3 max pooling at stride 2 with padding 1 of one plane of 2*outH
// rows of inW = 2*outW columns into dst, sixteen windows at a time: the
// largest of each column's three values that are not NaN, then of each
// window's three columns, or NaN where the window's first element is
// (the value of the first maximum in row-major order). The window
// clipped at the top takes row 0 for its first row, the one at the left
// column 0 for its first column.
TEXT ·maxPool3x3s2P1AVX512(SB), NOSPLIT, $0-48
	MOVQ src+0(FP), SI
	MOVQ dst+8(FP), R8
	MOVQ inW+16(FP), DX
	SHLQ $2, DX
	MOVQ outH+24(FP), R14
	MOVQ c+40(FP), R9
	VMOVDQU32 576(R9), Z0
	VMOVDQU32 640(R9), Z1
	MOVL $0xff800000, AX
	VPBROADCASTD AX, Z5 // -Inf
	MOVQ SI, R15        // the windows' first row: row 0 for the first output row

maxP1_row:
	LEAQ (SI)(DX*1), R12 // the windows' last row
	PREFETCHROWS(SI) // as the gradient does
	PREFETCHROWS(R12)
	MOVQ R8, R13
	XORQ R10, R10
	MOVQ outW+32(FP), R11

maxP1_block:
	// The masks of the block's n = min(R11, 16) windows (maxPoolConsts'
	// blocks[n]): K5 theirs, K3 and K4 their 2n columns.
	BLOCKMASKS
	COLMAX(Z12, Z13)
	// The windows' middle (even) and last (odd) columns of the maxima in
	// Z14 and Z15, row 0's odd columns in Z16; their first columns, the
	// odd ones before, from the last block's (Z6 and Z7), column -1
	// being column 0.
	VMOVDQU32 Z0, Z14
	VPERMI2PS Z13, Z12, Z14
	VMOVDQU32 Z1, Z15
	VPERMI2PS Z13, Z12, Z15
	VMOVDQU32 Z1, Z16
	VPERMI2PS Z25, Z24, Z16
	TESTQ R10, R10
	JNZ maxP1_prev
	VPBROADCASTD X12, Z6
	VPBROADCASTD X24, Z7

maxP1_prev:
	VALIGND $15, Z6, Z15, Z17
	VALIGND $15, Z7, Z16, Z18
	VMOVAPS Z15, Z6
	VMOVAPS Z16, Z7
	VMAXPS Z17, Z14, Z17
	VMAXPS Z17, Z15, Z17
	VCMPPS $3, Z18, Z18, K1 // the window's first element is NaN
	VMOVAPS Z18, K1, Z17
	VMOVUPS Z17, K5, (R13)

	ADDQ $128, R10
	ADDQ $64, R13
	SUBQ $16, R11
	JGT maxP1_block

	// The next output row: two input rows down.
	LEAQ (SI)(DX*1), R15
	LEAQ (SI)(DX*2), SI
	MOVQ outW+32(FP), CX
	LEAQ (R8)(CX*4), R8
	DECQ R14
	JNZ maxP1_row
	VZEROUPPER
	RET
