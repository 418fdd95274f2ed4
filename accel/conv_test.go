package accel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// naiveIm2col is the reference: every column-matrix element from its definition.
func naiveIm2col(g ConvGeom, img []float64) []float64 {
	outH, outW := g.OutH(), g.OutW()
	col := make([]float64, g.Channels*g.KernelH*g.KernelW*outH*outW)
	for c := range g.Channels {
		for kh := range g.KernelH {
			for kw := range g.KernelW {
				r := (c*g.KernelH+kh)*g.KernelW + kw
				for oh := range outH {
					for ow := range outW {
						ih := oh*g.StrideH - g.PadH + kh*g.DilateH
						iw := ow*g.StrideW - g.PadW + kw*g.DilateW
						v := 0.0
						if ih >= 0 && ih < g.InH && iw >= 0 && iw < g.InW {
							v = img[(c*g.InH+ih)*g.InW+iw]
						}
						col[r*outH*outW+oh*outW+ow] = v
					}
				}
			}
		}
	}
	return col
}

func convGeoms() []ConvGeom {
	return []ConvGeom{
		{Channels: 1, InH: 5, InW: 5, KernelH: 3, KernelW: 3, StrideH: 1, StrideW: 1, DilateH: 1, DilateW: 1},
		{Channels: 2, InH: 7, InW: 6, KernelH: 3, KernelW: 2, StrideH: 2, StrideW: 1, PadH: 1, PadW: 1, DilateH: 1, DilateW: 1},
		{Channels: 3, InH: 9, InW: 8, KernelH: 3, KernelW: 3, StrideH: 2, StrideW: 3, PadH: 2, PadW: 1, DilateH: 2, DilateW: 2},
		{Channels: 2, InH: 4, InW: 4, KernelH: 1, KernelW: 1, StrideH: 1, StrideW: 1, DilateH: 1, DilateW: 1},
		{Channels: 1, InH: 3, InW: 3, KernelH: 3, KernelW: 3, StrideH: 1, StrideW: 1, PadH: 3, PadW: 3, DilateH: 1, DilateW: 1},
		{Channels: 4, InH: 1, InW: 20, KernelH: 1, KernelW: 5, StrideH: 1, StrideW: 2, PadW: 2, DilateH: 1, DilateW: 3}, // 1-D
		{Channels: 8, InH: 40, InW: 40, KernelH: 5, KernelW: 5, StrideH: 1, StrideW: 1, PadH: 2, PadW: 2, DilateH: 1, DilateW: 1},
		// A stride of 2 along the width on planes of more than 64
		// outputs, odd and even sizes, dilated, and 1x1.
		{Channels: 3, InH: 23, InW: 29, KernelH: 3, KernelW: 3, StrideH: 2, StrideW: 2, PadH: 1, PadW: 1, DilateH: 1, DilateW: 1},
		{Channels: 2, InH: 30, InW: 36, KernelH: 7, KernelW: 7, StrideH: 2, StrideW: 2, PadH: 3, PadW: 3, DilateH: 1, DilateW: 1},
		{Channels: 2, InH: 9, InW: 37, KernelH: 3, KernelW: 3, StrideH: 1, StrideW: 2, PadH: 1, PadW: 2, DilateH: 1, DilateW: 2},
		{Channels: 5, InH: 20, InW: 20, KernelH: 1, KernelW: 1, StrideH: 2, StrideW: 2, DilateH: 1, DilateW: 1},
	}
}

func TestConvOut(t *testing.T) {
	g := ConvGeom{Channels: 1, InH: 28, InW: 28, KernelH: 5, KernelW: 5, StrideH: 1, StrideW: 1, DilateH: 1, DilateW: 1}
	if g.OutH() != 24 || g.OutW() != 24 {
		t.Fatalf("LeNet conv1 out = %dx%d, want 24x24", g.OutH(), g.OutW())
	}
	g = ConvGeom{Channels: 1, InH: 10, InW: 11, KernelH: 3, KernelW: 3, StrideH: 2, StrideW: 3, PadH: 1, PadW: 2, DilateH: 2, DilateW: 1}
	if g.OutH() != 4 || g.OutW() != 5 {
		t.Fatalf("out = %dx%d, want 4x5", g.OutH(), g.OutW())
	}
}

func TestIm2col(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for i, g := range convGeoms() {
		img := randSlice[float64](r, g.Channels*g.InH*g.InW)
		want := naiveIm2col(g, img)
		got := make([]float64, len(want))
		for j := range got {
			got[j] = math.NaN() // every element must be written
		}
		Im2col(g, img, got)
		for j := range want {
			if got[j] != want[j] {
				t.Fatalf("geom %d: col[%d] = %v, want %v", i, j, got[j], want[j])
			}
		}
		// float32 agrees too.
		img32 := make([]float32, len(img))
		for j, v := range img {
			img32[j] = float32(v)
		}
		got32 := make([]float32, len(want))
		Im2col(g, img32, got32)
		for j := range want {
			if got32[j] != float32(want[j]) {
				t.Fatalf("geom %d float32: col[%d] = %v, want %v", i, j, got32[j], want[j])
			}
		}
	}
}

// TestCol2imAdjoint checks <Im2col(x), y> == <x, Col2im(y)> and that Col2im
// adds to, rather than overwrites, the image.
func TestCol2imAdjoint(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for i, g := range convGeoms() {
		x := randSlice[float64](r, g.Channels*g.InH*g.InW)
		y := randSlice[float64](r, g.Channels*g.KernelH*g.KernelW*g.OutH()*g.OutW())
		col := make([]float64, len(y))
		Im2col(g, x, col)
		lhs := naiveDot(col, y)

		base := randSlice[float64](r, len(x))
		img := append([]float64(nil), base...)
		Col2im(g, y, img)
		for j := range img {
			img[j] -= base[j]
		}
		rhs := naiveDot(x, img)
		if math.Abs(lhs-rhs) > 1e-9*(1+math.Abs(lhs)) {
			t.Fatalf("geom %d: <Im2col(x),y> = %v, <x,Col2im(y)> = %v", i, lhs, rhs)
		}
	}
}

func naiveDot(x, y []float64) float64 {
	var s float64
	for i := range x {
		s += x[i] * y[i]
	}
	return s
}

func ExampleIm2col() {
	// One 3x3 channel, a 2x2 kernel, stride 1, no padding: four output
	// positions, four kernel taps.
	g := ConvGeom{Channels: 1, InH: 3, InW: 3, KernelH: 2, KernelW: 2,
		StrideH: 1, StrideW: 1, DilateH: 1, DilateW: 1}
	img := []float32{
		1, 2, 3,
		4, 5, 6,
		7, 8, 9,
	}
	col := make([]float32, 4*g.OutH()*g.OutW())
	Im2col(g, img, col)
	for r := range 4 {
		fmt.Println(col[r*4 : r*4+4])
	}
	// Output:
	// [1 2 4 5]
	// [2 3 5 6]
	// [4 5 7 8]
	// [5 6 8 9]
}

// benchConv runs im2col + Gemm for every image of a batch, spreading images
// over the worker pool, and reports the Gemm's GFLOP/s.
func benchConv(b *testing.B, batch, filters int, g ConvGeom) {
	r := rand.New(rand.NewPCG(13, 14))
	k := g.colRows()
	n := g.OutH() * g.OutW()
	imgSize := g.Channels * g.InH * g.InW
	in := randSlice[float32](r, batch*imgSize)
	w := randSlice[float32](r, filters*k)
	out := make([]float32, batch*filters*n)
	cols := make([]float32, batch*k*n)
	b.ResetTimer()
	for b.Loop() {
		ParallelFor(batch, 1, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				col := cols[i*k*n : (i+1)*k*n]
				Im2col(g, in[i*imgSize:(i+1)*imgSize], col)
				Gemm(false, false, filters, n, k, 1, w, k, col, n, 0, out[i*filters*n:(i+1)*filters*n], n)
			}
		})
	}
	reportGFLOPS(b, 2*float64(batch)*float64(filters)*float64(n)*float64(k))
}

// benchConvPacked is benchConv with the column matrix written straight in
// Gemm's packed layout, and a bias and relu applied per tile.
func benchConvPacked(b *testing.B, batch, filters int, g ConvGeom) {
	r := rand.New(rand.NewPCG(13, 14))
	k := g.colRows()
	n := g.OutH() * g.OutW()
	imgSize := g.Channels * g.InH * g.InW
	in := randSlice[float32](r, batch*imgSize)
	w := randSlice[float32](r, filters*k)
	ep := &Epilogue[float32]{RowBias: randSlice[float32](r, filters), Relu: true}
	out := make([]float32, batch*filters*n)
	plen := PackedBLen[float32](k, n)
	cols := make([]float32, batch*plen)
	b.ResetTimer()
	for b.Loop() {
		ParallelFor(batch, 1, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				col := cols[i*plen : (i+1)*plen]
				Im2colPacked(g, in[i*imgSize:(i+1)*imgSize], col)
				GemmPackedB(false, filters, n, k, w, k, col, 0, out[i*filters*n:(i+1)*filters*n], n, ep)
			}
		})
	}
	reportGFLOPS(b, 2*float64(batch)*float64(filters)*float64(n)*float64(k))
}

func BenchmarkConvLeNet(b *testing.B) {
	conv1 := ConvGeom{Channels: 1, InH: 28, InW: 28, KernelH: 5, KernelW: 5, StrideH: 1, StrideW: 1, DilateH: 1, DilateW: 1}
	conv2 := ConvGeom{Channels: 6, InH: 12, InW: 12, KernelH: 5, KernelW: 5, StrideH: 1, StrideW: 1, DilateH: 1, DilateW: 1}
	b.Run("conv1", func(b *testing.B) { benchConv(b, 16, 6, conv1) })
	b.Run("conv2", func(b *testing.B) { benchConv(b, 16, 16, conv2) })
	b.Run("conv1-packed-relu", func(b *testing.B) { benchConvPacked(b, 16, 6, conv1) })
	b.Run("conv2-packed-relu", func(b *testing.B) { benchConvPacked(b, 16, 16, conv2) })
}

func TestIm2colEmptyOutput(t *testing.T) {
	// A kernel larger than the padded input has no output positions.
	g := ConvGeom{Channels: 1, InH: 2, InW: 2, KernelH: 3, KernelW: 3, StrideH: 1, StrideW: 1, DilateH: 1, DilateW: 1}
	Im2col(g, make([]float32, 4), nil)
	Col2im(g, nil, make([]float32, 4))
}

// TestCol2imFloat32 checks the float32 Col2im (vector adds for unit-stride
// rows) against the float64 one.
func TestCol2imFloat32(t *testing.T) {
	r := rand.New(rand.NewPCG(55, 56))
	geoms := append(convGeoms(),
		ConvGeom{Channels: 1, InH: 28, InW: 28, KernelH: 5, KernelW: 5, StrideH: 1, StrideW: 1, DilateH: 1, DilateW: 1},
		ConvGeom{Channels: 6, InH: 12, InW: 12, KernelH: 5, KernelW: 5, StrideH: 1, StrideW: 1, DilateH: 1, DilateW: 1},                  // rows of 8
		ConvGeom{Channels: 2, InH: 9, InW: 15, KernelH: 3, KernelW: 3, StrideH: 2, StrideW: 1, PadH: 1, PadW: 1, DilateH: 1, DilateW: 1}, // rows of 15
	)
	for gi, g := range geoms {
		col := randSlice[float64](r, g.Channels*g.KernelH*g.KernelW*g.OutH()*g.OutW())
		base := randSlice[float64](r, g.Channels*g.InH*g.InW)
		want := append([]float64(nil), base...)
		Col2im(g, col, want)
		col32, got := make([]float32, len(col)), make([]float32, len(base))
		for i, v := range col {
			col32[i] = float32(v)
		}
		for i, v := range base {
			got[i] = float32(v)
		}
		Col2im(g, col32, got)
		for i := range want {
			if math.Abs(float64(got[i])-want[i]) > 1e-5*(1+math.Abs(want[i])) {
				t.Fatalf("geom %d: [%d] = %v, want %v", gi, i, got[i], want[i])
			}
		}
	}
}

// TestCol2imSet checks Col2imSet, which overwrites img, against Col2im
// adding into a zeroed image, in float32 (the gathering kernel where the
// CPU has one) and float64, on buffers that start as NaN.
func TestCol2imSet(t *testing.T) {
	r := rand.New(rand.NewPCG(57, 58))
	geoms := append(convGeoms(),
		ConvGeom{Channels: 6, InH: 12, InW: 12, KernelH: 5, KernelW: 5, StrideH: 1, StrideW: 1, DilateH: 1, DilateW: 1},
		ConvGeom{Channels: 2, InH: 9, InW: 15, KernelH: 3, KernelW: 3, StrideH: 2, StrideW: 1, PadH: 1, PadW: 1, DilateH: 1, DilateW: 1},
		ConvGeom{Channels: 3, InH: 11, InW: 8, KernelH: 2, KernelW: 3, StrideH: 3, StrideW: 1, PadH: 2, PadW: 4, DilateH: 2, DilateW: 2},
		ConvGeom{Channels: 1, InH: 4, InW: 21, KernelH: 4, KernelW: 6, StrideH: 1, StrideW: 1, PadH: 3, PadW: 5, DilateH: 1, DilateW: 1},
		// At a stride of 2 along the width: ResNet's data gradients,
		// eight columns, a padding wider than the kernel's reach.
		ConvGeom{Channels: 3, InH: 14, InW: 14, KernelH: 3, KernelW: 3, StrideH: 2, StrideW: 2, PadH: 1, PadW: 1, DilateH: 1, DilateW: 1},
		ConvGeom{Channels: 2, InH: 7, InW: 7, KernelH: 1, KernelW: 1, StrideH: 2, StrideW: 2, DilateH: 1, DilateW: 1},
		ConvGeom{Channels: 2, InH: 8, InW: 8, KernelH: 3, KernelW: 3, StrideH: 2, StrideW: 2, PadH: 1, PadW: 1, DilateH: 1, DilateW: 1},
		ConvGeom{Channels: 1, InH: 5, InW: 19, KernelH: 2, KernelW: 4, StrideH: 1, StrideW: 2, PadH: 0, PadW: 5, DilateH: 1, DilateW: 1},
	)
	for gi, g := range geoms {
		if g.OutH() <= 0 || g.OutW() <= 0 {
			continue
		}
		col := randSlice[float64](r, g.colRows()*g.OutH()*g.OutW())
		want := make([]float64, g.Channels*g.InH*g.InW)
		Col2im(g, col, want)
		got64 := make([]float64, len(want))
		got32 := make([]float32, len(want))
		col32 := make([]float32, len(col))
		for i, v := range col {
			col32[i] = float32(v)
		}
		for i := range got32 {
			got32[i] = float32(math.NaN())
			got64[i] = math.NaN()
		}
		Col2imSet(g, col, got64)
		Col2imSet(g, col32, got32)
		for i := range want {
			if got64[i] != want[i] && math.Abs(got64[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) {
				t.Fatalf("geom %d float64: [%d] = %v, want %v", gi, i, got64[i], want[i])
			}
			if !(math.Abs(float64(got32[i])-want[i]) <= 1e-5*(1+math.Abs(want[i]))) {
				t.Fatalf("geom %d float32: [%d] = %v, want %v", gi, i, got32[i], want[i])
			}
		}
	}
}

// TestIm2colAt: two images' column matrices written side by side equal
// each one's own, and a matrix too short for its stride is refused.
func TestIm2colAt(t *testing.T) {
	g := ConvGeom{Channels: 3, InH: 6, InW: 5, KernelH: 3, KernelW: 2, StrideH: 2, StrideW: 1, PadH: 1, PadW: 1, DilateH: 1, DilateW: 1}
	rows, cols := g.colRows(), g.OutH()*g.OutW()
	r := rand.New(rand.NewPCG(3, 4))
	a, b := randSlice[float64](r, 90), randSlice[float64](r, 90)
	ca, cb := make([]float64, rows*cols), make([]float64, rows*cols)
	Im2col(g, a, ca)
	Im2col(g, b, cb)
	both := make([]float64, rows*2*cols)
	Im2colAt(g, a, both, 2*cols)
	Im2colAt(g, b, both[cols:], 2*cols)
	for i := range rows {
		for j := range cols {
			if both[i*2*cols+j] != ca[i*cols+j] || both[i*2*cols+cols+j] != cb[i*cols+j] {
				t.Fatalf("row %d, column %d: %v and %v, want %v and %v", i, j, both[i*2*cols+j], both[i*2*cols+cols+j], ca[i*cols+j], cb[i*cols+j])
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("a column matrix too short for its stride was written")
		}
	}()
	Im2colAt(g, a, both[cols+1:], 2*cols)
}
