package ops

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hybridgo/hybridgo/accel"
)

// TestConvPackedMatchesBlocked checks the small-image convolution path
// (column matrix packed directly, bias and relu per tile) against the
// blocked im2col + Gemm path, with and without bias and relu.
func TestConvPackedMatchesBlocked(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	cases := []struct {
		data      Shape
		kernel    Tuple
		f, groups int
		stride    Tuple
		pad, dil  Tuple
	}{
		{Shape{16, 1, 28, 28}, Tuple{5, 5}, 6, 1, nil, nil, nil},  // LeNet conv1
		{Shape{16, 6, 12, 12}, Tuple{5, 5}, 16, 1, nil, nil, nil}, // LeNet conv2
		{Shape{1, 3, 9, 7}, Tuple{3, 3}, 5, 1, Tuple{2, 1}, Tuple{1, 1}, nil},
		{Shape{2, 4, 6, 11}, Tuple{3, 2}, 6, 2, Tuple{1, 2}, Tuple{2, 0}, Tuple{1, 2}},
		{Shape{3, 2, 5, 5}, Tuple{1, 1}, 3, 1, nil, nil, nil},
		{Shape{2, 3, 1, 17}, Tuple{1, 4}, 7, 1, Tuple{1, 3}, Tuple{0, 2}, nil},
		{Shape{1, 1, 2, 2}, Tuple{3, 3}, 2, 1, nil, Tuple{2, 2}, nil},
	}
	for ci, tc := range cases {
		a := &ConvolutionAttrs{Kernel: tc.kernel, Stride: tc.stride, Pad: tc.pad, Dilate: tc.dil, NumFilter: tc.f, NumGroup: tc.groups}
		p := a.plan(tc.data)
		x := make([]float32, tc.data.Size())
		w := make([]float32, tc.f*p.colRows())
		b := make([]float32, tc.f)
		for _, s := range [][]float32{x, w, b} {
			for i := range s {
				s[i] = float32(r.Float64()*2 - 1)
			}
		}
		n := p.batch * p.groups * p.mapsSize()
		for _, withBias := range []bool{false, true} {
			for _, relu := range []bool{false, true} {
				var bias []float32
				if withBias {
					bias = b
				}
				want := make([]float32, n)
				got := make([]float32, n)
				for i := range got {
					got[i] = float32(math.NaN())
				}
				convBlocked(p, x, w, want, convPost[float32]{bias: bias, relu: relu})
				convPacked(p, x, w, got, convPost[float32]{bias: bias, relu: relu})
				name := fmt.Sprintf("case %d bias %v relu %v", ci, withBias, relu)
				negatives := false
				for i := range want {
					if math.Abs(float64(got[i]-want[i])) > 1e-5*(1+math.Abs(float64(want[i]))) {
						t.Fatalf("%s: [%d] = %v, want %v", name, i, got[i], want[i])
					}
					negatives = negatives || want[i] < 0
				}
				if relu && negatives {
					t.Fatalf("%s: relu left negative values", name)
				}
			}
		}
	}
}

// TestConvWeightGradPackedMatchesBlocked checks the weight gradient with
// the column matrix packed transposed against the blocked im2col + Gemm
// path, with batches that do and do not split evenly over workers.
func TestConvWeightGradPackedMatchesBlocked(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 36))
	cases := []struct {
		data      Shape
		kernel    Tuple
		f, groups int
		stride    Tuple
		pad, dil  Tuple
	}{
		{Shape{16, 1, 28, 28}, Tuple{5, 5}, 6, 1, nil, nil, nil},
		{Shape{5, 6, 12, 12}, Tuple{5, 5}, 16, 1, nil, nil, nil},
		{Shape{1, 3, 9, 7}, Tuple{3, 3}, 5, 1, Tuple{2, 1}, Tuple{1, 1}, nil},
		{Shape{3, 4, 6, 11}, Tuple{3, 2}, 6, 2, Tuple{1, 2}, Tuple{2, 0}, Tuple{1, 2}},
		{Shape{2, 3, 1, 17}, Tuple{1, 4}, 7, 1, Tuple{1, 3}, Tuple{0, 2}, nil},
	}
	saved := packedConvMax
	defer func() { packedConvMax = saved }()
	for ci, tc := range cases {
		a := &ConvolutionAttrs{Kernel: tc.kernel, Stride: tc.stride, Pad: tc.pad, Dilate: tc.dil, NumFilter: tc.f, NumGroup: tc.groups}
		p := a.plan(tc.data)
		x := make([]float32, tc.data.Size())
		gy := make([]float32, p.batch*p.groups*p.mapsSize())
		for _, s := range [][]float32{x, gy} {
			for i := range s {
				s[i] = float32(r.Float64()*2 - 1)
			}
		}
		n := p.groups * p.maps * p.colRows()
		want, got := make([]float32, n), make([]float32, n)
		packedConvMax = 0
		convWeightGrad(p, gy, x, want)
		packedConvMax = saved
		convWeightGrad(p, gy, x, got)
		for i := range want {
			if math.Abs(float64(got[i]-want[i])) > 1e-4*(1+math.Abs(float64(want[i]))) {
				t.Fatalf("case %d: [%d] = %v, want %v", ci, i, got[i], want[i])
			}
		}
	}
}

// TestConvWeightGradSmallPlanes checks where the weight gradient takes
// the direct kernel: not for small output planes with many lane sums (a
// ResNet's last stages), which take the column matrix and Gemm, with
// images side by side along the product's depth (sideBySide); and where
// Winograd's algorithm (a batch of 14x13 planes); where dW is computed
// transposed (a stem's few filters of many taps). Every way the gradient
// equals the direct kernel's where the CPU has it, and a naive sum
// everywhere.
func TestConvWeightGradSmallPlanes(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 38))
	cases := []struct {
		data   Shape
		f      int
		stride Tuple
		direct bool // directWeightGradPays
		kernel int
	}{
		{Shape{3, 64, 4, 4}, 64, nil, false, 3},          // 4x4 plane, 2.4 MB of lane sums
		{Shape{2, 48, 7, 5}, 40, nil, false, 3},          // 7x5
		{Shape{2, 8, 7, 5}, 7, nil, true, 3},             // few lane sums
		{Shape{2, 16, 14, 15}, 12, nil, true, 3},         // 14x15 plane
		{Shape{2, 64, 9, 9}, 64, Tuple{2, 2}, false, 3},  // 5x5
		{Shape{9, 64, 4, 4}, 64, nil, false, 3},          // several images side by side in each run
		{Shape{45, 64, 4, 4}, 40, nil, false, 3},         // more than one product's worth in a run
		{Shape{7, 48, 3, 3}, 64, nil, false, 3},          // 3x3: seven images to a product
		{Shape{6, 320, 4, 4}, 64, nil, false, 1},         // 1x1: the images are their column matrices
		{Shape{8, 6, 14, 13}, 5, nil, true, 3},           // Winograd's: 16 tiles in a batch of 8
		{Shape{2, 3, 112, 111}, 9, Tuple{2, 2}, true, 7}, // a stem: dW transposed (wgradSwapped)
	}
	for ci, tc := range cases {
		pad := (tc.kernel - 1) / 2
		a := &ConvolutionAttrs{Kernel: Tuple{tc.kernel, tc.kernel}, Stride: tc.stride, Pad: Tuple{pad, pad}, NumFilter: tc.f, NumGroup: 1}
		p := a.plan(tc.data)
		if got := directWeightGradPays(p.geom, p.maps); got != tc.direct {
			t.Errorf("case %d: directWeightGradPays = %v, want %v", ci, got, tc.direct)
		}
		wantWino := tc.data[0] == 8 && accel.WinogradWeightGradFast[float32]()
		if got := wgradWinogradPays[float32](p); got != wantWino {
			t.Errorf("case %d: wgradWinogradPays = %v, want %v", ci, got, wantWino)
		}
		x := make([]float32, tc.data.Size())
		gy := make([]float32, p.batch*p.mapsSize())
		for _, s := range [][]float32{x, gy} {
			for i := range s {
				s[i] = float32(r.Float64()*2 - 1)
			}
		}
		k := p.colRows()
		got := make([]float32, p.maps*k)
		convWeightGrad(p, gy, x, got)
		g := p.geom
		oh, ow := g.OutH(), g.OutW()
		for f := range p.maps {
			for tap := range k {
				c, kh, kw := tap/(g.KernelH*g.KernelW), tap/g.KernelW%g.KernelH, tap%g.KernelW
				var want float64
				for n := range p.batch {
					for y := range oh {
						for xx := range ow {
							iy, ix := y*g.StrideH-g.PadH+kh, xx*g.StrideW-g.PadW+kw
							if iy < 0 || iy >= g.InH || ix < 0 || ix >= g.InW {
								continue
							}
							want += float64(gy[(n*p.maps+f)*oh*ow+y*ow+xx]) * float64(x[((n*g.Channels+c)*g.InH+iy)*g.InW+ix])
						}
					}
				}
				if d := math.Abs(float64(got[f*k+tap]) - want); d > 1e-4*(1+math.Abs(want)) {
					t.Fatalf("case %d: dw[%d][%d] = %v, want %v", ci, f, tap, got[f*k+tap], want)
				}
			}
		}
		direct := make([]float32, p.maps*k)
		if accel.ConvWeightGradDirect(g, p.maps, p.batch, x, p.imageSize(), gy, p.mapsSize(), direct) {
			for i := range direct {
				if math.Abs(float64(got[i]-direct[i])) > 1e-4*(1+math.Abs(float64(direct[i]))) {
					t.Fatalf("case %d: [%d] = %v, the direct kernel's %v", ci, i, got[i], direct[i])
				}
			}
		}
	}
}

// TestFusedReluOps checks the fused layer ops against the layer followed
// by relu, in float32 and float64, on outputs that start as NaN.
func TestFusedReluOps(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	for _, dt := range []DType{Float32, Float64} {
		for _, tc := range []struct {
			op    *Op
			attrs map[string]string
			in    []Shape
		}{
			{opConvolution, map[string]string{"kernel": "(3, 3)", "num_filter": "4", "pad": "(1, 1)"}, []Shape{{2, 3, 5, 6}, {4, 3, 3, 3}, {4}}},
			{opConvolution, map[string]string{"kernel": "(2,)", "num_filter": "2", "no_bias": "True"}, []Shape{{1, 3, 7}, {2, 3, 2}}},
			{opFullyConnected, map[string]string{"num_hidden": "7"}, []Shape{{1, 9}, {7, 9}, {7}}},
			{opFullyConnected, map[string]string{"num_hidden": "5"}, []Shape{{6, 2, 3}, {5, 6}, {5}}},
			{opFullyConnected, map[string]string{"num_hidden": "3", "no_bias": "True"}, []Shape{{3, 4}, {3, 4}}},
		} {
			attrs, err := tc.op.ParseAttrs(tc.attrs)
			if err != nil {
				t.Fatal(err)
			}
			in := make([]Value, len(tc.in))
			for i, s := range tc.in {
				xs := make([]float64, s.Size())
				for j := range xs {
					xs[j] = r.Float64()*2 - 1
				}
				in[i] = Value{Data: FromFloat64s(dt, xs), Shape: s, DType: dt}
			}
			outShapes, _, err := tc.op.InferShape(attrs, tc.in)
			if err != nil {
				t.Fatal(err)
			}
			mk := func() Value {
				return Value{Data: MakeData(dt, outShapes[0].Size()), Shape: outShapes[0], DType: dt}
			}
			plain, fused := mk(), mk()
			// The fused kernel writes every element: a reused buffer
			// holding NaN must not show through.
			nans := make([]float64, outShapes[0].Size())
			for i := range nans {
				nans[i] = math.NaN()
			}
			fused.Data = FromFloat64s(dt, nans)
			if err := tc.op.Forward(nil, attrs, in, []Value{plain}); err != nil {
				t.Fatal(err)
			}
			if err := WithRelu(tc.op).Forward(nil, attrs, in, []Value{fused}); err != nil {
				t.Fatal(err)
			}
			p, f := plain.Float64s(), fused.Float64s()
			for i := range p {
				if want := max(p[i], 0); f[i] != want {
					t.Fatalf("%v %s %v: [%d] = %v, want %v", dt, tc.op.Name(), tc.attrs, i, f[i], want)
				}
			}
		}
	}
	if WithRelu(opRelu) != nil {
		t.Error("WithRelu(relu) is not nil")
	}
}
