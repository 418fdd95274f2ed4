package ops

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/hybridgo/hybridgo/accel"
)

// convNaive is the convolution forward by its definition, summed in
// float64: the reference of the algorithm tests.
func convNaive[T accel.Float](p convPlan, image, weight, bias []T, relu bool) []T {
	g := p.geom
	outH, outW := g.OutH(), g.OutW()
	out := make([]T, p.batch*p.groups*p.mapsSize())
	for n := range p.batch {
		for gr := range p.groups {
			img := image[(n*p.groups+gr)*p.imageSize():]
			for f := range p.maps {
				fi := gr*p.maps + f
				w := weight[fi*p.colRows():]
				for oh := range outH {
					for ow := range outW {
						var s float64
						if bias != nil {
							s = float64(bias[fi])
						}
						for c := range g.Channels {
							for kh := range g.KernelH {
								ih := oh*g.StrideH - g.PadH + kh*g.DilateH
								if ih < 0 || ih >= g.InH {
									continue
								}
								for kw := range g.KernelW {
									iw := ow*g.StrideW - g.PadW + kw*g.DilateW
									if iw < 0 || iw >= g.InW {
										continue
									}
									s += float64(w[(c*g.KernelH+kh)*g.KernelW+kw]) * float64(img[(c*g.InH+ih)*g.InW+iw])
								}
							}
						}
						if relu && s < 0 {
							s = 0
						}
						out[((n*p.groups+gr)*p.maps+f)*outH*outW+oh*outW+ow] = T(s)
					}
				}
			}
		}
	}
	return out
}

type algoCase struct {
	data      Shape
	kernel    Tuple
	f, groups int
	stride    Tuple
	pad       Tuple
}

// depthwiseCases are depthwise 3x3 convolutions of odd shapes.
var depthwiseCases = []algoCase{
	{Shape{1, 5, 7, 7}, Tuple{3, 3}, 5, 5, nil, Tuple{1, 1}},
	{Shape{3, 17, 9, 11}, Tuple{3, 3}, 17, 17, nil, Tuple{1, 1}},
	{Shape{2, 17, 9, 11}, Tuple{3, 3}, 17, 17, Tuple{2, 2}, Tuple{1, 1}},
	{Shape{1, 33, 1, 1}, Tuple{3, 3}, 33, 33, nil, Tuple{1, 1}},
	{Shape{2, 3, 1, 1}, Tuple{3, 3}, 3, 3, Tuple{2, 2}, Tuple{1, 1}},
	{Shape{1, 7, 15, 13}, Tuple{3, 3}, 7, 7, Tuple{2, 2}, Tuple{1, 1}},
	{Shape{2, 9, 14, 30}, Tuple{3, 3}, 9, 9, Tuple{2, 2}, Tuple{1, 1}},
	{Shape{1, 6, 8, 21}, Tuple{3, 3}, 6, 6, Tuple{2, 1}, Tuple{0, 2}},
	{Shape{1, 4, 5, 6}, Tuple{3, 3}, 4, 4, Tuple{1, 2}, nil},
	{Shape{1, 16, 28, 28}, Tuple{3, 3}, 16, 16, nil, Tuple{1, 1}},
	{Shape{1, 3, 7, 9}, Tuple{3, 3}, 3, 3, Tuple{2, 2}, nil},
	{Shape{2, 3, 8, 10}, Tuple{3, 3}, 3, 3, Tuple{2, 2}, Tuple{2, 2}},
	{Shape{1, 2, 5, 3}, Tuple{3, 3}, 2, 2, Tuple{3, 2}, Tuple{0, 1}},
	// planes read as they lie (unit stride, padding 1), rows of one to
	// three vectors of sixteen with and without a partial one
	{Shape{2, 6, 16, 16}, Tuple{3, 3}, 6, 6, nil, Tuple{1, 1}},
	{Shape{1, 4, 1, 16}, Tuple{3, 3}, 4, 4, nil, Tuple{1, 1}},
	{Shape{1, 3, 17, 2}, Tuple{3, 3}, 3, 3, nil, Tuple{1, 1}},
	{Shape{1, 5, 4, 17}, Tuple{3, 3}, 5, 5, nil, Tuple{1, 1}},
	{Shape{1, 2, 3, 32}, Tuple{3, 3}, 2, 2, nil, Tuple{1, 1}},
	{Shape{1, 3, 5, 47}, Tuple{3, 3}, 3, 3, nil, Tuple{1, 1}},
	// and at stride 2: odd and even sizes, rows of one to three segments
	// of sixteen outputs
	{Shape{2, 4, 14, 14}, Tuple{3, 3}, 4, 4, Tuple{2, 2}, Tuple{1, 1}},
	{Shape{1, 3, 7, 7}, Tuple{3, 3}, 3, 3, Tuple{2, 2}, Tuple{1, 1}},
	{Shape{1, 2, 1, 1}, Tuple{3, 3}, 2, 2, Tuple{2, 2}, Tuple{1, 1}},
	{Shape{1, 3, 6, 33}, Tuple{3, 3}, 3, 3, Tuple{2, 2}, Tuple{1, 1}},
	{Shape{1, 2, 9, 64}, Tuple{3, 3}, 2, 2, Tuple{2, 2}, Tuple{1, 1}},
	{Shape{1, 2, 4, 70}, Tuple{3, 3}, 2, 2, Tuple{2, 2}, Tuple{1, 1}},
}

// pointwiseCases are 1x1 convolutions of odd shapes.
var pointwiseCases = []algoCase{
	{Shape{1, 3, 7, 7}, Tuple{1, 1}, 5, 1, nil, nil},
	{Shape{3, 17, 1, 1}, Tuple{1, 1}, 13, 1, nil, nil},
	{Shape{2, 6, 9, 11}, Tuple{1, 1}, 10, 2, nil, nil},
	{Shape{2, 33, 13, 17}, Tuple{1, 1}, 19, 1, nil, nil},
	{Shape{1, 20, 40, 41}, Tuple{1, 1}, 7, 1, nil, nil},
}

// checkAlgo compares algorithm algo on the cases with convNaive, in T,
// with and without bias and relu, and with the algorithm convAlgoFor
// chooses.
func checkAlgo[T accel.Float](t *testing.T, algo convAlgo, cases []algoCase, tol float64) {
	t.Helper()
	r := rand.New(rand.NewPCG(41, 42))
	for ci, tc := range cases {
		a := &ConvolutionAttrs{Kernel: tc.kernel, Stride: tc.stride, Pad: tc.pad, NumFilter: tc.f, NumGroup: tc.groups}
		p := a.plan(tc.data)
		if algo == algoDirect && !accel.ConvDirectApplies[T](p.geom, p.maps) {
			continue
		}
		x := make([]T, tc.data.Size())
		w := make([]T, tc.f*p.colRows())
		b := make([]T, tc.f)
		for _, s := range [][]T{x, w, b} {
			for i := range s {
				s[i] = T(r.Float64()*2 - 1)
			}
		}
		raw := convNaive(p, x, w, nil, false)
		for pi, post := range convPosts(r, p, b) {
			want := refPost(p, raw, post)
			for _, chosen := range []bool{false, true} {
				got := make([]T, len(want))
				for i := range got {
					got[i] = T(math.NaN())
				}
				if chosen {
					convForward(p, x, w, got, post)
				} else {
					convForwardWith(algo, p, x, w, got, post)
				}
				name := fmt.Sprintf("%T case %d %v post %d chosen %v", x, ci, tc.data, pi, chosen)
				for i := range want {
					if !(math.Abs(float64(got[i]-want[i])) <= tol*(1+math.Abs(float64(want[i])))) { // NaN fails
						t.Fatalf("%s: [%d] = %v, want %v", name, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// convPosts are the post-product steps the algorithms are checked with:
// none, a bias, relu, both, and an inference BatchNorm's scale and shift
// with and without a residual and relu.
func convPosts[T accel.Float](r *rand.Rand, p convPlan, bias []T) []convPost[T] {
	filters := p.groups * p.maps
	rnd := func(n int) []T {
		v := make([]T, n)
		for i := range v {
			v[i] = T(r.Float64()*2 - 1)
		}
		return v
	}
	outLen := p.batch * p.groups * p.mapsSize()
	return []convPost[T]{
		{}, {bias: bias}, {relu: true}, {bias: bias, relu: true},
		{scale: rnd(filters), bias: rnd(filters)},
		{scale: rnd(filters), bias: rnd(filters), residual: rnd(outLen), relu: true},
		{residual: rnd(outLen), relu: true},
		{scale: rnd(filters), bias: rnd(filters), relu: true, capped: true, cap: 0.5},
		{bias: rnd(filters), residual: rnd(outLen), relu: true, capped: true, cap: 0.5},
	}
}

// refPost applies post to the raw convolution output, in float64.
func refPost[T accel.Float](p convPlan, raw []T, post convPost[T]) []T {
	out := make([]T, len(raw))
	plane := p.colCols()
	for i, v := range raw {
		f := (i / plane) % (p.groups * p.maps)
		s := float64(v)
		if post.scale != nil {
			s *= float64(post.scale[f])
		}
		if post.bias != nil {
			s += float64(post.bias[f])
		}
		if post.residual != nil {
			s += float64(post.residual[i])
		}
		if post.relu && s < 0 {
			s = 0
		}
		if post.capped && s > float64(post.cap) {
			s = float64(post.cap)
		}
		out[i] = T(s)
	}
	return out
}

// generalCases are convolutions of odd shapes for the packed, blocked and
// direct algorithms: strides, padding, groups, 1x1 and 7x7 kernels.
var generalCases = []algoCase{
	{Shape{2, 3, 9, 7}, Tuple{3, 3}, 5, 1, Tuple{2, 2}, Tuple{1, 1}},
	{Shape{1, 4, 11, 13}, Tuple{3, 3}, 6, 2, nil, Tuple{1, 1}},
	{Shape{1, 3, 15, 15}, Tuple{7, 7}, 17, 1, Tuple{2, 2}, Tuple{3, 3}},
	{Shape{2, 17, 7, 7}, Tuple{1, 1}, 13, 1, Tuple{2, 2}, nil},
	{Shape{3, 8, 9, 11}, Tuple{1, 1}, 6, 2, Tuple{3, 2}, nil}, // subsampled, then at unit stride
	{Shape{1, 20, 6, 6}, Tuple{3, 3}, 33, 1, nil, Tuple{1, 1}},
	{Shape{7, 6, 7, 7}, Tuple{3, 3}, 10, 2, nil, Tuple{1, 1}}, // 7x7 planes: five side by side, then two
	{Shape{18, 8, 4, 4}, Tuple{3, 3}, 12, 1, nil, Tuple{1, 1}},
}

func TestConvPostMatchesReference(t *testing.T) {
	for _, algo := range []convAlgo{algoPacked, algoBlocked, algoDirect, algoSideBySide} {
		checkAlgo[float32](t, algo, generalCases, 1e-5)
		checkAlgo[float64](t, algo, generalCases, 1e-12)
	}
}

func TestConvDepthwiseMatchesReference(t *testing.T) {
	for _, tc := range depthwiseCases {
		p := (&ConvolutionAttrs{Kernel: tc.kernel, Stride: tc.stride, Pad: tc.pad, NumFilter: tc.f, NumGroup: tc.groups}).plan(tc.data)
		if got := convAlgoFor[float32](p); got != algoDepthwise {
			t.Fatalf("%v: algorithm %d, want depthwise", tc.data, got)
		}
	}
	checkAlgo[float32](t, algoDepthwise, depthwiseCases, 1e-5)
	checkAlgo[float64](t, algoDepthwise, depthwiseCases, 1e-12)
}

// winogradCases are 3x3 convolutions at unit stride: partial tiles,
// paddings 0 to 2, and one that convAlgoFor gives to Winograd's algorithm
// where the CPU has its vector transforms.
var winogradCases = []algoCase{
	{Shape{2, 5, 9, 7}, Tuple{3, 3}, 6, 1, nil, Tuple{1, 1}},
	{Shape{1, 3, 7, 5}, Tuple{3, 3}, 4, 1, nil, nil},
	{Shape{1, 17, 30, 29}, Tuple{3, 3}, 20, 1, nil, Tuple{2, 2}},
	{Shape{1, 5, 33, 38}, Tuple{3, 3}, 7, 1, nil, Tuple{1, 1}}, // one image, blocks spread over the workers
	{Shape{16, 16, 28, 28}, Tuple{3, 3}, 16, 1, nil, Tuple{1, 1}},
}

func TestConvWinogradMatchesReference(t *testing.T) {
	checkAlgo[float32](t, algoWinograd, winogradCases, 1e-4)
	checkAlgo[float64](t, algoWinograd, winogradCases, 1e-12)
	last := winogradCases[len(winogradCases)-1]
	p := (&ConvolutionAttrs{Kernel: last.kernel, Pad: last.pad, NumFilter: last.f, NumGroup: 1}).plan(last.data)
	if got, fast := convAlgoFor[float32](p), accel.WinogradFast[float32](); (got == algoWinograd) != fast {
		t.Errorf("%v: algorithm %d with vector transforms %v", last.data, got, fast)
	}
	if got := convAlgoFor[float64](p); got == algoWinograd {
		t.Errorf("%v in float64: Winograd's algorithm chosen", last.data)
	}
}

// planesCases are convolutions whose output maps are whole 7x7 planes
// (49 or 196 positions): filters not a multiple of seven, groups, a
// batch, stride 2, paddings 0 to 3, a 7x7 kernel and a depth past one
// block of the product.
var planesCases = []algoCase{
	{Shape{1, 13, 7, 7}, Tuple{3, 3}, 9, 1, nil, Tuple{1, 1}},
	{Shape{1, 5, 14, 14}, Tuple{3, 3}, 8, 1, Tuple{2, 2}, Tuple{1, 1}},
	{Shape{1, 6, 28, 28}, Tuple{3, 3}, 15, 1, Tuple{2, 2}, Tuple{1, 1}},
	{Shape{1, 4, 9, 9}, Tuple{3, 3}, 7, 1, nil, nil},
	{Shape{2, 8, 7, 7}, Tuple{3, 3}, 14, 2, nil, Tuple{1, 1}},
	{Shape{1, 3, 13, 13}, Tuple{7, 7}, 10, 1, Tuple{2, 2}, Tuple{3, 3}},
	{Shape{1, 60, 28, 28}, Tuple{3, 3}, 9, 1, Tuple{2, 2}, Tuple{1, 1}},
}

func TestConvPlanesMatchesReference(t *testing.T) {
	checkAlgo[float32](t, algoPlanes, planesCases, 1e-5)
	checkAlgo[float64](t, algoPlanes, planesCases, 1e-12)
}

// TestConvAlgoForResNet checks the algorithms chosen for ResNet-18's
// layers with 7x7 and 14x14 outputs at batch 1: whole planes where the
// CPU has their kernel, except the 3x3 convolutions of 14x14 at unit
// stride, which the direct kernel computes faster (and Winograd's
// algorithm in a batch of 16).
func TestConvAlgoForResNet(t *testing.T) {
	for _, tc := range []struct {
		data   Shape
		a      ConvolutionAttrs
		planes bool
	}{
		{Shape{1, 512, 7, 7}, ConvolutionAttrs{Kernel: Tuple{3, 3}, Pad: Tuple{1, 1}, NumFilter: 512, NumGroup: 1}, true},
		{Shape{1, 256, 14, 14}, ConvolutionAttrs{Kernel: Tuple{3, 3}, Stride: Tuple{2, 2}, Pad: Tuple{1, 1}, NumFilter: 512, NumGroup: 1}, true},
		{Shape{1, 128, 28, 28}, ConvolutionAttrs{Kernel: Tuple{3, 3}, Stride: Tuple{2, 2}, Pad: Tuple{1, 1}, NumFilter: 256, NumGroup: 1}, true},
		{Shape{1, 256, 14, 14}, ConvolutionAttrs{Kernel: Tuple{3, 3}, Pad: Tuple{1, 1}, NumFilter: 256, NumGroup: 1}, false},
	} {
		p := tc.a.plan(tc.data)
		got := convAlgoFor[float32](p)
		want := tc.planes && accel.TakesPlanes[float32](p.maps, p.colCols(), p.colRows())
		if (got == algoPlanes) != want {
			t.Errorf("%v %v stride %v: algorithm %d, planes wanted: %v", tc.data, tc.a.Kernel, tc.a.Stride, got, want)
		}
	}
	// In a batch of 16, the 3x3 convolutions of 14x14 take Winograd's
	// algorithm (16 tiles an image).
	a := ConvolutionAttrs{Kernel: Tuple{3, 3}, Pad: Tuple{1, 1}, NumFilter: 256, NumGroup: 1}
	if got, want := convAlgoFor[float32](a.plan(Shape{16, 256, 14, 14})) == algoWinograd, accel.WinogradFast[float32](); got != want {
		t.Errorf("batch 16 of 256x14x14: Winograd %v, want %v", got, want)
	}
	// Those of 7x7 too, several images to a block; at batch 1 not, nor
	// those of 4x4.
	a.NumFilter = 512
	if got, want := convAlgoFor[float32](a.plan(Shape{16, 512, 7, 7})) == algoWinograd, accel.WinogradFast[float32](); got != want {
		t.Errorf("batch 16 of 512x7x7: Winograd %v, want %v", got, want)
	}
	if convAlgoFor[float32](a.plan(Shape{1, 512, 7, 7})) == algoWinograd || convAlgoFor[float32](a.plan(Shape{16, 512, 4, 4})) == algoWinograd {
		t.Error("512x7x7 at batch 1 or 512x4x4 at batch 16 takes Winograd's algorithm")
	}
}

func TestConvPointwiseMatchesReference(t *testing.T) {
	checkAlgo[float32](t, algoPointwise, pointwiseCases, 1e-5)
	checkAlgo[float32](t, algoDirect, pointwiseCases, 1e-5) // the path chosen for 1x1 where the CPU has it
	checkAlgo[float64](t, algoPointwise, pointwiseCases, 1e-12)
}

// stridedCases are convolutions at a stride of 2 that the direct kernel
// takes on an image with its columns split: stems of 3x3 and 7x7 kernels
// on odd and even sizes, a batch, groups, narrow outputs.
var stridedCases = []algoCase{
	{Shape{2, 3, 23, 29}, Tuple{3, 3}, 8, 1, Tuple{2, 2}, Tuple{1, 1}},
	{Shape{1, 3, 30, 36}, Tuple{7, 7}, 10, 1, Tuple{2, 2}, Tuple{3, 3}},
	{Shape{1, 4, 13, 13}, Tuple{3, 3}, 12, 2, Tuple{2, 2}, Tuple{1, 1}},
	{Shape{1, 3, 64, 64}, Tuple{3, 3}, 32, 1, Tuple{2, 2}, Tuple{1, 1}},
}

// TestConvDirectStridedMatchesReference checks the direct kernel at a
// stride of 2 against the reference, and that it is chosen for
// MobileNet v2's and ResNet's stems where the CPU has it.
func TestConvDirectStridedMatchesReference(t *testing.T) {
	checkAlgo[float32](t, algoDirect, stridedCases, 1e-5)
	for _, tc := range []struct {
		data Shape
		a    ConvolutionAttrs
	}{
		{Shape{1, 3, 224, 224}, ConvolutionAttrs{Kernel: Tuple{3, 3}, Stride: Tuple{2, 2}, Pad: Tuple{1, 1}, NumFilter: 32, NumGroup: 1}},
		{Shape{1, 3, 224, 224}, ConvolutionAttrs{Kernel: Tuple{7, 7}, Stride: Tuple{2, 2}, Pad: Tuple{3, 3}, NumFilter: 64, NumGroup: 1}},
	} {
		p := tc.a.plan(tc.data)
		if got, want := convAlgoFor[float32](p) == algoDirect, accel.ConvDirectApplies[float32](p.geom, p.maps); got != want {
			t.Errorf("%v %v stride 2: direct %v, want %v", tc.data, tc.a.Kernel, got, want)
		}
	}
}

// TestConvAlgoForMobileNet checks the algorithms chosen for MobileNet v2's
// layers.
func TestConvAlgoForMobileNet(t *testing.T) {
	for _, tc := range []struct {
		data Shape
		a    ConvolutionAttrs
		want convAlgo
	}{
		{Shape{1, 32, 112, 112}, ConvolutionAttrs{Kernel: Tuple{3, 3}, Pad: Tuple{1, 1}, NumFilter: 32, NumGroup: 32}, algoDepthwise},
		{Shape{1, 96, 112, 112}, ConvolutionAttrs{Kernel: Tuple{3, 3}, Stride: Tuple{2, 2}, Pad: Tuple{1, 1}, NumFilter: 96, NumGroup: 96}, algoDepthwise},
		{Shape{1, 3, 112, 112}, ConvolutionAttrs{Kernel: Tuple{1, 1}, NumFilter: 4, NumGroup: 1}, algoPointwise},
		{Shape{1, 160, 7, 7}, ConvolutionAttrs{Kernel: Tuple{1, 1}, NumFilter: 960, NumGroup: 1}, algoPointwise},
	} {
		if got := convAlgoFor[float32](tc.a.plan(tc.data)); got != tc.want {
			t.Errorf("%v %v: algorithm %d, want %d", tc.data, tc.a.Kernel, got, tc.want)
		}
	}
}

// BenchmarkConvAlgo times each algorithm at MobileNet v2's shapes (batch
// 1, float32): "before" is the algorithm chosen before the depthwise and
// pointwise paths, "after" the new one (the same, the direct kernel, for
// 16->96 and 320->1280 on CPUs with AVX-512).
func BenchmarkConvAlgo(b *testing.B) {
	for _, tc := range []struct {
		name string
		data Shape
		a    ConvolutionAttrs
	}{
		{"dw32x112s1", Shape{1, 32, 112, 112}, ConvolutionAttrs{Kernel: Tuple{3, 3}, Pad: Tuple{1, 1}, NumFilter: 32, NumGroup: 32}},
		{"dw96x112s2", Shape{1, 96, 112, 112}, ConvolutionAttrs{Kernel: Tuple{3, 3}, Stride: Tuple{2, 2}, Pad: Tuple{1, 1}, NumFilter: 96, NumGroup: 96}},
		{"pw16to96x112", Shape{1, 16, 112, 112}, ConvolutionAttrs{Kernel: Tuple{1, 1}, NumFilter: 96, NumGroup: 1}},
		{"pw320to1280x7", Shape{1, 320, 7, 7}, ConvolutionAttrs{Kernel: Tuple{1, 1}, NumFilter: 1280, NumGroup: 1}},
		{"pw32to16x112", Shape{1, 32, 112, 112}, ConvolutionAttrs{Kernel: Tuple{1, 1}, NumFilter: 16, NumGroup: 1}},
		{"pw144to24x56", Shape{1, 144, 56, 56}, ConvolutionAttrs{Kernel: Tuple{1, 1}, NumFilter: 24, NumGroup: 1}},
		{"stem3to32x224s2", Shape{1, 3, 224, 224}, ConvolutionAttrs{Kernel: Tuple{3, 3}, Stride: Tuple{2, 2}, Pad: Tuple{1, 1}, NumFilter: 32, NumGroup: 1}},
		{"stem3to64x224k7s2", Shape{1, 3, 224, 224}, ConvolutionAttrs{Kernel: Tuple{7, 7}, Stride: Tuple{2, 2}, Pad: Tuple{3, 3}, NumFilter: 64, NumGroup: 1}},
	} {
		p := tc.a.plan(tc.data)
		x := make([]float32, tc.data.Size())
		w := make([]float32, tc.a.NumFilter*p.colRows())
		bias := make([]float32, tc.a.NumFilter)
		for i := range x {
			x[i] = float32(i%7) - 3
		}
		for i := range w {
			w[i] = float32(i%5) - 2
		}
		y := make([]float32, p.batch*p.groups*p.mapsSize())
		before := algoPacked
		switch k, cols := p.colRows(), p.colCols(); {
		case accel.PackedBLen[float32](k, cols) > packedConvMax:
			before = algoBlocked
		case accel.ConvDirectApplies[float32](p.geom, p.maps):
			before = algoDirect
		}
		after := convAlgoFor[float32](p)
		// Interleaved, so that a change in the machine's load hits both.
		for round := range 2 {
			for _, v := range []struct {
				name string
				algo convAlgo
			}{{"before", before}, {"after", after}} {
				b.Run(fmt.Sprintf("%s/%s/%d", tc.name, v.name, round), func(b *testing.B) {
					for b.Loop() {
						convForwardWith(v.algo, p, x, w, y, convPost[float32]{bias: bias})
					}
				})
			}
		}
	}
}

// TestConvPostAllocatesNothing checks that a warm convolution allocates
// nothing with every post-product step, on each algorithm, the pass after
// the depthwise kernel included.
func TestConvPostAllocatesNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(49, 50))
	for _, c := range []struct {
		algo convAlgo
		tc   algoCase
	}{
		{algoDepthwise, depthwiseCases[1]},
		{algoDepthwise, depthwiseCases[2]}, // at stride 2
		{algoDirect, pointwiseCases[3]},
		{algoPacked, generalCases[0]},
		{algoBlocked, generalCases[0]},
		{algoPointwise, pointwiseCases[3]},
		{algoWinograd, winogradCases[0]},
		{algoSideBySide, generalCases[5]},
		{algoPlanes, planesCases[0]},
		{algoPlanes, planesCases[2]},
	} {
		tc := c.tc
		p := (&ConvolutionAttrs{Kernel: tc.kernel, Stride: tc.stride, Pad: tc.pad, NumFilter: tc.f, NumGroup: tc.groups}).plan(tc.data)
		if c.algo == algoDirect && !accel.ConvDirectApplies[float32](p.geom, p.maps) {
			continue
		}
		x := make([]float32, tc.data.Size())
		w := make([]float32, tc.f*p.colRows())
		y := make([]float32, p.batch*p.groups*p.mapsSize())
		for pi, post := range convPosts(r, p, make([]float32, tc.f)) {
			run := func() { convForwardWith(c.algo, p, x, w, y, post) }
			run()
			if allocs := testing.AllocsPerRun(10, run); allocs != 0 {
				t.Errorf("algorithm %d, %v, post %d: %v allocations per call", c.algo, tc.data, pi, allocs)
			}
		}
	}
}

// TestWinogradFilterCache checks that Winograd's transformed filters
// are reused only while the filters hold the values they were made from:
// the filters change in place between calls, and every call must match
// the reference for the values it was given. A call in training mode
// leaves the cache alone.
func TestWinogradFilterCache(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	tc := winogradCases[0]
	p := (&ConvolutionAttrs{Kernel: tc.kernel, Stride: tc.stride, Pad: tc.pad, NumFilter: tc.f, NumGroup: tc.groups}).plan(tc.data)
	x := make([]float32, tc.data.Size())
	w := make([]float32, tc.f*p.colRows())
	for i := range x {
		x[i] = float32(r.Float64()*2 - 1)
	}
	key := filterKey{first: uintptr(unsafe.Pointer(&w[0])), n: len(w), maps: p.maps, channels: p.geom.Channels}
	cached := func() *filterEntry {
		filterCache.Lock()
		defer filterCache.Unlock()
		return filterCache.entries[key]
	}
	for step := range 9 {
		training := step == 8
		if step%3 == 0 || training { // the same values for a few calls, then new ones
			for i := range w {
				w[i] = float32(r.Float64()*2 - 1)
			}
		}
		want := convNaive(p, x, w, nil, false)
		got := make([]float32, len(want))
		convForwardWith(algoWinograd, p, x, w, got, convPost[float32]{cache: !training})
		for i := range want {
			if math.Abs(float64(got[i]-want[i])) > 1e-4*(1+math.Abs(float64(want[i]))) {
				t.Fatalf("call %d: [%d] = %v, want %v", step, i, got[i], want[i])
			}
		}
		if step == 7 {
			if e := cached(); e == nil || e.out == nil {
				t.Fatal("filters seen on two calls in a row are not cached")
			}
		}
	}
	// The training-mode call had new values: the entry is still the last
	// one made outside training.
	if e := cached(); e == nil || e.out == nil || sameBits(e.values.([]float32), w) {
		t.Error("a training-mode call changed the cache")
	}
}

// TestDeconvByConv checks the 3x3 deconvolutions at unit stride that
// are computed as convolutions (a convolution's data gradient), by
// Winograd's algorithm and with images side by side, against the
// products' path, with paddings 0 to 2 and a bias.
func TestDeconvByConv(t *testing.T) {
	r := rand.New(rand.NewPCG(53, 54))
	for _, tc := range []struct {
		data     Shape
		filters  int
		pad      Tuple
		wantWino bool
	}{
		{Shape{2, 12, 28, 28}, 8, Tuple{1, 1}, true},
		{Shape{1, 5, 24, 23}, 7, Tuple{2, 2}, true},
		{Shape{1, 3, 30, 17}, 4, nil, true},
		{Shape{1, 3, 5, 5}, 4, Tuple{1, 1}, false}, // too few tiles
		{Shape{9, 6, 4, 4}, 5, Tuple{1, 1}, false},
		{Shape{5, 4, 3, 5}, 6, nil, false},
		{Shape{8, 4, 14, 14}, 3, Tuple{1, 1}, true}, // 16 tiles in a batch of 8
		{Shape{4, 4, 14, 14}, 3, Tuple{1, 1}, false},
	} {
		a := &DeconvolutionAttrs{Kernel: Tuple{3, 3}, Pad: tc.pad, NumFilter: tc.filters, NumGroup: 1}
		p, err := a.plan(tc.data)
		if err != nil {
			t.Fatal(err)
		}
		q, ok := deconvAsConv(p)
		if got := ok && winogradPays[float32](q); got != (tc.wantWino && accel.WinogradFast[float32]()) {
			t.Errorf("%v: Winograd chosen %v", tc.data, got)
		}
		x := make([]float32, tc.data.Size())
		w := make([]float32, tc.data[1]*tc.filters*9)
		bias := make([]float32, tc.filters)
		for _, s := range [][]float32{x, w, bias} {
			for i := range s {
				s[i] = float32(r.Float64()*2 - 1)
			}
		}
		size := p.batch * p.geom.Channels * p.geom.InH * p.geom.InW
		want, got := make([]float32, size), make([]float32, size)
		deconvGemm(p, x, w, bias, want)
		for _, algo := range []convAlgo{algoWinograd, algoSideBySide} {
			deconvByConv(algo, q, x, w, bias, got)
			for i := range want {
				if math.Abs(float64(got[i]-want[i])) > 1e-4*(1+math.Abs(float64(want[i]))) {
					t.Fatalf("%v, algorithm %d: [%d] = %v, want %v", tc.data, algo, i, got[i], want[i])
				}
			}
		}
	}
}

// TestDeconvSideBySide checks the products of images side by side
// against one image at a time, for data gradients of small planes: at
// stride 2, with groups, a 1x1 kernel (no column matrix), a bias, and
// more images than one product takes.
func TestDeconvSideBySide(t *testing.T) {
	r := rand.New(rand.NewPCG(55, 56))
	for _, tc := range []struct {
		data           Shape
		filters, group int
		kernel, stride Tuple
	}{
		{Shape{16, 8, 4, 4}, 6, 1, Tuple{3, 3}, Tuple{2, 2}},
		{Shape{5, 6, 3, 3}, 4, 2, Tuple{3, 3}, Tuple{1, 1}},
		{Shape{12, 4, 7, 7}, 5, 1, Tuple{1, 1}, Tuple{2, 2}},
		{Shape{7, 3, 2, 5}, 4, 1, Tuple{3, 3}, Tuple{2, 2}},
	} {
		a := &DeconvolutionAttrs{Kernel: tc.kernel, Stride: tc.stride, NumFilter: tc.filters, NumGroup: tc.group}
		p, err := a.plan(tc.data)
		if err != nil {
			t.Fatal(err)
		}
		x := make([]float32, tc.data.Size())
		w := make([]float32, tc.data[1]*tc.filters/tc.group*tc.kernel[0]*tc.kernel[1])
		bias := make([]float32, tc.filters)
		for _, s := range [][]float32{x, w, bias} {
			for i := range s {
				s[i] = float32(r.Float64()*2 - 1)
			}
		}
		size := p.batch * p.groups * p.imageSize()
		want, got := make([]float32, size), make([]float32, size)
		ap, alen := packFilters(p, w, true)
		(&deconvForwardLoop[float32]{p, x, *ap, bias, want, alen}).Range(0, p.batch)
		deconvSideBySide(p, x, *ap, alen, bias, got)
		putScratch(ap)
		for i := range want {
			if math.Abs(float64(got[i]-want[i])) > 1e-5*(1+math.Abs(float64(want[i]))) {
				t.Fatalf("%v: [%d] = %v, want %v", tc.data, i, got[i], want[i])
			}
		}
	}
}
