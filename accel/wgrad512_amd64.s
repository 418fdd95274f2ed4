//go:build !purego

#include "textflag.h"

// func wgrad6AVX512(ntaps int, offs *int, x *float32, segs *wgradSeg, nsegs int, gy *float32, fs int, acc *float32)
// The direct weight gradient of one image for six filters. For each tap t
// (an element offset offs[t] into the image x) and each filter f < 6 (the
// rows of gy at f*fs elements apart), it adds into the 16 lanes
// acc[(t*6+f)*16:] the products gy[f*fs+s.gyoff+l] * x[offs[t]+s.xoff+l]
// over every segment s and every lane l it fills. A segment (40 bytes:
// xoff, gyoff, mask, xoff2, mask2) is one or two output rows side by side
// in the lanes: lanes in mask read the image from xoff, lanes in mask2
// from xoff2 (both counted from lane 0), and the gradient rows are read
// from gyoff for the lanes of either. Lanes outside the masks are not
// read. ntaps is a positive multiple of 4 and nsegs is positive.
//
// Four taps are done at a time: per segment the six filters' gradient
// rows are loaded once (Z24-Z29) and multiplied by each tap's image row
// (Z30) into 24 accumulators (Z0-Z23, tap-major), so that loads stay
// fewer than multiply-adds.
TEXT ·wgrad6AVX512(SB), NOSPLIT, $0-64
	MOVQ ntaps+0(FP), CX
	SHRQ $2, CX
	MOVQ offs+8(FP), SI
	MOVQ gy+40(FP), R8
	MOVQ fs+48(FP), R9
	SHLQ $2, R9              // bytes between filter rows
	MOVQ acc+56(FP), DX

wgrad_block:
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15
	VPXORD Z16, Z16, Z16
	VPXORD Z17, Z17, Z17
	VPXORD Z18, Z18, Z18
	VPXORD Z19, Z19, Z19
	VPXORD Z20, Z20, Z20
	VPXORD Z21, Z21, Z21
	VPXORD Z22, Z22, Z22
	VPXORD Z23, Z23, Z23
	MOVQ x+16(FP), R11
	MOVQ 0(SI), AX
	LEAQ (R11)(AX*4), AX     // the image at tap 0 of the block
	MOVQ 8(SI), DI
	LEAQ (R11)(DI*4), DI
	MOVQ 16(SI), R10
	LEAQ (R11)(R10*4), R10
	MOVQ 24(SI), R12
	LEAQ (R11)(R12*4), R12
	MOVQ segs+24(FP), BX
	MOVQ nsegs+32(FP), R14

wgrad_seg:
	MOVQ 16(BX), R13
	KMOVW R13, K1            // the lanes of the first row
	MOVQ 32(BX), R13
	KMOVW R13, K2            // the lanes of the second row, if any
	KORW K1, K2, K3          // every lane of the segment
	MOVQ 8(BX), R13
	LEAQ (R8)(R13*4), R11    // filter 0's gradient row of the segment
	VMOVUPS.Z (R11), K3, Z24
	VMOVUPS.Z (R11)(R9*1), K3, Z25
	LEAQ (R11)(R9*2), R13
	VMOVUPS.Z (R13), K3, Z26
	VMOVUPS.Z (R13)(R9*1), K3, Z27
	LEAQ (R11)(R9*4), R13
	VMOVUPS.Z (R13), K3, Z28
	VMOVUPS.Z (R13)(R9*1), K3, Z29
	MOVQ 0(BX), R13
	MOVQ 24(BX), R11
	KTESTW K2, K2
	JZ wgrad_onerow
	VMOVUPS.Z (AX)(R13*4), K1, Z30
	VMOVUPS (AX)(R11*4), K2, Z30
	VFMADD231PS Z24, Z30, Z0
	VFMADD231PS Z25, Z30, Z1
	VFMADD231PS Z26, Z30, Z2
	VFMADD231PS Z27, Z30, Z3
	VFMADD231PS Z28, Z30, Z4
	VFMADD231PS Z29, Z30, Z5
	VMOVUPS.Z (DI)(R13*4), K1, Z30
	VMOVUPS (DI)(R11*4), K2, Z30
	VFMADD231PS Z24, Z30, Z6
	VFMADD231PS Z25, Z30, Z7
	VFMADD231PS Z26, Z30, Z8
	VFMADD231PS Z27, Z30, Z9
	VFMADD231PS Z28, Z30, Z10
	VFMADD231PS Z29, Z30, Z11
	VMOVUPS.Z (R10)(R13*4), K1, Z30
	VMOVUPS (R10)(R11*4), K2, Z30
	VFMADD231PS Z24, Z30, Z12
	VFMADD231PS Z25, Z30, Z13
	VFMADD231PS Z26, Z30, Z14
	VFMADD231PS Z27, Z30, Z15
	VFMADD231PS Z28, Z30, Z16
	VFMADD231PS Z29, Z30, Z17
	VMOVUPS.Z (R12)(R13*4), K1, Z30
	VMOVUPS (R12)(R11*4), K2, Z30
	VFMADD231PS Z24, Z30, Z18
	VFMADD231PS Z25, Z30, Z19
	VFMADD231PS Z26, Z30, Z20
	VFMADD231PS Z27, Z30, Z21
	VFMADD231PS Z28, Z30, Z22
	VFMADD231PS Z29, Z30, Z23
	JMP wgrad_next

wgrad_onerow:
	VMOVUPS.Z (AX)(R13*4), K1, Z30
	VFMADD231PS Z24, Z30, Z0
	VFMADD231PS Z25, Z30, Z1
	VFMADD231PS Z26, Z30, Z2
	VFMADD231PS Z27, Z30, Z3
	VFMADD231PS Z28, Z30, Z4
	VFMADD231PS Z29, Z30, Z5
	VMOVUPS.Z (DI)(R13*4), K1, Z30
	VFMADD231PS Z24, Z30, Z6
	VFMADD231PS Z25, Z30, Z7
	VFMADD231PS Z26, Z30, Z8
	VFMADD231PS Z27, Z30, Z9
	VFMADD231PS Z28, Z30, Z10
	VFMADD231PS Z29, Z30, Z11
	VMOVUPS.Z (R10)(R13*4), K1, Z30
	VFMADD231PS Z24, Z30, Z12
	VFMADD231PS Z25, Z30, Z13
	VFMADD231PS Z26, Z30, Z14
	VFMADD231PS Z27, Z30, Z15
	VFMADD231PS Z28, Z30, Z16
	VFMADD231PS Z29, Z30, Z17
	VMOVUPS.Z (R12)(R13*4), K1, Z30
	VFMADD231PS Z24, Z30, Z18
	VFMADD231PS Z25, Z30, Z19
	VFMADD231PS Z26, Z30, Z20
	VFMADD231PS Z27, Z30, Z21
	VFMADD231PS Z28, Z30, Z22
	VFMADD231PS Z29, Z30, Z23

wgrad_next:
	ADDQ $40, BX
	DECQ R14
	JNZ wgrad_seg

	VADDPS 0(DX), Z0, Z0
	VMOVUPS Z0, 0(DX)
	VADDPS 64(DX), Z1, Z1
	VMOVUPS Z1, 64(DX)
	VADDPS 128(DX), Z2, Z2
	VMOVUPS Z2, 128(DX)
	VADDPS 192(DX), Z3, Z3
	VMOVUPS Z3, 192(DX)
	VADDPS 256(DX), Z4, Z4
	VMOVUPS Z4, 256(DX)
	VADDPS 320(DX), Z5, Z5
	VMOVUPS Z5, 320(DX)
	VADDPS 384(DX), Z6, Z6
	VMOVUPS Z6, 384(DX)
	VADDPS 448(DX), Z7, Z7
	VMOVUPS Z7, 448(DX)
	VADDPS 512(DX), Z8, Z8
	VMOVUPS Z8, 512(DX)
	VADDPS 576(DX), Z9, Z9
	VMOVUPS Z9, 576(DX)
	VADDPS 640(DX), Z10, Z10
	VMOVUPS Z10, 640(DX)
	VADDPS 704(DX), Z11, Z11
	VMOVUPS Z11, 704(DX)
	VADDPS 768(DX), Z12, Z12
	VMOVUPS Z12, 768(DX)
	VADDPS 832(DX), Z13, Z13
	VMOVUPS Z13, 832(DX)
	VADDPS 896(DX), Z14, Z14
	VMOVUPS Z14, 896(DX)
	VADDPS 960(DX), Z15, Z15
	VMOVUPS Z15, 960(DX)
	VADDPS 1024(DX), Z16, Z16
	VMOVUPS Z16, 1024(DX)
	VADDPS 1088(DX), Z17, Z17
	VMOVUPS Z17, 1088(DX)
	VADDPS 1152(DX), Z18, Z18
	VMOVUPS Z18, 1152(DX)
	VADDPS 1216(DX), Z19, Z19
	VMOVUPS Z19, 1216(DX)
	VADDPS 1280(DX), Z20, Z20
	VMOVUPS Z20, 1280(DX)
	VADDPS 1344(DX), Z21, Z21
	VMOVUPS Z21, 1344(DX)
	VADDPS 1408(DX), Z22, Z22
	VMOVUPS Z22, 1408(DX)
	VADDPS 1472(DX), Z23, Z23
	VMOVUPS Z23, 1472(DX)
	ADDQ $1536, DX
	ADDQ $32, SI
	DECQ CX
	JNZ wgrad_block
	VZEROUPPER
	RET
