package accel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// naiveWindow lists the in-bounds input positions of window (oh, ow) and its
// MXNet divisor, straight from the definition.
func naiveWindow(g PoolGeom, oh, ow int, countIncludePad bool) (idx []int, count int) {
	hs, ws := oh*g.StrideH-g.PadH, ow*g.StrideW-g.PadW
	he, we := min(hs+g.KernelH, g.InH+g.PadH), min(ws+g.KernelW, g.InW+g.PadW)
	count = (he - hs) * (we - ws)
	for h := hs; h < he; h++ {
		for w := ws; w < we; w++ {
			if h >= 0 && h < g.InH && w >= 0 && w < g.InW {
				idx = append(idx, h*g.InW+w)
			}
		}
	}
	if !countIncludePad {
		count = len(idx)
	}
	return idx, count
}

func poolGeoms() []PoolGeom {
	return []PoolGeom{
		{Planes: 2, InH: 4, InW: 4, OutH: 2, OutW: 2, KernelH: 2, KernelW: 2, StrideH: 2, StrideW: 2},
		{Planes: 3, InH: 5, InW: 7, OutH: 3, OutW: 4, KernelH: 3, KernelW: 3, StrideH: 2, StrideW: 2, PadH: 1, PadW: 1},
		// "full" convention: ceil((5+2*0-3)/2)+1 = 2 rows, ceil((6-2)/3)+1 = 3 columns.
		{Planes: 2, InH: 5, InW: 6, OutH: 2, OutW: 3, KernelH: 3, KernelW: 2, StrideH: 2, StrideW: 3},
		{Planes: 1, InH: 6, InW: 6, OutH: 4, OutW: 4, KernelH: 3, KernelW: 3, StrideH: 2, StrideW: 2, PadH: 1, PadW: 1},
		{Planes: 1, InH: 1, InW: 9, OutH: 1, OutW: 5, KernelH: 1, KernelW: 3, StrideH: 1, StrideW: 2, PadW: 1},
		{Planes: 40, InH: 24, InW: 24, OutH: 12, OutW: 12, KernelH: 2, KernelW: 2, StrideH: 2, StrideW: 2}, // parallel
		// 2x2 stride 2 on odd sizes: "valid" drops the last row and column
		// (the fast path), "full" keeps clipped windows (the general path).
		{Planes: 3, InH: 5, InW: 7, OutH: 2, OutW: 3, KernelH: 2, KernelW: 2, StrideH: 2, StrideW: 2},
		{Planes: 3, InH: 5, InW: 7, OutH: 3, OutW: 4, KernelH: 2, KernelW: 2, StrideH: 2, StrideW: 2},
		// ResNet's 3x3 stride 2 pad 1 on odd sizes, 3x3 at stride 1, and
		// windows 3 wide but 2 or 4 high.
		{Planes: 2, InH: 9, InW: 11, OutH: 5, OutW: 6, KernelH: 3, KernelW: 3, StrideH: 2, StrideW: 2, PadH: 1, PadW: 1},
		{Planes: 2, InH: 6, InW: 5, OutH: 4, OutW: 3, KernelH: 3, KernelW: 3, StrideH: 1, StrideW: 1},
		{Planes: 1, InH: 7, InW: 8, OutH: 4, OutW: 4, KernelH: 2, KernelW: 3, StrideH: 2, StrideW: 2, PadW: 1},
		{Planes: 1, InH: 7, InW: 8, OutH: 3, OutW: 6, KernelH: 4, KernelW: 3, StrideH: 3, StrideW: 1, PadH: 2},
		// Windows that are whole planes: global pooling, with padding,
		// and planes longer than one block of Sum.
		{Planes: 30, InH: 7, InW: 7, OutH: 1, OutW: 1, KernelH: 7, KernelW: 7, StrideH: 1, StrideW: 1},
		{Planes: 3, InH: 5, InW: 5, OutH: 1, OutW: 1, KernelH: 7, KernelW: 7, StrideH: 1, StrideW: 1, PadH: 1, PadW: 1},
		{Planes: 2, InH: 40, InW: 41, OutH: 1, OutW: 1, KernelH: 40, KernelW: 41, StrideH: 1, StrideW: 1},
	}
}

// TestMaxPoolFloat32 checks MaxPool on float32 data without ties against
// the maximum of each window's elements taken one by one.
func TestMaxPoolFloat32(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	for gi, g := range poolGeoms() {
		inSz, outSz := g.InH*g.InW, g.OutH*g.OutW
		in := randSlice[float32](r, g.Planes*inSz)
		out := make([]float32, g.Planes*outSz)
		MaxPool(g, in, out)
		for p := range g.Planes {
			for oh := range g.OutH {
				for ow := range g.OutW {
					idx, _ := naiveWindow(g, oh, ow, false)
					m := float32(math.Inf(-1))
					for _, i := range idx {
						if v := in[p*inSz+i]; v > m {
							m = v
						}
					}
					if o := p*outSz + oh*g.OutW + ow; out[o] != m {
						t.Fatalf("geom %d: out[%d] = %v, want %v", gi, o, out[o], m)
					}
				}
			}
		}
	}
}

func TestMaxPool(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for gi, g := range poolGeoms() {
		inSz, outSz := g.InH*g.InW, g.OutH*g.OutW
		in := randSlice[float64](r, g.Planes*inSz)
		for i := range in {
			in[i] = math.Round(2 * in[i]) // many ties: the first maximum gets the gradient
		}
		out := make([]float64, g.Planes*outSz)
		MaxPool(g, in, out)
		gradOut := randSlice[float64](r, len(out))
		gradIn := randSlice[float64](r, len(in)) // overwritten
		want := make([]float64, len(gradIn))
		MaxPoolBackward(g, in, gradOut, gradIn)
		for p := range g.Planes {
			for oh := range g.OutH {
				for ow := range g.OutW {
					idx, _ := naiveWindow(g, oh, ow, false)
					m, at := math.Inf(-1), -1
					for _, i := range idx {
						if v := in[p*inSz+i]; v > m {
							m, at = v, p*inSz+i
						}
					}
					o := p*outSz + oh*g.OutW + ow
					if out[o] != m {
						t.Fatalf("geom %d: out[%d] = %v, want %v", gi, o, out[o], m)
					}
					if at >= 0 {
						want[at] += gradOut[o]
					}
				}
			}
		}
		for i := range want {
			if math.Abs(gradIn[i]-want[i]) > 1e-12 {
				t.Fatalf("geom %d: gradIn[%d] = %v, want %v", gi, i, gradIn[i], want[i])
			}
		}
	}
}

func TestAvgPool(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	for gi, g := range poolGeoms() {
		for _, mode := range []struct{ includePad, sum bool }{{true, false}, {false, false}, {false, true}} {
			inSz, outSz := g.InH*g.InW, g.OutH*g.OutW
			in := randSlice[float64](r, g.Planes*inSz)
			out := make([]float64, g.Planes*outSz)
			AvgPool(g, in, out, mode.includePad, mode.sum)
			gradOut := randSlice[float64](r, len(out))
			gradIn := randSlice[float64](r, len(in)) // overwritten
			want := make([]float64, len(gradIn))
			AvgPoolBackward(g, gradOut, gradIn, mode.includePad, mode.sum)
			for p := range g.Planes {
				for oh := range g.OutH {
					for ow := range g.OutW {
						idx, count := naiveWindow(g, oh, ow, mode.includePad)
						div := float64(count)
						if mode.sum {
							div = 1
						}
						s := 0.0
						for _, i := range idx {
							s += in[p*inSz+i]
						}
						o := p*outSz + oh*g.OutW + ow
						if math.Abs(out[o]-s/div) > 1e-12 {
							t.Fatalf("geom %d %+v: out[%d] = %v, want %v", gi, mode, o, out[o], s/div)
						}
						for _, i := range idx {
							want[p*inSz+i] += gradOut[o] / div
						}
					}
				}
			}
			for i := range want {
				if math.Abs(gradIn[i]-want[i]) > 1e-12 {
					t.Fatalf("geom %d %+v: gradIn[%d] = %v, want %v", gi, mode, i, gradIn[i], want[i])
				}
			}
		}
	}
}

// TestAvgPoolWholeFloat32 checks average pooling over whole float32 planes,
// which sums each plane with the vector kernel, against a float64 sum.
func TestAvgPoolWholeFloat32(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	for _, g := range poolGeoms()[len(poolGeoms())-3:] {
		inSz := g.InH * g.InW
		in := randSlice[float32](r, g.Planes*inSz)
		out := make([]float32, g.Planes)
		AvgPool(g, in, out, false, false)
		for p := range g.Planes {
			s := 0.0
			for _, v := range in[p*inSz : (p+1)*inSz] {
				s += float64(v)
			}
			if want := s / float64(inSz); math.Abs(float64(out[p])-want) > 1e-5 {
				t.Fatalf("%+v: out[%d] = %v, want %v", g, p, out[p], want)
			}
		}
	}
}

// TestAvgPoolCountIncludePad pins the MXNet divisor on a hand-worked case:
// a 3x3 window, pad 1, over a 2x2 input of ones.
func TestAvgPoolCountIncludePad(t *testing.T) {
	g := PoolGeom{Planes: 1, InH: 2, InW: 2, OutH: 1, OutW: 1, KernelH: 3, KernelW: 3, StrideH: 1, StrideW: 1, PadH: 1, PadW: 1}
	in := []float32{1, 1, 1, 1}
	out := make([]float32, 1)
	AvgPool(g, in, out, true, false)
	if out[0] != 4.0/9 {
		t.Fatalf("count_include_pad: got %v, want 4/9", out[0])
	}
	AvgPool(g, in, out, false, false)
	if out[0] != 1 {
		t.Fatalf("exclude pad: got %v, want 1", out[0])
	}
	AvgPool(g, in, out, true, true)
	if out[0] != 4 {
		t.Fatalf("sum: got %v, want 4", out[0])
	}
}

// TestMaxPool2x2Float32 checks the float32 2x2 loop (vectorised where the
// CPU allows) against the first-maximum rule, with ties and NaNs, on
// widths around the vector length.
func TestMaxPool2x2Float32(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	for _, outW := range []int{1, 4, 7, 8, 9, 12, 13, 16, 29} {
		g := PoolGeom{Planes: 3, InH: 6, InW: 2*outW + 1, OutH: 3, OutW: outW, KernelH: 2, KernelW: 2, StrideH: 2, StrideW: 2}
		in := make([]float32, g.Planes*g.InH*g.InW)
		for i := range in {
			in[i] = float32(math.Round(4 * (r.Float64() - 0.5)))
			if r.IntN(10) == 0 {
				in[i] = float32(math.NaN())
			}
		}
		out := make([]float32, g.Planes*g.OutH*g.OutW)
		MaxPool(g, in, out)
		gradOut := make([]float32, len(out))
		for i := range gradOut {
			gradOut[i] = float32(r.Float64()*2 - 1)
		}
		gradIn := make([]float32, len(in))
		for i := range gradIn {
			gradIn[i] = float32(r.Float64()*2 - 1)
		}
		wantIn := make([]float32, len(gradIn)) // gradIn's values are overwritten
		MaxPoolBackward(g, in, gradOut, gradIn)
		for p := range g.Planes {
			for oh := range g.OutH {
				for ow := range g.OutW {
					var m float32
					for i, idx := range []int{0, 1, g.InW, g.InW + 1} {
						v := in[p*g.InH*g.InW+2*oh*g.InW+2*ow+idx]
						if i == 0 || v > m {
							m = v
						}
					}
					got := out[(p*g.OutH+oh)*g.OutW+ow]
					if !(got == m || (got != got && m != m)) {
						t.Fatalf("outW %d: out[%d,%d,%d] = %v, want %v", outW, p, oh, ow, got, m)
					}
					at := -1
					var best float32
					for i, idx := range []int{0, 1, g.InW, g.InW + 1} {
						k := p*g.InH*g.InW + 2*oh*g.InW + 2*ow + idx
						if i == 0 || in[k] > best {
							best, at = in[k], k
						}
					}
					wantIn[at] += gradOut[(p*g.OutH+oh)*g.OutW+ow]
				}
			}
		}
		for i := range wantIn {
			if gradIn[i] != wantIn[i] {
				t.Fatalf("outW %d: gradIn[%d] = %v, want %v", outW, i, gradIn[i], wantIn[i])
			}
		}
	}
}

// TestMaxPool3x3s2 checks the 3x3 stride-2 loops, forward (vectorised
// where the CPU allows) and backward, against the first maximum of each
// clipped window in row-major order, with ties and NaNs, for padding 0
// and 1, odd and even sizes and the full convention's extra window.
func TestMaxPool3x3s2(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	for _, inW := range []int{1, 2, 3, 5, 8, 16, 17, 18, 33, 40, 112} {
		for _, pad := range []int{0, 1} {
			for _, full := range []bool{false, true} {
				inH := 5 + inW%3
				out := func(in int) int {
					span := in + 2*pad - 3
					if span < 0 {
						return 0
					}
					if full {
						return (span+1)/2 + 1
					}
					return span/2 + 1
				}
				g := PoolGeom{Planes: 2, InH: inH, InW: inW, OutH: out(inH), OutW: out(inW), KernelH: 3, KernelW: 3, StrideH: 2, StrideW: 2, PadH: pad, PadW: pad}
				if g.OutW == 0 {
					continue
				}
				if !g.is3x3s2() {
					t.Fatalf("%+v does not take the 3x3 stride-2 loop", g)
				}
				testMaxPoolFirstMax(t, r, g)
			}
		}
	}
}

func testMaxPoolFirstMax(t *testing.T, r *rand.Rand, g PoolGeom) {
	t.Helper()
	in := make([]float32, g.Planes*g.InH*g.InW)
	for i := range in {
		in[i] = float32(math.Round(4 * (r.Float64() - 0.5)))
		if r.IntN(12) == 0 {
			in[i] = float32(math.NaN())
		}
	}
	out := make([]float32, g.Planes*g.OutH*g.OutW)
	MaxPool(g, in, out)
	gradOut := make([]float32, len(out))
	for i := range gradOut {
		gradOut[i] = float32(r.IntN(7) + 1)
	}
	gradIn := make([]float32, len(in))
	for i := range gradIn {
		gradIn[i] = float32(i) // overwritten
	}
	MaxPoolBackward(g, in, gradOut, gradIn)
	wantIn := make([]float32, len(in))
	for p := range g.Planes {
		for oh := range g.OutH {
			for ow := range g.OutW {
				w := g.window(oh, ow, false)
				var m float32
				at := -1
				for h := w.h0; h < w.h1; h++ {
					for x := w.w0; x < w.w1; x++ {
						k := (p*g.InH+h)*g.InW + x
						if at < 0 || in[k] > m {
							m, at = in[k], k
						}
					}
				}
				got := out[(p*g.OutH+oh)*g.OutW+ow]
				if !(got == m || (got != got && m != m)) {
					t.Fatalf("%+v: out[%d,%d,%d] = %v, want %v", g, p, oh, ow, got, m)
				}
				wantIn[at] += gradOut[(p*g.OutH+oh)*g.OutW+ow]
			}
		}
	}
	for i := range wantIn {
		if gradIn[i] != wantIn[i] {
			t.Fatalf("%+v: gradIn[%d] = %v, want %v", g, i, gradIn[i], wantIn[i])
		}
	}
}

// TestMaxPoolBackPlane checks the kernel that writes a whole plane's
// gradient of ResNet's 3x3 stride-2 pooling at even sizes against the
// row kernel's scan and adds, bit for bit: ties, NaNs, gradients of
// either sign of zero and sums in the windows' order, on planes of one
// window to several blocks of sixteen, a block's width exactly included;
// whatever the plane held before is overwritten.
func TestMaxPoolBackPlane(t *testing.T) {
	if maxPoolBackPlaneKernel == nil {
		t.Skip("no vector kernel on this CPU")
	}
	r := rand.New(rand.NewPCG(29, 30))
	for _, s := range []struct{ oh, ow int }{{1, 1}, {2, 3}, {3, 8}, {5, 15}, {4, 16}, {3, 17}, {6, 28}, {2, 32}, {7, 33}, {28, 56}} {
		g := PoolGeom{Planes: 1, InH: 2 * s.oh, InW: 2 * s.ow, OutH: s.oh, OutW: s.ow, KernelH: 3, KernelW: 3, StrideH: 2, StrideW: 2, PadH: 1, PadW: 1}
		in := make([]float32, g.InH*g.InW)
		for i := range in {
			in[i] = float32(math.Round(4*(r.Float64()-0.5))) + float32(r.IntN(3))/8
			if r.IntN(16) == 0 {
				in[i] = float32(math.NaN())
			}
		}
		gout := make([]float32, g.OutH*g.OutW)
		for i := range gout {
			gout[i] = float32(r.NormFloat64())
			if r.IntN(8) == 0 {
				gout[i] = float32(math.Copysign(0, -1))
			}
		}
		want := make([]float32, len(in))
		maxPool3x3s2Backward(g, in, gout, want)
		got := make([]float32, len(in))
		for i := range got {
			got[i] = float32(math.NaN())
		}
		maxPoolBackPlaneKernel(g, in, gout, got)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%dx%d: gradIn[%d] (row %d, column %d) = %v, want %v", g.InH, g.InW, i, i/g.InW, i%g.InW, got[i], want[i])
			}
		}
	}
}

// TestMaxPoolPlane checks the kernel that pools a whole plane of ResNet's
// 3x3 stride-2 pooling at even sizes against the row loop, bit for bit:
// NaNs (first in a window or not), infinities, and zeros of both signs.
func TestMaxPoolPlane(t *testing.T) {
	if maxPoolPlaneKernel == nil {
		t.Skip("no vector kernel on this CPU")
	}
	r := rand.New(rand.NewPCG(31, 32))
	special := []float32{float32(math.NaN()), float32(math.Inf(-1)), float32(math.Inf(1)), 0, float32(math.Copysign(0, -1))}
	for _, s := range []struct{ oh, ow int }{{1, 1}, {2, 3}, {3, 8}, {5, 15}, {4, 16}, {3, 17}, {6, 28}, {2, 32}, {7, 33}, {28, 56}} {
		g := PoolGeom{Planes: 1, InH: 2 * s.oh, InW: 2 * s.ow, OutH: s.oh, OutW: s.ow, KernelH: 3, KernelW: 3, StrideH: 2, StrideW: 2, PadH: 1, PadW: 1}
		in := make([]float32, g.InH*g.InW)
		for i := range in {
			in[i] = float32(math.Round(2 * r.NormFloat64()))
			if r.IntN(6) == 0 {
				in[i] = special[r.IntN(len(special))]
			}
		}
		want := make([]float32, g.OutH*g.OutW)
		maxPool3x3s2(g, in, want)
		got := make([]float32, len(want))
		maxPoolPlaneKernel(g, in, got)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%dx%d: out[%d] = %v, want %v", g.InH, g.InW, i, got[i], want[i])
			}
		}
	}
}
