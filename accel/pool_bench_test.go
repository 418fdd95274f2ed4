package accel

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkMaxPool3x3 is the max pooling of ResNet's stem: 64 planes of
// 112x112, 3x3 windows at stride 2 with padding 1.
func BenchmarkMaxPool3x3(b *testing.B) {
	g := PoolGeom{Planes: 64, InH: 112, InW: 112, OutH: 56, OutW: 56, KernelH: 3, KernelW: 3, StrideH: 2, StrideW: 2, PadH: 1, PadW: 1}
	r := rand.New(rand.NewPCG(1, 2))
	in := randSlice[float32](r, g.Planes*g.InH*g.InW)
	out := make([]float32, g.Planes*g.OutH*g.OutW)
	b.ResetTimer()
	for range b.N {
		MaxPool(g, in, out)
	}
}

// BenchmarkMaxPool3x3Backward is the gradient of BenchmarkMaxPool3x3's
// pooling.
func BenchmarkMaxPool3x3Backward(b *testing.B) {
	g := PoolGeom{Planes: 64, InH: 112, InW: 112, OutH: 56, OutW: 56, KernelH: 3, KernelW: 3, StrideH: 2, StrideW: 2, PadH: 1, PadW: 1}
	r := rand.New(rand.NewPCG(1, 2))
	in := randSlice[float32](r, g.Planes*g.InH*g.InW)
	gradOut := randSlice[float32](r, g.Planes*g.OutH*g.OutW)
	gradIn := make([]float32, len(in))
	b.ResetTimer()
	for range b.N {
		MaxPoolBackward(g, in, gradOut, gradIn)
	}
}

// BenchmarkGlobalAvgPool is MobileNet v2's last pooling: 1280 planes of 7x7
// averaged whole.
func BenchmarkGlobalAvgPool(b *testing.B) {
	g := PoolGeom{Planes: 1280, InH: 7, InW: 7, OutH: 1, OutW: 1, KernelH: 7, KernelW: 7, StrideH: 1, StrideW: 1}
	r := rand.New(rand.NewPCG(1, 2))
	in := randSlice[float32](r, g.Planes*g.InH*g.InW)
	out := make([]float32, g.Planes)
	b.ResetTimer()
	for range b.N {
		AvgPool(g, in, out, true, false)
	}
}
