package ops_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

// geom2 is a 2-D window; 1-D cases use H=1 with a kernel of height 1.
type geom2 struct {
	kh, kw, sh, sw, ph, pw, dh, dw int
}

// randArray returns an array of the given shape with values in [-1, 1).
func randArray(r *rand.Rand, shape ...int) *eager.NDArray {
	n := 1
	for _, d := range shape {
		n *= d
	}
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = 2*r.Float64() - 1
	}
	return eager.Array(xs, shape...)
}

// naiveConv is the textbook definition of a grouped 2-D convolution of
// x (n, c, h, w) with w (f, c/groups, kh, kw) and an optional bias.
func naiveConv(x []float64, n, c, h, wd int, w []float64, f, groups int, b []float64, g geom2) ([]float64, int, int) {
	oh := (h+2*g.ph-g.dh*(g.kh-1)-1)/g.sh + 1
	ow := (wd+2*g.pw-g.dw*(g.kw-1)-1)/g.sw + 1
	cg, fg := c/groups, f/groups
	y := make([]float64, n*f*oh*ow)
	for in := 0; in < n; in++ {
		for of := 0; of < f; of++ {
			grp := of / fg
			for i := 0; i < oh; i++ {
				for j := 0; j < ow; j++ {
					s := 0.0
					if b != nil {
						s = b[of]
					}
					for ci := 0; ci < cg; ci++ {
						for a := 0; a < g.kh; a++ {
							for bb := 0; bb < g.kw; bb++ {
								yy := i*g.sh - g.ph + a*g.dh
								xx := j*g.sw - g.pw + bb*g.dw
								if yy < 0 || yy >= h || xx < 0 || xx >= wd {
									continue
								}
								ch := grp*cg + ci
								s += x[((in*c+ch)*h+yy)*wd+xx] * w[((of*cg+ci)*g.kh+a)*g.kw+bb]
							}
						}
					}
					y[((in*f+of)*oh+i)*ow+j] = s
				}
			}
		}
	}
	return y, oh, ow
}

// naiveDeconv scatters every input element through the kernel: the
// definition of a grouped transposed convolution with output size oh x ow.
func naiveDeconv(x []float64, n, c, h, wd int, w []float64, f, groups int, b []float64, g geom2, oh, ow int) []float64 {
	cg, fg := c/groups, f/groups
	y := make([]float64, n*f*oh*ow)
	for in := 0; in < n; in++ {
		for ch := 0; ch < c; ch++ {
			grp := ch / cg
			for i := 0; i < h; i++ {
				for j := 0; j < wd; j++ {
					v := x[((in*c+ch)*h+i)*wd+j]
					for of := 0; of < fg; of++ {
						for a := 0; a < g.kh; a++ {
							for bb := 0; bb < g.kw; bb++ {
								yy := i*g.sh - g.ph + a*g.dh
								xx := j*g.sw - g.pw + bb*g.dw
								if yy < 0 || yy >= oh || xx < 0 || xx >= ow {
									continue
								}
								y[((in*f+grp*fg+of)*oh+yy)*ow+xx] += v * w[((ch*fg+of)*g.kh+a)*g.kw+bb]
							}
						}
					}
				}
			}
		}
	}
	if b != nil {
		for i := range y {
			y[i] += b[(i/(oh*ow))%f]
		}
	}
	return y
}

func tupleOf(oneD bool, h, w int) []int {
	if oneD {
		return []int{w}
	}
	return []int{h, w}
}

func assertClose(t *testing.T, name string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %d values, want %d", name, len(got), len(want))
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > tol*(1+math.Abs(want[i])) {
			t.Fatalf("%s: [%d] = %v, want %v", name, i, got[i], want[i])
		}
	}
}

var convCases = []struct {
	name               string
	n, c, h, w, f, grp int
	g                  geom2
	oneD, bias         bool
}{
	{name: "basic", n: 2, c: 3, h: 6, w: 5, f: 4, grp: 1, g: geom2{3, 3, 1, 1, 0, 0, 1, 1}, bias: true},
	{name: "stride-pad", n: 2, c: 2, h: 7, w: 8, f: 3, grp: 1, g: geom2{3, 3, 2, 2, 1, 1, 1, 1}},
	{name: "asymmetric", n: 1, c: 2, h: 9, w: 7, f: 5, grp: 1, g: geom2{2, 3, 3, 1, 1, 2, 1, 1}, bias: true},
	{name: "dilate", n: 2, c: 3, h: 8, w: 8, f: 2, grp: 1, g: geom2{3, 2, 1, 2, 2, 0, 2, 3}, bias: true},
	{name: "groups", n: 3, c: 4, h: 5, w: 5, f: 6, grp: 2, g: geom2{3, 3, 1, 1, 1, 1, 1, 1}, bias: true},
	{name: "depthwise", n: 2, c: 3, h: 5, w: 6, f: 3, grp: 3, g: geom2{3, 3, 2, 1, 1, 1, 1, 1}},
	{name: "1x1", n: 2, c: 5, h: 3, w: 4, f: 7, grp: 1, g: geom2{1, 1, 1, 1, 0, 0, 1, 1}, bias: true},
	{name: "1x1-groups", n: 2, c: 4, h: 3, w: 3, f: 6, grp: 2, g: geom2{1, 1, 1, 1, 0, 0, 1, 1}},
	{name: "1-D", n: 2, c: 3, h: 1, w: 9, f: 4, grp: 1, g: geom2{1, 3, 1, 2, 0, 1, 1, 1}, oneD: true, bias: true},
	{name: "1-D-groups-dilate", n: 3, c: 4, h: 1, w: 10, f: 2, grp: 2, g: geom2{1, 3, 1, 1, 0, 2, 1, 2}, oneD: true},
	{name: "big-batch", n: 9, c: 2, h: 6, w: 6, f: 3, grp: 1, g: geom2{3, 3, 1, 1, 1, 1, 1, 1}, bias: true},
}

func convAttrs(oneD bool, g geom2, grp int) []ops.Attr {
	return []ops.Attr{
		{Name: "stride", Value: tupleOf(oneD, g.sh, g.sw)},
		{Name: "pad", Value: tupleOf(oneD, g.ph, g.pw)},
		{Name: "dilate", Value: tupleOf(oneD, g.dh, g.dw)},
		{Name: "num_group", Value: grp},
	}
}

func dataShape(oneD bool, n, c, h, w int) []int {
	if oneD {
		return []int{n, c, w}
	}
	return []int{n, c, h, w}
}

func TestConvolutionKnownAnswers(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range convCases {
		x := randArray(r, dataShape(tc.oneD, tc.n, tc.c, tc.h, tc.w)...)
		w := randArray(r, dataShape(tc.oneD, tc.f, tc.c/tc.grp, tc.g.kh, tc.g.kw)...)
		var b *eager.NDArray
		var bias ops.Tensor
		var bv []float64
		if tc.bias {
			b = randArray(r, tc.f)
			bias, bv = b, b.Float64s()
		}
		want, oh, ow := naiveConv(x.Float64s(), tc.n, tc.c, tc.h, tc.w, w.Float64s(), tc.f, tc.grp, bv, tc.g)
		for _, dt := range []ops.DType{ops.Float64, ops.Float32} {
			in := []ops.Tensor{x.AsType(dt), w.AsType(dt)}
			if bias != nil {
				bias = b.AsType(dt)
			}
			y := eager.F.Convolution(in[0], in[1], bias, tupleOf(tc.oneD, tc.g.kh, tc.g.kw), tc.f, convAttrs(tc.oneD, tc.g, tc.grp)...)
			if s := y.Shape(); !s.Equal(ops.Shape(dataShape(tc.oneD, tc.n, tc.f, oh, ow))) {
				t.Fatalf("%s: shape %v, want %v", tc.name, s, dataShape(tc.oneD, tc.n, tc.f, oh, ow))
			}
			tol := 1e-12
			if dt == ops.Float32 {
				tol = 1e-5
			}
			assertClose(t, fmt.Sprintf("%s %v", tc.name, dt), y.Float64s(), want, tol)
		}
	}
}

func TestDeconvolutionKnownAnswers(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, tc := range convCases {
		// Deconvolve from the convolution's output size back to its input
		// size: adj restores what the stride skipped.
		_, oh, ow := naiveConv(make([]float64, tc.n*tc.c*tc.h*tc.w), tc.n, tc.c, tc.h, tc.w, make([]float64, tc.f*tc.c/tc.grp*tc.g.kh*tc.g.kw), tc.f, tc.grp, nil, tc.g)
		adjH := (tc.h + 2*tc.g.ph - tc.g.dh*(tc.g.kh-1) - 1) % tc.g.sh
		adjW := (tc.w + 2*tc.g.pw - tc.g.dw*(tc.g.kw-1) - 1) % tc.g.sw
		// Here the deconvolution's data has tc.f channels and its output tc.c.
		x := randArray(r, dataShape(tc.oneD, tc.n, tc.f, oh, ow)...)
		w := randArray(r, dataShape(tc.oneD, tc.f, tc.c/tc.grp, tc.g.kh, tc.g.kw)...)
		var bias ops.Tensor
		var bv []float64
		if tc.bias {
			b := randArray(r, tc.c)
			bias, bv = b, b.Float64s()
		}
		want := naiveDeconv(x.Float64s(), tc.n, tc.f, oh, ow, w.Float64s(), tc.c, tc.grp, bv, tc.g, tc.h, tc.w)
		attrs := append(convAttrs(tc.oneD, tc.g, tc.grp), ops.Attr{Name: "adj", Value: tupleOf(tc.oneD, adjH, adjW)})
		y := eager.F.Deconvolution(x, w, bias, tupleOf(tc.oneD, tc.g.kh, tc.g.kw), tc.c, attrs...)
		if s := y.Shape(); !s.Equal(ops.Shape(dataShape(tc.oneD, tc.n, tc.c, tc.h, tc.w))) {
			t.Fatalf("%s: shape %v, want %v", tc.name, s, dataShape(tc.oneD, tc.n, tc.c, tc.h, tc.w))
		}
		assertClose(t, tc.name, y.Float64s(), want, 1e-12)
	}
}

func TestDeconvolutionTargetShape(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	x := randArray(r, 1, 2, 3, 3)
	w := randArray(r, 2, 3, 3, 3)
	for _, target := range [][]int{{5, 5}, {6, 7}, {7, 7}} {
		y := eager.F.Deconvolution(x, w, nil, []int{3, 3}, 3, ops.Attr{Name: "stride", Value: []int{2, 2}}, ops.Attr{Name: "target_shape", Value: target})
		if s := y.Shape(); !s.Equal(ops.Shape{1, 3, target[0], target[1]}) {
			t.Errorf("target_shape %v: got shape %v", target, s)
		}
		// MXNet's rule: total = stride*(in-1) + kernel - target, pad = ceil(total/2), adj = total%2.
		th, tw := 2*2+3-target[0], 2*2+3-target[1]
		g := geom2{kh: 3, kw: 3, sh: 2, sw: 2, ph: (th + 1) / 2, pw: (tw + 1) / 2, dh: 1, dw: 1}
		want := naiveDeconv(x.Float64s(), 1, 2, 3, 3, w.Float64s(), 3, 1, nil, g, target[0], target[1])
		assertClose(t, fmt.Sprint(target), y.Float64s(), want, 1e-12)
	}
}

// TestConvolutionGradients checks the gradient rules against the
// transposed definitions on a case with every feature at once.
func TestConvolutionGradients(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	g := geom2{3, 2, 2, 1, 1, 1, 1, 2}
	x := randArray(r, 2, 4, 7, 6)
	w := randArray(r, 6, 2, 3, 2)
	b := randArray(r, 6)
	for _, v := range []*eager.NDArray{x, w, b} {
		v.AttachGrad()
	}
	var y ops.Tensor
	eager.Record(func() {
		y = eager.F.Convolution(x, w, b, []int{3, 2}, 6, convAttrs(false, g, 2)...)
	})
	gy := randArray(r, y.Shape()...)
	if err := y.(*eager.NDArray).Backward(gy); err != nil {
		t.Fatal(err)
	}
	// dL/dx is the transposed convolution of gy.
	oh, ow := y.Shape()[2], y.Shape()[3]
	wantX := naiveDeconv(gy.Float64s(), 2, 6, oh, ow, w.Float64s(), 4, 2, nil, g, 7, 6)
	assertClose(t, "d/dx", x.Grad().Float64s(), wantX, 1e-12)
	// dL/dw[f, c, a, b] = sum of gy * the input that tap multiplies;
	// computed by convolving with one-hot weights.
	wantW := make([]float64, w.Size())
	xs, gys := x.Float64s(), gy.Float64s()
	for i := range wantW {
		onehot := make([]float64, w.Size())
		onehot[i] = 1
		yi, _, _ := naiveConv(xs, 2, 4, 7, 6, onehot, 6, 2, nil, g)
		for j := range yi {
			wantW[i] += yi[j] * gys[j]
		}
	}
	assertClose(t, "d/dw", w.Grad().Float64s(), wantW, 1e-12)
	wantB := make([]float64, 6)
	for i, v := range gys {
		wantB[(i/(oh*ow))%6] += v
	}
	assertClose(t, "d/db", b.Grad().Float64s(), wantB, 1e-12)
}

func TestConvolutionInfersParameterShapes(t *testing.T) {
	op := ops.MustLookup("Convolution")
	attrs, err := op.ParseAttrs(map[string]string{"kernel": "(5, 5)", "num_filter": "6", "num_group": "3", "stride": "(2, 2)"})
	if err != nil {
		t.Fatal(err)
	}
	for _, weight := range []ops.Shape{{}, {6, 0, 5, 5}, {0, 0, 0, 0}} {
		out, filled, err := op.InferShape(attrs, []ops.Shape{{16, 3, 28, 28}, weight, {}})
		if err != nil {
			t.Fatalf("weight %v: %v", weight, err)
		}
		if !out[0].Equal(ops.Shape{16, 6, 12, 12}) || !filled[1].Equal(ops.Shape{6, 1, 5, 5}) || !filled[2].Equal(ops.Shape{6}) {
			t.Errorf("weight %v: out %v, weight %v, bias %v", weight, out[0], filled[1], filled[2])
		}
	}
	// The data's channels can come from the weight; an unknown batch stays unknown.
	out, filled, err := op.InferShape(attrs, []ops.Shape{{0, 0, 28, 28}, {6, 1, 5, 5}, {6}})
	if err != nil || !out[0].Equal(ops.Shape{0, 6, 12, 12}) || filled[0][1] != 3 {
		t.Errorf("unknown data dims: out %v, data %v, err %v", out, filled, err)
	}

	deconv := ops.MustLookup("Deconvolution")
	attrs, err = deconv.ParseAttrs(map[string]string{"kernel": "(4, 4)", "num_filter": "8", "stride": "(2, 2)", "pad": "(1, 1)"})
	if err != nil {
		t.Fatal(err)
	}
	out, filled, err = deconv.InferShape(attrs, []ops.Shape{{2, 16, 7, 7}, {0, 0, 4, 4}})
	if err != nil || !out[0].Equal(ops.Shape{2, 8, 14, 14}) || !filled[1].Equal(ops.Shape{16, 8, 4, 4}) {
		t.Errorf("deconvolution: out %v, weight %v, err %v", out, filled, err)
	}
}

func TestConvolutionErrors(t *testing.T) {
	conv := ops.MustLookup("Convolution")
	deconv := ops.MustLookup("Deconvolution")
	cases := []struct {
		op     *ops.Op
		attrs  map[string]string
		shapes []ops.Shape
		want   []string // substrings of the message
	}{
		{conv, map[string]string{"kernel": "(5, 5)", "num_filter": "6"},
			[]ops.Shape{{16, 3, 28, 28}, {6, 1, 5, 5}, {6}},
			[]string{"Convolution: data 16x3x28x28 has 3 channels, weight 6x1x5x5 expects 1 (num_group=1)", "kernel=(5, 5)", "num_filter=6"}},
		{conv, map[string]string{"kernel": "(3, 3)", "num_filter": "4", "num_group": "2"},
			[]ops.Shape{{1, 6, 8, 8}, {4, 2, 3, 3}, {4}},
			[]string{"data 1x6x8x8 has 6 channels, weight 4x2x3x3 expects 4 (num_group=2)", "num_group=2"}},
		{conv, map[string]string{"kernel": "(3, 3)", "num_filter": "4", "num_group": "2"},
			[]ops.Shape{{1, 5, 8, 8}, {4, 0, 3, 3}, {4}},
			[]string{"data 1x5x8x8 has 5 channels, which num_group=2 does not divide"}},
		{conv, map[string]string{"kernel": "(5, 5)", "num_filter": "6"},
			[]ops.Shape{{1, 1, 4, 6}, {6, 1, 5, 5}, {6}},
			[]string{"kernel (5, 5) with dilate (1, 1) spans 5x5, larger than data 1x1x4x6 padded to 4x6 (pad (0, 0))", "inputs: data 1x1x4x6"}},
		{conv, map[string]string{"kernel": "(3, 3)", "num_filter": "6", "dilate": "(4, 4)", "pad": "(1, 1)"},
			[]ops.Shape{{1, 1, 5, 5}, {6, 1, 3, 3}, {6}},
			[]string{"spans 9x9, larger than data 1x1x5x5 padded to 7x7"}},
		{conv, map[string]string{"kernel": "(5, 5)", "num_filter": "6"},
			[]ops.Shape{{1, 1, 28, 28}, {8, 1, 5, 5}, {6}},
			[]string{"weight 8x1x5x5 has 8 filters, num_filter=6"}},
		{conv, map[string]string{"kernel": "(5, 5)", "num_filter": "6"},
			[]ops.Shape{{1, 1, 28, 28}, {6, 1, 3, 3}, {6}},
			[]string{"weight 6x1x3x3 has a 3x3 kernel, kernel=(5, 5)"}},
		{conv, map[string]string{"kernel": "(5, 5)", "num_filter": "6"},
			[]ops.Shape{{1, 1, 28, 28}, {6, 1, 5, 5}, {5}},
			[]string{"bias 5 does not match num_filter=6"}},
		{conv, map[string]string{"kernel": "(5, 5)", "num_filter": "6"},
			[]ops.Shape{{1, 28, 28}, {6, 1, 5, 5}, {6}},
			[]string{"data 1x28x28 must be NCHW (4 dims) for kernel (5, 5)"}},
		{conv, map[string]string{"kernel": "(3, 3)", "num_filter": "6", "layout": "NHWC"}, nil,
			[]string{"Convolution: layout NHWC is not supported", "NCHW"}},
		{conv, map[string]string{"kernel": "(3, 3, 3)", "num_filter": "6"}, nil,
			[]string{"kernel (3, 3, 3) is 3-D; only 1-D (NCW) and 2-D (NCHW)"}},
		{conv, map[string]string{"kernel": "(3, 3)", "num_filter": "6", "num_group": "4"}, nil,
			[]string{"num_filter=6 is not divisible by num_group=4"}},
		{conv, map[string]string{"kernel": "(3, 3)", "num_filter": "6", "stride": "(2,)"}, nil,
			[]string{"stride (2,) must have 2 values like kernel (3, 3)"}},
		{conv, map[string]string{"num_filter": "6"}, nil, []string{"attribute kernel is required"}},
		{deconv, map[string]string{"kernel": "(3, 3)", "num_filter": "2", "stride": "(2, 2)", "adj": "(2, 2)"}, nil,
			[]string{"Deconvolution: adj (2, 2) must be at least 0 and below stride (2, 2)"}},
		{deconv, map[string]string{"kernel": "(3, 3)", "num_filter": "2"},
			[]ops.Shape{{1, 4, 5, 5}, {3, 2, 3, 3}},
			[]string{"Deconvolution: data 1x4x5x5 has 4 channels, weight 3x2x3x3 expects 3 (num_group=1)"}},
		{deconv, map[string]string{"kernel": "(3, 3)", "num_filter": "2", "stride": "(2, 2)", "target_shape": "(9, 9)"},
			[]ops.Shape{{1, 4, 3, 3}, {4, 2, 3, 3}},
			[]string{"target_shape (9, 9) is larger than data 1x4x3x3 can give", "at most 7"}},
	}
	for _, tc := range cases {
		attrs, err := tc.op.ParseAttrs(tc.attrs)
		if err == nil {
			_, _, err = tc.op.InferShape(attrs, tc.shapes)
		}
		if err == nil {
			t.Errorf("%v %v: no error, want %q", tc.attrs, tc.shapes, tc.want)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v %v:\n got %v\nwant %q", tc.attrs, tc.shapes, err, w)
			}
		}
	}
}

// TestConvolutionPanicsWithError checks F's contract: bad input panics
// with an *ops.Error.
func TestConvolutionPanicsWithError(t *testing.T) {
	defer func() {
		r := recover()
		e, ok := r.(*ops.Error)
		if !ok || e.Op != "Convolution" || !strings.Contains(e.Msg, "expects 1") {
			t.Errorf("recovered %v", r)
		}
	}()
	eager.F.Convolution(eager.Zeros(2, 3, 8, 8), eager.Zeros(4, 1, 3, 3), nil, []int{3, 3}, 4)
}

func ExampleF_Convolution() {
	x := eager.Arange(0, 16, 1).AsType(ops.Float32)
	x = eager.F.Reshape(x, 1, 1, 4, 4).(*eager.NDArray)
	w := eager.Ones(1, 1, 2, 2)
	b := eager.Array([]float32{0.5})
	y := eager.F.Convolution(x, w, b, []int{2, 2}, 1, ops.Attr{Name: "stride", Value: []int{2, 2}})
	fmt.Println(y)
	// Output:
	// [[[[10.5 18.5]
	//    [42.5 50.5]]]]
	// <NDArray 1x1x2x2 @cpu(0)>
}

func ExampleF_Deconvolution() {
	x := eager.Array([]float32{1, 2}, 1, 1, 2)
	w := eager.Array([]float32{1, 10, 100}, 1, 1, 3)
	y := eager.F.Deconvolution(x, w, nil, []int{3}, 1, ops.Attr{Name: "stride", Value: []int{2}})
	fmt.Println(y)
	// Output:
	// [[[  1.  10. 102.  20. 200.]]]
	// <NDArray 1x1x5 @cpu(0)>
}

// lenetConvLayers are the two convolutions of MXNet's LeNet: input
// channels, image side, filters and kernel side.
var lenetConvLayers = []struct {
	name        string
	c, hw, f, k int
}{
	{"conv1-1x28x28-6x5x5", 1, 28, 6, 5},
	{"conv2-6x12x12-16x5x5", 6, 12, 16, 5},
}

// BenchmarkConvolutionLeNet times the forward of LeNet's two convolutions
// on a batch of 16 in float32.
func BenchmarkConvolutionLeNet(b *testing.B) {
	const batch = 16
	r := rand.New(rand.NewPCG(9, 10))
	for _, l := range lenetConvLayers {
		b.Run(l.name, func(b *testing.B) {
			x := randArray(r, batch, l.c, l.hw, l.hw).AsType(ops.Float32)
			w := randArray(r, l.f, l.c, l.k, l.k).AsType(ops.Float32)
			bias := randArray(r, l.f).AsType(ops.Float32)
			out := l.hw - l.k + 1
			flops := 2.0 * batch * float64(l.f*out*out*l.c*l.k*l.k)
			b.ResetTimer()
			for b.Loop() {
				eager.F.Convolution(x, w, bias, []int{l.k, l.k}, l.f)
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkConvolutionLeNetGradients times the weight gradient and the
// data gradient (Deconvolution) of LeNet's two convolutions on a batch of
// 16 in float32: the backward half of a training step.
func BenchmarkConvolutionLeNetGradients(b *testing.B) {
	const batch = 16
	r := rand.New(rand.NewPCG(11, 12))
	wgrad := ops.MustLookup("_backward_Convolution_weight")
	for _, l := range lenetConvLayers {
		out := l.hw - l.k + 1
		x := randArray(r, batch, l.c, l.hw, l.hw).AsType(ops.Float32)
		w := randArray(r, l.f, l.c, l.k, l.k).AsType(ops.Float32)
		gy := randArray(r, batch, l.f, out, out).AsType(ops.Float32)
		flops := 2.0 * batch * float64(l.f*out*out*l.c*l.k*l.k)
		attrs, err := wgrad.ParseAttrs(map[string]string{"kernel": fmt.Sprintf("(%d, %d)", l.k, l.k), "num_filter": fmt.Sprint(l.f)})
		if err != nil {
			b.Fatal(err)
		}
		b.Run("weight/"+l.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := eager.Run(wgrad, attrs, gy, x); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		b.Run("data/"+l.name, func(b *testing.B) {
			for b.Loop() {
				eager.F.Deconvolution(gy, w, nil, []int{l.k, l.k}, l.c)
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
