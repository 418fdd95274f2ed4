package accel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// naiveConv is the convolution of batch images with maps filters, by
// definition, in float64.
func naiveConv(g ConvGeom, maps, batch int, img, w []float64) []float64 {
	oh, ow := g.OutH(), g.OutW()
	out := make([]float64, batch*maps*oh*ow)
	for n := range batch {
		for k := range maps {
			for y := range oh {
				for x := range ow {
					var s float64
					for c := range g.Channels {
						for i := range g.KernelH {
							for j := range g.KernelW {
								h := y*g.StrideH - g.PadH + i*g.DilateH
								v := x*g.StrideW - g.PadW + j*g.DilateW
								if h < 0 || h >= g.InH || v < 0 || v >= g.InW {
									continue
								}
								s += img[((n*g.Channels+c)*g.InH+h)*g.InW+v] * w[((k*g.Channels+c)*g.KernelH+i)*g.KernelW+j]
							}
						}
					}
					out[((n*maps+k)*oh+y)*ow+x] = s
				}
			}
		}
	}
	return out
}

// TestConvWinograd checks F(4x4, 3x3) against the definition in float64
// (to 1e-12) and float32 (to 1e-4 of the largest output), on sizes that
// leave partial tiles, with paddings 0, 1 and 2, channel and map counts
// around the panel width, one tile and many, and batches.
func TestConvWinograd(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	cases := []struct{ c, maps, h, w, pad, batch int }{
		{1, 1, 3, 3, 0, 1},
		{1, 1, 4, 4, 1, 1},
		{3, 5, 7, 9, 1, 2},
		{17, 33, 14, 14, 1, 1},
		{8, 16, 6, 11, 0, 3},
		{5, 7, 13, 5, 2, 1},
		{64, 64, 56, 56, 1, 1},
		{16, 40, 28, 28, 1, 2},
		{3, 8, 10, 150, 1, 2}, // rows of 38 tiles: blocks end inside rows
		{2, 3, 21, 45, 0, 3},
		// images of fewer tiles than a block, several to a block
		{6, 10, 7, 7, 1, 16},
		{5, 9, 4, 4, 1, 7},
		{3, 4, 9, 10, 1, 6}, // blocks that end inside an image's rows
		{4, 6, 14, 14, 1, 4},
		{2, 3, 6, 9, 0, 8},
		{300, 13, 6, 6, 1, 1}, // filters past a block of depth
		// One image of several blocks, spread over the workers: blocks
		// that end inside rows of tiles, partial tiles.
		{3, 5, 30, 34, 1, 1},
		{2, 3, 37, 29, 1, 1},
		{4, 6, 35, 40, 0, 1},
		{3, 4, 13, 70, 1, 1},
	}
	for _, tc := range cases {
		g := ConvGeom{Channels: tc.c, InH: tc.h, InW: tc.w, KernelH: 3, KernelW: 3, StrideH: 1, StrideW: 1, PadH: tc.pad, PadW: tc.pad, DilateH: 1, DilateW: 1}
		t.Run(fmt.Sprintf("c%d-k%d-%dx%d-p%d-b%d", tc.c, tc.maps, tc.h, tc.w, tc.pad, tc.batch), func(t *testing.T) {
			if !WinogradApplies(g) {
				t.Fatal("WinogradApplies is false")
			}
			img := randSlice[float64](r, tc.batch*tc.c*tc.h*tc.w)
			w := randSlice[float64](r, tc.maps*tc.c*9)
			want := naiveConv(g, tc.maps, tc.batch, img, w)
			got := winograd(g, tc.maps, tc.batch, img, w)
			scale := 0.0
			for _, v := range want {
				scale = math.Max(scale, math.Abs(v))
			}
			for i := range want {
				if !(math.Abs(got[i]-want[i]) <= 1e-12*max(scale, 1)) { // NaN where nothing was written
					t.Fatalf("float64: out[%d] = %v, want %v", i, got[i], want[i])
				}
			}
			got32 := winograd(g, tc.maps, tc.batch, toFloat32(img), toFloat32(w))
			for i := range want {
				if !(math.Abs(float64(got32[i])-want[i]) <= 1e-4*max(scale, 1)) {
					t.Fatalf("float32: out[%d] = %v, want %v", i, got32[i], want[i])
				}
			}
		})
	}
}

// TestWinogradFiltersTurned checks that the filters transformed turned
// are the transform of the filters turned beforehand: maps and channels
// swapped, each turned by 180 degrees.
func TestWinogradFiltersTurned(t *testing.T) {
	r := rand.New(rand.NewPCG(73, 74))
	for _, s := range [][2]int{{1, 1}, {5, 3}, {13, 40}, {300, 7}} {
		maps, channels := s[0], s[1]
		w := randSlice[float64](r, channels*maps*9) // channels x maps x 3 x 3
		turned := make([]float64, len(w))
		for k := range maps {
			for c := range channels {
				for i := range 9 {
					turned[(k*channels+c)*9+i] = w[(c*maps+k)*9+8-i]
				}
			}
		}
		want := make([]float64, WinogradFiltersLen[float64](maps, channels))
		got := make([]float64, len(want))
		WinogradFilters(maps, channels, false, turned, want)
		WinogradFilters(maps, channels, true, w, got)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%d maps of %d channels: [%d] = %v, want %v", maps, channels, i, got[i], want[i])
			}
		}
	}
}

func winograd[T Float](g ConvGeom, maps, batch int, img, w []T) []T {
	u := make([]T, WinogradFiltersLen[T](maps, g.Channels))
	WinogradFilters(maps, g.Channels, false, w, u)
	out := make([]T, batch*maps*g.OutH()*g.OutW())
	for i := range out {
		out[i] = T(math.NaN()) // every element must be written
	}
	ConvWinograd(g, maps, batch, img, u, out, nil)
	return out
}

func toFloat32(x []float64) []float32 {
	y := make([]float32, len(x))
	for i, v := range x {
		y[i] = float32(v)
	}
	return y
}

// BenchmarkConvWinograd compares F(4x4, 3x3) with the packed product at
// ResNet-18's 3x3 stride-1 shapes, batch 1.
func BenchmarkConvWinograd(b *testing.B) {
	for _, s := range []struct{ c, hw int }{{64, 56}, {128, 28}, {256, 14}, {512, 7}} {
		g := ConvGeom{Channels: s.c, InH: s.hw, InW: s.hw, KernelH: 3, KernelW: 3, StrideH: 1, StrideW: 1, PadH: 1, PadW: 1, DilateH: 1, DilateW: 1}
		r := rand.New(rand.NewPCG(13, 14))
		img := randSlice[float32](r, s.c*s.hw*s.hw)
		w := randSlice[float32](r, s.c*s.c*9)
		out := make([]float32, s.c*s.hw*s.hw)
		u := make([]float32, WinogradFiltersLen[float32](s.c, s.c))
		flops := 2 * float64(s.c*s.c*9*s.hw*s.hw)
		b.Run(fmt.Sprintf("winograd-%dx%d", s.c, s.hw), func(b *testing.B) {
			for b.Loop() {
				WinogradFilters(s.c, s.c, false, w, u)
				ConvWinograd(g, s.c, 1, img, u, out, nil)
			}
			reportGFLOPS(b, flops)
		})
		b.Run(fmt.Sprintf("winograd-pre-%dx%d", s.c, s.hw), func(b *testing.B) {
			WinogradFilters(s.c, s.c, false, w, u)
			for b.Loop() {
				ConvWinograd(g, s.c, 1, img, u, out, nil)
			}
			reportGFLOPS(b, flops)
		})
		b.Run(fmt.Sprintf("packed-%dx%d", s.c, s.hw), func(b *testing.B) { benchConvPacked(b, 1, s.c, g) })
	}
}
