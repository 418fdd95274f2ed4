package accel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// naiveWeightGrad is the weight gradient of a convolution of batch
// images with maps filters, by definition, in float64: filter k's tap (i,
// j) on channel c sums the output gradient times the image under it.
func naiveWeightGrad(g ConvGeom, maps, batch int, img, gy []float64) []float64 {
	oh, ow := g.OutH(), g.OutW()
	dw := make([]float64, maps*g.Channels*9)
	for n := range batch {
		for k := range maps {
			for c := range g.Channels {
				for i := range 3 {
					for j := range 3 {
						var s float64
						for y := range oh {
							for x := range ow {
								h, v := y-g.PadH+i, x-g.PadW+j
								if h < 0 || h >= g.InH || v < 0 || v >= g.InW {
									continue
								}
								s += gy[((n*maps+k)*oh+y)*ow+x] * img[((n*g.Channels+c)*g.InH+h)*g.InW+v]
							}
						}
						dw[((k*g.Channels+c)*3+i)*3+j] += s
					}
				}
			}
		}
	}
	return dw
}

// TestConvWeightGradWinograd checks F(3x3, 4x4) against the definition in
// float64 (to 1e-11 of the largest gradient) and float32 (to 1e-4 of it),
// on sizes that leave partial tiles, paddings 0 to 2, channel and map
// counts around the vector widths, blocks of tiles that end inside rows,
// and batches taken in several groups.
func TestConvWeightGradWinograd(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	cases := []struct{ c, maps, h, w, pad, batch, groupBytes int }{
		{1, 1, 3, 3, 0, 1, 0},
		{1, 1, 4, 4, 1, 1, 0},
		{3, 5, 7, 9, 1, 2, 0},
		{17, 33, 14, 14, 1, 3, 0},
		{8, 16, 6, 11, 0, 3, 0},
		{5, 7, 13, 5, 2, 1, 0},
		{16, 24, 28, 28, 1, 2, 0},
		{3, 8, 10, 150, 1, 2, 0}, // rows of 38 tiles: blocks end inside rows
		{2, 3, 21, 45, 0, 3, 0},
		{6, 4, 9, 9, 1, 5, 1}, // an image a group
		{4, 6, 12, 12, 1, 7, 40000},
	}
	for _, tc := range cases {
		g := ConvGeom{Channels: tc.c, InH: tc.h, InW: tc.w, KernelH: 3, KernelW: 3, StrideH: 1, StrideW: 1, PadH: tc.pad, PadW: tc.pad, DilateH: 1, DilateW: 1}
		t.Run(fmt.Sprintf("c%d-k%d-%dx%d-p%d-b%d", tc.c, tc.maps, tc.h, tc.w, tc.pad, tc.batch), func(t *testing.T) {
			if tc.groupBytes > 0 {
				saved := wgradWinoGroupBytes
				wgradWinoGroupBytes = tc.groupBytes
				t.Cleanup(func() { wgradWinoGroupBytes = saved })
			}
			img := randSlice[float64](r, tc.batch*tc.c*tc.h*tc.w)
			gy := randSlice[float64](r, tc.batch*tc.maps*g.OutH()*g.OutW())
			want := naiveWeightGrad(g, tc.maps, tc.batch, img, gy)
			scale := 1.0
			for _, v := range want {
				scale = math.Max(scale, math.Abs(v))
			}
			got := wgradWinograd(g, tc.maps, tc.batch, img, gy)
			for i := range want {
				if !(math.Abs(got[i]-want[i]) <= 1e-11*scale) { // NaN where nothing was written
					t.Fatalf("float64: dw[%d] = %v, want %v", i, got[i], want[i])
				}
			}
			got32 := wgradWinograd(g, tc.maps, tc.batch, toFloat32(img), toFloat32(gy))
			for i := range want {
				if !(math.Abs(float64(got32[i])-want[i]) <= 1e-4*scale) {
					t.Fatalf("float32: dw[%d] = %v, want %v", i, got32[i], want[i])
				}
			}
		})
	}
}

func wgradWinograd[T Float](g ConvGeom, maps, batch int, img, gy []T) []T {
	dw := make([]T, maps*g.Channels*9)
	for i := range dw {
		dw[i] = T(math.NaN()) // every element must be written
	}
	ConvWeightGradWinograd(g, maps, batch, img, gy, dw)
	return dw
}

// TestWinoGradOutPlane checks the kernel that loads an output gradient
// plane's tiles where they lie against winoGradOut (the tiles copied out
// first, transformed in Go), bit for bit (the transform's products by 2,
// 4 and 8 are exact, fused or not): planes whose edges cut tiles, of one
// to several groups of sixteen tiles, followed by NaNs (which the
// cleared lanes must not let in) or by nothing at all (the plane copied
// first).
func TestWinoGradOutPlane(t *testing.T) {
	if winoGradOutPlaneKernel == nil {
		t.Skip("no vector kernel on this CPU")
	}
	r := rand.New(rand.NewPCG(27, 28))
	for _, s := range []struct{ oh, ow int }{{1, 1}, {4, 4}, {5, 3}, {14, 14}, {7, 7}, {28, 28}, {9, 30}, {16, 17}} {
		g := ConvGeom{Channels: 1, InH: s.oh, InW: s.ow, KernelH: 3, KernelW: 3, StrideH: 1, StrideW: 1, PadH: 1, PadW: 1, DilateH: 1, DilateW: 1}
		f := newWinoFrame(g)
		tp := roundUp(f.tilesH*f.tilesW, 16)
		plane := randSlice[float32](r, s.oh*s.ow)
		want := make([]float32, 36*tp)
		winoGradOut(g, f, plane, want, tp, tp, make([]float32, 16*tp))
		lanes := newWinoGradTable(g)
		for _, after := range []int{0, lanes.need} {
			rest := append(append([]float32(nil), plane...), make([]float32, after)...)
			for i := len(plane); i < len(rest); i++ {
				rest[i] = float32(math.NaN())
			}
			got := make([]float32, 36*tp)
			winoGradOutPlaneKernel(lanes, rest, got, tp, make([]float32, 24*16+lanes.need))
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%dx%d, %d after: u[%d] = %v, want %v", s.oh, s.ow, after, i, got[i], want[i])
				}
			}
		}
	}
}

// BenchmarkConvWeightGradWinograd times F(3x3, 4x4) at the 3x3 stride-1
// shapes of ResNet-18's training step at 112x112, batch 16.
func BenchmarkConvWeightGradWinograd(b *testing.B) {
	for _, s := range []struct{ c, hw int }{{64, 28}, {128, 14}, {256, 7}, {512, 4}} {
		g := ConvGeom{Channels: s.c, InH: s.hw, InW: s.hw, KernelH: 3, KernelW: 3, StrideH: 1, StrideW: 1, PadH: 1, PadW: 1, DilateH: 1, DilateW: 1}
		r := rand.New(rand.NewPCG(25, 26))
		const batch = 16
		img := randSlice[float32](r, batch*s.c*s.hw*s.hw)
		gy := randSlice[float32](r, batch*s.c*s.hw*s.hw)
		dw := make([]float32, s.c*s.c*9)
		b.Run(fmt.Sprintf("%dx%dx%d", s.c, s.hw, s.hw), func(b *testing.B) {
			for b.Loop() {
				ConvWeightGradWinograd(g, s.c, batch, img, gy, dw)
			}
			reportGFLOPS(b, 2*float64(batch*s.c*s.c*9*s.hw*s.hw))
		})
	}
}
