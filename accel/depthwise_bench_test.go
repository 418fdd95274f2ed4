package accel

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkDepthwise3x3 times MobileNet v2's depthwise layers at batch 1
// (padding 1, relu6): channels, plane side and stride.
func BenchmarkDepthwise3x3(b *testing.B) {
	for _, s := range []struct{ c, hw, stride int }{
		{32, 112, 1}, {96, 112, 2}, {144, 56, 1}, {144, 56, 2}, {192, 28, 1}, {192, 28, 2},
		{576, 14, 1}, {576, 14, 2}, {960, 7, 1},
	} {
		g := ConvGeom{Channels: 1, InH: s.hw, InW: s.hw, KernelH: 3, KernelW: 3, StrideH: s.stride, StrideW: s.stride, PadH: 1, PadW: 1, DilateH: 1, DilateW: 1}
		r := rand.New(rand.NewPCG(11, 12))
		img := randSlice[float32](r, s.c*s.hw*s.hw)
		w := randSlice[float32](r, s.c*9)
		bias := randSlice[float32](r, s.c)
		out := make([]float32, s.c*g.OutH()*g.OutW())
		b.Run(fmt.Sprintf("%dx%dx%d/stride=%d", s.c, s.hw, s.hw, s.stride), func(b *testing.B) {
			for b.Loop() {
				Depthwise3x3(g, s.c, s.c, img, w, nil, bias, 0, 6, out)
			}
		})
	}
}
