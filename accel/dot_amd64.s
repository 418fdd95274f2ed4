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

// func addReluAVX2(n int, x *float32, b float32, relu bool)
// x[i] += b, then with relu negative values become 0 (NaN stays NaN), for
// n a positive multiple of 8.
TEXT ·addReluAVX2(SB), NOSPLIT, $0-21
	MOVQ n+0(FP), CX
	MOVQ x+8(FP), SI
	VBROADCASTSS b+16(FP), Y1
	VXORPS Y2, Y2, Y2
	MOVBLZX relu+20(FP), DX
	TESTQ DX, DX
	JZ addrelu_plain

addrelu_loop:
	VADDPS (SI), Y1, Y0
	VMAXPS Y0, Y2, Y0
	VMOVUPS Y0, (SI)
	ADDQ $32, SI
	SUBQ $8, CX
	JNZ addrelu_loop
	VZEROUPPER
	RET

addrelu_plain:
	VADDPS (SI), Y1, Y0
	VMOVUPS Y0, (SI)
	ADDQ $32, SI
	SUBQ $8, CX
	JNZ addrelu_plain
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
