//go:build !purego

package accel

import "golang.org/x/sys/cpu"

// dw3x3RowAVX2 is depthwiseRow's vector loop on float32
// (depthwise_amd64.s): n > 0, the last n%8 outputs under mask, each
// bounded to [lo, hi].
//
//go:noescape
func dw3x3RowAVX2(n int, src *float32, offs *[9]int, w *[9]float32, bias, lo, hi float32, out *float32, mask *int32)

// dw3x3PlanesAVX512 is dw3x3Planes32's kernel (depthwise512_amd64.s):
// whole planes of h x w at unit stride and padding 1.
//
//go:noescape
func dw3x3PlanesAVX512(src *float32, h, w, planes int, w9, bias *float32, biasStep int, lo, hi float32, dst *float32, scale *float32, scaleStep int)

// dw3x3PlanesS2AVX512 is dw3x3Planes32's kernel at stride 2
// (depthwise512_amd64.s).
//
//go:noescape
func dw3x3PlanesS2AVX512(src *float32, h, w, planes int, w9, bias *float32, biasStep int, lo, hi float32, dst *float32, oh, ow int, masks *uint16, idx *int32, scale *float32, scaleStep int)

// dwS2Index holds the even lane indices of two vectors, then the odd ones.
var dwS2Index = func() (x [32]int32) {
	for i := range 16 {
		x[i], x[16+i] = int32(2*i), int32(2*i+1)
	}
	return x
}()

// deinterleaveAVX512 is deinterleave's pairs loop on float32, the last
// pairs under masks; idx is dwS2Index.
//
//go:noescape
func deinterleaveAVX512(n int, src, even, odd *float32, idx *int32)

// subsample2AVX512 writes every other element of src, from the first, to
// n elements of dst; idx is dwS2Index.
//
//go:noescape
func subsample2AVX512(n int, src, dst *float32, idx *int32)

// subsample2 is subsample2Kernel.
func subsample2(dst, src []float32) {
	if n := len(dst); n > 0 {
		_ = src[2*(n-1)]
		subsample2AVX512(n, &src[0], &dst[0], &dwS2Index[0])
	}
}

// deinterleaveAVX2 is deinterleave's vector loop on float32: n a positive
// multiple of 8.
//
//go:noescape
func deinterleaveAVX2(n int, src, even, odd *float32)

func init() {
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		dw3x3RowKernel = dw3x3Row32
		deinterleaveKernel = deinterleave32
	}
	if cpu.X86.HasAVX512F && !noAVX512 {
		dw3x3PlanesKernel = dw3x3Planes32
		deinterleaveKernel = deinterleave512
		subsample2Kernel = subsample2
	}
}

// dw3x3Planes32 is dw3x3PlanesKernel.
func dw3x3Planes32(g ConvGeom, src, dst, w9, scale, bias []float32, planes int, masks *[dwMasksLen]uint16, lo, hi float32) {
	h, w, oh, ow := g.InH, g.InW, g.OutH(), g.OutW()
	if !dwPlanesApply(g) || planes < 1 {
		panic("accel: dw3x3Planes32 of planes it does not handle")
	}
	_, _, _ = src[planes*h*w-1], dst[planes*oh*ow-1], w9[9*planes-1]
	b, step := perRow(bias, planes, &zeroBias[0])
	s, sStep := perRow(scale, planes, &unitScale[0])
	if g.StrideH == 1 {
		dw3x3PlanesAVX512(&src[0], h, w, planes, &w9[0], b, step, lo, hi, &dst[0], s, sStep)
		return
	}
	dw3x3PlanesS2AVX512(&src[0], h, w, planes, &w9[0], b, step, lo, hi, &dst[0], oh, ow, &masks[0], &dwS2Index[0], s, sStep)
}

// deinterleave512 is deinterleave's pairs loop on float32 with AVX-512.
func deinterleave512(even, odd, src []float32) {
	if n := len(even); n > 0 {
		_, _, _ = odd[n-1], src[2*n-1], even[n-1]
		deinterleaveAVX512(n, &src[0], &even[0], &odd[0], &dwS2Index[0])
	}
}

// deinterleave32 is deinterleave's pairs loop on float32 with AVX2.
func deinterleave32(even, odd, src []float32) {
	n := len(even) &^ 7
	if n > 0 {
		_, _, _ = even[n-1], odd[n-1], src[2*n-1]
		deinterleaveAVX2(n, &src[0], &even[0], &odd[0])
	}
	for j := n; j < len(even); j++ {
		even[j] = src[2*j]
		odd[j] = src[2*j+1]
	}
}

// tailMasks holds eight set lanes then eight clear ones: the eight from
// index 8-r have their first r lanes set.
var tailMasks = [16]int32{-1, -1, -1, -1, -1, -1, -1, -1}

// dw3x3Row32 is depthwiseRow on float32, every tap run checked to hold
// the outputs' length.
func dw3x3Row32(out, src []float32, offs *[9]int, w *[9]float32, b, lo, hi float32) {
	n := len(out)
	if n == 0 {
		return
	}
	for _, o := range offs {
		_ = src[o : o+n] // bounds of every run the kernel reads
	}
	dw3x3RowAVX2(n, &src[0], offs, w, b, lo, hi, &out[0], &tailMasks[(8-n%8)%8])
}
