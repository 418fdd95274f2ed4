package accel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestConvWeightGradDirect checks the direct weight gradient against sums
// over the column matrix, over geometries with padding, dilation, a
// vertical stride and rows longer than a vector, for filter counts that
// do and do not divide into sixes, on several images at a stride.
func TestConvWeightGradDirect(t *testing.T) {
	if wgradKernel == nil { // a CPU without AVX-512: the caller is told to compute it otherwise
		g := ConvGeom{Channels: 1, InH: 8, InW: 8, KernelH: 3, KernelW: 3, StrideH: 1, StrideW: 1, DilateH: 1, DilateW: 1}
		if ConvWeightGradDirect(g, 6, 1, make([]float32, 64), 64, make([]float32, 6*36), 6*36, make([]float32, 6*9)) {
			t.Fatal("ConvWeightGradDirect reported success with no kernel")
		}
		return
	}
	r := rand.New(rand.NewPCG(61, 62))
	for gi, g := range directGeoms() {
		for _, filters := range []int{6, 7, 16, fewFiltersMax + 5} {
			const images = 3
			imgSize, plane, taps := g.Channels*g.InH*g.InW, g.OutH()*g.OutW(), g.colRows()
			imgStride, gyStride := imgSize+5, filters*plane+3
			img := randSlice[float32](r, images*imgStride)
			gy := randSlice[float32](r, images*gyStride)
			want := make([]float64, filters*taps)
			col := make([]float64, taps*plane)
			for n := range images {
				x := make([]float64, imgSize)
				for i := range x {
					x[i] = float64(img[n*imgStride+i])
				}
				Im2col(g, x, col)
				for f := range filters {
					for tap := range taps {
						s := 0.0
						for p := range plane {
							s += float64(gy[n*gyStride+f*plane+p]) * col[tap*plane+p]
						}
						want[f*taps+tap] += s
					}
				}
			}
			got := make([]float32, filters*taps)
			for i := range got {
				got[i] = float32(math.NaN())
			}
			if !ConvWeightGradDirect(g, filters, images, img, imgStride, gy, gyStride, got) {
				t.Fatalf("geom %d: the direct kernel declined", gi)
			}
			name := fmt.Sprintf("geom %d, %d filters", gi, filters)
			for i := range want {
				if !(math.Abs(float64(got[i])-want[i]) <= 1e-4*(1+math.Abs(want[i]))) {
					t.Fatalf("%s: [%d] = %v, want %v", name, i, got[i], want[i])
				}
			}
		}
	}
}

// TestConvWeightGradDirectDeclines: what the kernel does not cover is
// left to the caller, untouched.
func TestConvWeightGradDirectDeclines(t *testing.T) {
	g := ConvGeom{Channels: 1, InH: 8, InW: 8, KernelH: 3, KernelW: 3, StrideH: 1, StrideW: 2, DilateH: 1, DilateW: 1}
	dw := []float32{7}
	if ConvWeightGradDirect(g, 6, 1, make([]float32, 64), 64, make([]float32, 6*18), 6*18, dw) || dw[0] != 7 {
		t.Error("a horizontal stride of 2 was taken")
	}
	g.StrideW = 1
	if ConvWeightGradDirect(g, 5, 1, make([]float32, 64), 64, make([]float32, 5*36), 5*36, dw) || dw[0] != 7 {
		t.Error("five filters were taken")
	}
	if ConvWeightGradDirect(g, 6, 1, make([]float64, 64), 64, make([]float64, 6*36), 6*36, []float64{7}) {
		t.Error("float64 was taken")
	}
}

// TestConvForwardDirect checks the direct convolution forward against the
// product with the column matrix, bare and with each part of an epilogue
// (scale and bias, a residual, relu, relu6's cap), on outputs that start
// as NaN, over the geometries and filter counts of the weight gradient's
// test.
func TestConvForwardDirect(t *testing.T) {
	if convFwdKernel == nil { // a CPU without AVX-512: the caller is told to compute it otherwise
		g := ConvGeom{Channels: 1, InH: 8, InW: 8, KernelH: 3, KernelW: 3, StrideH: 1, StrideW: 1, DilateH: 1, DilateW: 1}
		if ConvForwardDirect(g, 6, 1, make([]float32, 64), 64, make([]float32, 6*9), nil, make([]float32, 6*36), 6*36) {
			t.Fatal("ConvForwardDirect reported success with no kernel")
		}
		return
	}
	type finish struct{ bias, residual, relu, capped bool }
	finishes := []finish{{}, {bias: true, relu: true}, {residual: true}, {bias: true, residual: true, relu: true}, {bias: true, relu: true, capped: true}, {residual: true, capped: true}}
	r := rand.New(rand.NewPCG(63, 64))
	for gi, g := range forwardGeoms() {
		// Up to fewFiltersMax filters, each chunk takes all the groups;
		// beyond, a chunk's groups are spread. Groups of six, of six and
		// four (8, 16, 32, 64), and six overlapping (7, 53).
		for _, filters := range []int{6, 7, 8, 16, 32, fewFiltersMax + 5, fewFiltersMax + 16} {
			for fi, fin := range finishes {
				if filters > fewFiltersMax && (fi%3 != 1 || g.colRows()*g.OutH()*g.OutW() > 1<<18) {
					continue // two of the finishes, on the smaller geometries, suffice
				}
				const images = 3
				imgSize, plane, taps := g.Channels*g.InH*g.InW, g.OutH()*g.OutW(), g.colRows()
				imgStride, outStride := imgSize+5, filters*plane+3
				img := randSlice[float32](r, images*imgStride)
				w := randSlice[float32](r, filters*taps)
				ep := &Epilogue[float32]{Relu: fin.relu, Capped: fin.capped, Cap: 0.5}
				if fin.bias {
					ep.RowBias = randSlice[float32](r, filters)
					ep.RowScale = randSlice[float32](r, filters) // an inference BatchNorm's, folded in
				}
				if fin.residual {
					ep.Add, ep.AddStride = randSlice[float32](r, images*outStride), plane
				}
				got := make([]float32, images*outStride)
				for i := range got {
					got[i] = float32(math.NaN())
				}
				if !ConvForwardDirect(g, filters, images, img, imgStride, w, ep, got, outStride) {
					t.Fatalf("geom %d: the direct kernel declined", gi)
				}
				col := make([]float64, taps*plane)
				for n := range images {
					x := make([]float64, imgSize)
					for i := range x {
						x[i] = float64(img[n*imgStride+i])
					}
					Im2col(g, x, col)
					for f := range filters {
						for p := range plane {
							want := 0.0
							for tap := range taps {
								want += float64(w[f*taps+tap]) * col[tap*plane+p]
							}
							if fin.bias {
								want = want*float64(ep.RowScale[f]) + float64(ep.RowBias[f])
							}
							if fin.residual {
								want += float64(ep.Add[n*outStride+f*plane+p])
							}
							if fin.relu {
								want = max(want, 0)
							}
							if fin.capped {
								want = min(want, 0.5)
							}
							v := got[n*outStride+f*plane+p]
							if !(math.Abs(float64(v)-want) <= 1e-4*(1+math.Abs(want))) {
								t.Fatalf("geom %d, %d filters, %+v: image %d [%d, %d] = %v, want %v", gi, filters, fin, n, f, p, v, want)
							}
						}
					}
					// The gap between outputs is not written.
					for i := filters * plane; i < outStride && n < images-1; i++ {
						if v := got[n*outStride+i]; v == v {
							t.Fatalf("geom %d: image %d wrote past its output, at %d", gi, n, i)
						}
					}
				}
			}
		}
	}
	// NaN stays NaN through relu and the cap.
	g := directGeoms()[0]
	plane := g.OutH() * g.OutW()
	nan := make([]float32, g.Channels*g.InH*g.InW)
	for i := range nan {
		nan[i] = float32(math.NaN())
	}
	out := make([]float32, 6*plane)
	ConvForwardDirect(g, 6, 1, nan, 0, make([]float32, 6*g.colRows()), &Epilogue[float32]{Relu: true, Capped: true, Cap: 6}, out, 0)
	for i, v := range out {
		if v == v {
			t.Fatalf("a NaN image gave %v at %d", v, i)
		}
	}
	// A residual laid out otherwise than the output, or a bias per
	// column, is declined.
	for _, ep := range []*Epilogue[float32]{{Add: make([]float32, 6*plane+1), AddStride: plane + 1}, {ColBias: make([]float32, plane)}} {
		if ConvForwardDirect(g, 6, 1, make([]float32, g.Channels*g.InH*g.InW), 0, make([]float32, 6*g.colRows()), ep, make([]float32, 6*plane), 0) {
			t.Errorf("an epilogue %+v was taken", *ep)
		}
	}
}

// directGeoms are the geometries the direct kernels are checked on:
// LeNet's two layers, and others with padding, dilation, a vertical
// stride, rows longer than a vector, narrow rows in pairs with an odd
// row left over, and a single output row.
func directGeoms() []ConvGeom {
	return []ConvGeom{
		{Channels: 1, InH: 28, InW: 28, KernelH: 5, KernelW: 5, StrideH: 1, StrideW: 1, DilateH: 1, DilateW: 1},
		{Channels: 6, InH: 12, InW: 12, KernelH: 5, KernelW: 5, StrideH: 1, StrideW: 1, DilateH: 1, DilateW: 1},
		{Channels: 2, InH: 9, InW: 37, KernelH: 3, KernelW: 3, StrideH: 2, StrideW: 1, PadH: 1, PadW: 2, DilateH: 1, DilateW: 2},
		// Pointwise: runs of 16 cross the rows; planes of 25, 9 and 32.
		{Channels: 3, InH: 5, InW: 5, KernelH: 1, KernelW: 1, StrideH: 1, StrideW: 1, DilateH: 1, DilateW: 1},
		{Channels: 7, InH: 3, InW: 3, KernelH: 1, KernelW: 1, StrideH: 1, StrideW: 1, DilateH: 1, DilateW: 1},
		{Channels: 9, InH: 4, InW: 8, KernelH: 1, KernelW: 1, StrideH: 1, StrideW: 1, DilateH: 1, DilateW: 1},
		{Channels: 1, InH: 1, InW: 20, KernelH: 1, KernelW: 4, StrideH: 1, StrideW: 1, PadW: 3, DilateH: 1, DilateW: 1},
		{Channels: 2, InH: 11, InW: 7, KernelH: 3, KernelW: 2, StrideH: 2, StrideW: 1, PadH: 1, DilateH: 1, DilateW: 1},
		// Images the direct forward takes in more than one chunk
		// (convFwdChunkElems), the last one short.
		{Channels: 48, InH: 37, InW: 41, KernelH: 1, KernelW: 1, StrideH: 1, StrideW: 1, DilateH: 1, DilateW: 1},
		{Channels: 128, InH: 24, InW: 24, KernelH: 3, KernelW: 3, StrideH: 1, StrideW: 1, PadH: 1, PadW: 1, DilateH: 1, DilateW: 1},
	}
}

// forwardGeoms are the geometries the direct forward is checked on: the
// direct kernels', and others at a stride of 2 along the width, where it
// reads an image with its columns split: MobileNet's and ResNet's stems,
// dilation, narrow rows in pairs, a 1x1 kernel, odd and even widths.
func forwardGeoms() []ConvGeom {
	return append(directGeoms(),
		ConvGeom{Channels: 3, InH: 23, InW: 29, KernelH: 3, KernelW: 3, StrideH: 2, StrideW: 2, PadH: 1, PadW: 1, DilateH: 1, DilateW: 1},
		ConvGeom{Channels: 3, InH: 30, InW: 36, KernelH: 7, KernelW: 7, StrideH: 2, StrideW: 2, PadH: 3, PadW: 3, DilateH: 1, DilateW: 1},
		ConvGeom{Channels: 2, InH: 9, InW: 37, KernelH: 3, KernelW: 3, StrideH: 1, StrideW: 2, PadH: 1, PadW: 2, DilateH: 1, DilateW: 2},
		ConvGeom{Channels: 4, InH: 13, InW: 13, KernelH: 3, KernelW: 3, StrideH: 2, StrideW: 2, PadH: 1, PadW: 1, DilateH: 1, DilateW: 1},
		ConvGeom{Channels: 5, InH: 9, InW: 10, KernelH: 1, KernelW: 1, StrideH: 2, StrideW: 2, DilateH: 1, DilateW: 1},
		ConvGeom{Channels: 20, InH: 56, InW: 56, KernelH: 3, KernelW: 3, StrideH: 2, StrideW: 2, PadH: 1, PadW: 1, DilateH: 1, DilateW: 1},
		// Segments ending in blocks of three: 13 (one block of four,
		// three of three), 14 (two and two), and 14 in two chunks, the
		// blocks of three with the last.
		ConvGeom{Channels: 5, InH: 10, InW: 20, KernelH: 1, KernelW: 1, StrideH: 1, StrideW: 1, DilateH: 1, DilateW: 1},
		ConvGeom{Channels: 7, InH: 14, InW: 14, KernelH: 3, KernelW: 3, StrideH: 1, StrideW: 1, PadH: 1, PadW: 1, DilateH: 1, DilateW: 1},
		ConvGeom{Channels: 130, InH: 14, InW: 14, KernelH: 3, KernelW: 3, StrideH: 1, StrideW: 1, PadH: 1, PadW: 1, DilateH: 1, DilateW: 1},
	)
}

// TestFilterGroups: the direct forward's groups of filters cover each
// filter once, but for the overlapping last six, and take four only
// where the table has no two-row segments.
func TestFilterGroups(t *testing.T) {
	for filters := 6; filters <= 70; filters++ {
		for _, twoRow := range []bool{false, true} {
			sixes, fours, tail := filterGroups(filters, twoRow)
			if twoRow && fours > 0 {
				t.Fatalf("%d filters: groups of four on a table with two-row segments", filters)
			}
			groups := sixes + fours
			if tail {
				groups++
			}
			seen := make([]int, filters)
			for q := range groups {
				f, n := filterGroup(filters, sixes, fours, q)
				if n != 6 && n != 4 || f < 0 || f+n > filters {
					t.Fatalf("%d filters: group %d is %d from %d", filters, q, n, f)
				}
				for i := f; i < f+n; i++ {
					seen[i]++
				}
			}
			for i, c := range seen {
				if c == 0 || c > 1 && !tail {
					t.Fatalf("%d filters (two-row %v): filter %d is in %d groups", filters, twoRow, i, c)
				}
			}
			if wantFours := filters%6 != 0 && filters%2 == 0 && !twoRow; (fours > 0) != wantFours {
				t.Errorf("%d filters (two-row %v): %d groups of four", filters, twoRow, fours)
			}
		}
	}
}

// TestDirectTablesCacheBound: the direct kernels' table cache is emptied
// when it grows past its bound.
func TestDirectTablesCacheBound(t *testing.T) {
	for i := range tableCacheMax + 10 {
		wgradTableFor(ConvGeom{Channels: 1, InH: 3, InW: 8 + i, KernelH: 2, KernelW: 2, StrideH: 1, StrideW: 1, DilateH: 1, DilateW: 1})
	}
	if n := wgradCache.len(); n > tableCacheMax {
		t.Fatalf("the cache holds %d geometries, more than %d", n, tableCacheMax)
	}
}

// TestDirectForwardBlocks checks how the direct forward's segments are
// cut into blocks: of four while they go evenly, then up to three blocks
// of three, with as few empty segments as the two sizes allow.
func TestDirectForwardBlocks(t *testing.T) {
	for _, tc := range []struct {
		h, w, k, fours, total int
	}{
		{4, 64, 1, 16, 16},  // 16 segments
		{10, 20, 1, 4, 13},  // 13: 4 + 3*3
		{14, 14, 3, 8, 14},  // 14 rows of 14: 2*4 + 2*3
		{15, 16, 1, 12, 15}, // 15: 3*4 + 3
		{5, 5, 1, 0, 3},     // 2: one block of three
		{5, 16, 1, 0, 6},    // 5: two blocks of three
	} {
		g := ConvGeom{Channels: 1, InH: tc.h, InW: tc.w, KernelH: tc.k, KernelW: tc.k, StrideH: 1, StrideW: 1, PadH: tc.k / 2, PadW: tc.k / 2, DilateH: 1, DilateW: 1}
		tb := newWgradTable(g)
		if tb.fwdFours != tc.fours || len(tb.fwdSegs) != tc.total {
			t.Errorf("%dx%d: %d segments in blocks of four, %d in all; want %d and %d", tc.h, tc.w, tb.fwdFours, len(tb.fwdSegs), tc.fours, tc.total)
		}
	}
}
