//go:build !purego

#include "textflag.h"

// HSUM64 leaves the sum of Z0's eight doubles in X0 (Z1 is scratch).
#define HSUM64 \
	VEXTRACTF64X4 $1, Z0, Y1; VADDPD Y1, Y0, Y0; VEXTRACTF128 $1, Y0, X1; VADDPD X1, X0, X0; \
	VPERMILPD $1, X0, X1; VADDSD X1, X0, X0

// shiftedSums64AVX512 returns the sums of x[i]-k and of (x[i]-k)² over
// x[0:n] in float64, n a positive multiple of 32: four accumulators of
// eight doubles for each.
//
// func shiftedSums64AVX512(n int, x *float32, k float64) (s1, s2 float64)
TEXT ·shiftedSums64AVX512(SB), NOSPLIT, $0-40
	MOVQ n+0(FP), CX
	MOVQ x+8(FP), SI
	VBROADCASTSD k+16(FP), Z8
	VXORPD Z0, Z0, Z0
	VXORPD Z1, Z1, Z1
	VXORPD Z2, Z2, Z2
	VXORPD Z3, Z3, Z3
	VXORPD Z10, Z10, Z10
	VXORPD Z11, Z11, Z11
	VXORPD Z12, Z12, Z12
	VXORPD Z13, Z13, Z13

shiftedSums64AVX512_loop:
	VCVTPS2PD (SI), Z4
	VCVTPS2PD 32(SI), Z5
	VCVTPS2PD 64(SI), Z6
	VCVTPS2PD 96(SI), Z7
	VSUBPD Z8, Z4, Z4
	VSUBPD Z8, Z5, Z5
	VSUBPD Z8, Z6, Z6
	VSUBPD Z8, Z7, Z7
	VADDPD Z4, Z10, Z10
	VADDPD Z5, Z11, Z11
	VADDPD Z6, Z12, Z12
	VADDPD Z7, Z13, Z13
	VFMADD231PD Z4, Z4, Z0
	VFMADD231PD Z5, Z5, Z1
	VFMADD231PD Z6, Z6, Z2
	VFMADD231PD Z7, Z7, Z3
	ADDQ $128, SI
	SUBQ $32, CX
	JGT shiftedSums64AVX512_loop
	VADDPD Z1, Z0, Z0
	VADDPD Z3, Z2, Z2
	VADDPD Z2, Z0, Z0
	HSUM64
	VMOVSD X0, s2+32(FP)
	VADDPD Z11, Z10, Z0
	VADDPD Z13, Z12, Z2
	VADDPD Z2, Z0, Z0
	HSUM64
	VMOVSD X0, s1+24(FP)
	VZEROUPPER
	RET

// shiftScaleAVX512 sets y[i] = (x[i]-m)*s + b for i below n (positive),
// sixteen at a time, the last under a mask.
//
// func shiftScaleAVX512(n int, x, y *float32, m, s, b float32)
TEXT ·shiftScaleAVX512(SB), NOSPLIT, $0-36
	MOVQ n+0(FP), CX
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DI
	VBROADCASTSS m+24(FP), Z8
	VBROADCASTSS s+28(FP), Z9
	VBROADCASTSS b+32(FP), Z10

shiftScaleAVX512_loop:
	CMPQ CX, $16
	JLT shiftScaleAVX512_tail
	VMOVUPS (SI), Z0
	VSUBPS Z8, Z0, Z0
	VFMADD213PS Z10, Z9, Z0
	VMOVUPS Z0, (DI)
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $16, CX
	JNZ shiftScaleAVX512_loop
	VZEROUPPER
	RET

shiftScaleAVX512_tail:
	MOVQ $1, AX
	SHLQ CX, AX
	DECQ AX
	KMOVW AX, K1
	VMOVUPS.Z (SI), K1, Z0
	VSUBPS Z8, Z0, Z0
	VFMADD213PS Z10, Z9, Z0
	VMOVUPS Z0, K1, (DI)
	VZEROUPPER
	RET

// gradStats64AVX512 returns, over i below n (a positive multiple of 16),
// the sums of gy[i] and of gy[i]*(x[i]-mu), in float64.
//
// func gradStats64AVX512(n int, gy, x *float32, mu float64) (sg, sgx float64)
TEXT ·gradStats64AVX512(SB), NOSPLIT, $0-48
	MOVQ n+0(FP), CX
	MOVQ gy+8(FP), SI
	MOVQ x+16(FP), DI
	VBROADCASTSD mu+24(FP), Z8
	VXORPD Z0, Z0, Z0
	VXORPD Z1, Z1, Z1
	VXORPD Z2, Z2, Z2
	VXORPD Z3, Z3, Z3

gradStats64AVX512_loop:
	VCVTPS2PD (SI), Z4
	VCVTPS2PD 32(SI), Z5
	VCVTPS2PD (DI), Z6
	VCVTPS2PD 32(DI), Z7
	VSUBPD Z8, Z6, Z6
	VSUBPD Z8, Z7, Z7
	VADDPD Z4, Z0, Z0
	VADDPD Z5, Z1, Z1
	VFMADD231PD Z4, Z6, Z2
	VFMADD231PD Z5, Z7, Z3
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $16, CX
	JGT gradStats64AVX512_loop
	VADDPD Z3, Z2, Z2
	VADDPD Z1, Z0, Z0
	HSUM64
	VMOVSD X0, sg+32(FP)
	VMOVAPD Z2, Z0
	HSUM64
	VMOVSD X0, sgx+40(FP)
	VZEROUPPER
	RET

// gradCombineAVX512 sets dx[i] = a*gy[i] + b*(x[i]-m) + c for i below n
// (positive), sixteen at a time, the last under a mask.
//
// func gradCombineAVX512(n int, dx, gy, x *float32, a, b, m, c float32)
TEXT ·gradCombineAVX512(SB), NOSPLIT, $0-48
	MOVQ n+0(FP), CX
	MOVQ dx+8(FP), DI
	MOVQ gy+16(FP), SI
	MOVQ x+24(FP), DX
	VBROADCASTSS a+32(FP), Z8
	VBROADCASTSS b+36(FP), Z9
	VBROADCASTSS m+40(FP), Z10
	VBROADCASTSS c+44(FP), Z11

gradCombineAVX512_loop:
	CMPQ CX, $16
	JLT gradCombineAVX512_tail
	VMOVUPS (DX), Z0
	VSUBPS Z10, Z0, Z0
	VMULPS Z9, Z0, Z0
	VFMADD231PS (SI), Z8, Z0
	VADDPS Z11, Z0, Z0
	VMOVUPS Z0, (DI)
	ADDQ $64, SI
	ADDQ $64, DI
	ADDQ $64, DX
	SUBQ $16, CX
	JNZ gradCombineAVX512_loop
	VZEROUPPER
	RET

gradCombineAVX512_tail:
	MOVQ $1, AX
	SHLQ CX, AX
	DECQ AX
	KMOVW AX, K1
	VMOVUPS.Z (DX), K1, Z0
	VMOVUPS.Z (SI), K1, Z1
	VSUBPS Z10, Z0, Z0
	VMULPS Z9, Z0, Z0
	VFMADD231PS Z1, Z8, Z0
	VADDPS Z11, Z0, Z0
	VMOVUPS Z0, K1, (DI)
	VZEROUPPER
	RET

// func bnFoldAVX512(n int, gamma, beta, mean, variance, bias *float32, eps float32, scale, shift *float32)
//
// bnFoldAVX512 sets scale[i] = gamma[i] / sqrt(variance[i] + eps) (1
// over it where gamma is nil) and shift[i] = beta[i] - mean[i]*scale[i],
// plus bias[i]*scale[i] where bias is not nil, for i below n (positive),
// sixteen at a time, the last n%16 under a mask.
TEXT ·bnFoldAVX512(SB), NOSPLIT, $0-72
	MOVQ n+0(FP), CX
	MOVQ gamma+8(FP), R8
	MOVQ beta+16(FP), R9
	MOVQ mean+24(FP), R10
	MOVQ variance+32(FP), R11
	MOVQ bias+40(FP), R12
	VBROADCASTSS eps+48(FP), Z30
	MOVQ scale+56(FP), DI
	MOVQ shift+64(FP), SI
	MOVL $0x3f800000, AX
	VPBROADCASTD AX, Z31 // 1
	XORQ DX, DX          // the offset, in bytes

bnfold_loop:
	MOVQ $0xffff, AX
	CMPQ CX, $16
	JGE bnfold_mask
	MOVQ $1, AX
	SHLQ CX, AX
	DECQ AX

bnfold_mask:
	KMOVW AX, K1
	VMOVUPS.Z (R11)(DX*1), K1, Z0
	VADDPS Z30, Z0, Z0
	VSQRTPS Z0, Z0
	VDIVPS Z0, Z31, Z1
	TESTQ R8, R8
	JZ bnfold_shift
	VMOVUPS.Z (R8)(DX*1), K1, Z4
	VMULPS Z4, Z1, Z1

bnfold_shift:
	VMOVUPS.Z (R9)(DX*1), K1, Z2
	VMOVUPS.Z (R10)(DX*1), K1, Z3
	VFNMADD231PS Z3, Z1, Z2
	TESTQ R12, R12
	JZ bnfold_store
	VMOVUPS.Z (R12)(DX*1), K1, Z4
	VFMADD231PS Z4, Z1, Z2

bnfold_store:
	VMOVUPS Z1, K1, (DI)(DX*1)
	VMOVUPS Z2, K1, (SI)(DX*1)
	ADDQ $64, DX
	SUBQ $16, CX
	JG bnfold_loop
	VZEROUPPER
	RET
