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

// naivePool pools planes of h x w following MXNet's definition: window
// (i, j) covers rows [i*sh-ph, i*sh-ph+kh) clipped to the padded input for
// its size and to the input for its elements.
func naivePool(x []float64, planes, h, w, oh, ow int, g geom2, poolType string, countPad bool) []float64 {
	y := make([]float64, planes*oh*ow)
	for p := 0; p < planes; p++ {
		for i := 0; i < oh; i++ {
			for j := 0; j < ow; j++ {
				h0, w0 := i*g.sh-g.ph, j*g.sw-g.pw
				h1, w1 := min(h0+g.kh, h+g.ph), min(w0+g.kw, w+g.pw)
				size := (h1 - h0) * (w1 - w0)
				h0, w0, h1, w1 = max(h0, 0), max(w0, 0), min(h1, h), min(w1, w)
				m, s, n := math.Inf(-1), 0.0, 0
				for a := h0; a < h1; a++ {
					for b := w0; b < w1; b++ {
						v := x[(p*h+a)*w+b]
						m, s, n = math.Max(m, v), s+v, n+1
					}
				}
				var v float64
				switch {
				case poolType == "max":
					v = m
				case poolType == "sum":
					v = s
				case countPad:
					v = s / float64(size)
				default:
					v = s / float64(n)
				}
				y[(p*oh+i)*ow+j] = v
			}
		}
	}
	return y
}

func TestPoolingKnownAnswers(t *testing.T) {
	cases := []struct {
		name               string
		n, c, h, w         int
		g                  geom2
		oneD, full, global bool
		poolType           string
		countPad           bool
		oh, ow             int
	}{
		{name: "max2x2", n: 2, c: 3, h: 4, w: 6, g: geom2{kh: 2, kw: 2, sh: 2, sw: 2}, poolType: "max", oh: 2, ow: 3},
		{name: "max3x3s1", n: 1, c: 2, h: 5, w: 5, g: geom2{kh: 3, kw: 3, sh: 1, sw: 1}, poolType: "max", oh: 3, ow: 3},
		{name: "max-pad", n: 1, c: 2, h: 5, w: 6, g: geom2{kh: 3, kw: 3, sh: 2, sw: 2, ph: 1, pw: 1}, poolType: "max", oh: 3, ow: 3},
		{name: "avg-pad-count", n: 2, c: 2, h: 5, w: 5, g: geom2{kh: 3, kw: 3, sh: 2, sw: 2, ph: 1, pw: 1}, poolType: "avg", countPad: true, oh: 3, ow: 3},
		{name: "avg-pad-nocount", n: 2, c: 2, h: 5, w: 5, g: geom2{kh: 3, kw: 3, sh: 2, sw: 2, ph: 1, pw: 1}, poolType: "avg", oh: 3, ow: 3},
		{name: "sum-asym", n: 1, c: 3, h: 6, w: 7, g: geom2{kh: 2, kw: 3, sh: 1, sw: 2, ph: 1, pw: 0}, poolType: "sum", oh: 7, ow: 3},
		{name: "max-full", n: 1, c: 2, h: 5, w: 6, g: geom2{kh: 2, kw: 2, sh: 2, sw: 2}, full: true, poolType: "max", oh: 3, ow: 3},
		{name: "avg-full-count", n: 1, c: 2, h: 6, w: 6, g: geom2{kh: 3, kw: 3, sh: 2, sw: 2}, full: true, poolType: "avg", countPad: true, oh: 3, ow: 3},
		{name: "avg-full-pad", n: 1, c: 1, h: 7, w: 5, g: geom2{kh: 3, kw: 2, sh: 2, sw: 2, ph: 1, pw: 1}, full: true, poolType: "avg", countPad: true, oh: 4, ow: 4},
		{name: "global-avg", n: 2, c: 3, h: 4, w: 5, g: geom2{kh: 4, kw: 5, sh: 1, sw: 1}, global: true, poolType: "avg", countPad: true, oh: 1, ow: 1},
		{name: "global-max", n: 2, c: 3, h: 3, w: 3, g: geom2{kh: 3, kw: 3, sh: 1, sw: 1}, global: true, poolType: "max", oh: 1, ow: 1},
		{name: "1-D-max", n: 2, c: 3, h: 1, w: 9, g: geom2{kh: 1, kw: 3, sh: 1, sw: 2}, oneD: true, poolType: "max", oh: 1, ow: 4},
		{name: "1-D-avg-full", n: 2, c: 2, h: 1, w: 8, g: geom2{kh: 1, kw: 3, sh: 1, sw: 2, pw: 1}, oneD: true, full: true, poolType: "avg", oh: 1, ow: 5},
		{name: "1-D-global-sum", n: 2, c: 2, h: 1, w: 6, g: geom2{kh: 1, kw: 6, sh: 1, sw: 1}, oneD: true, global: true, poolType: "sum", oh: 1, ow: 1},
	}
	r := rand.New(rand.NewPCG(11, 12))
	for _, tc := range cases {
		x := randArray(r, dataShape(tc.oneD, tc.n, tc.c, tc.h, tc.w)...)
		want := naivePool(x.Float64s(), tc.n*tc.c, tc.h, tc.w, tc.oh, tc.ow, tc.g, tc.poolType, tc.countPad)
		kernel := tupleOf(tc.oneD, tc.g.kh, tc.g.kw)
		attrs := []ops.Attr{
			{Name: "stride", Value: tupleOf(tc.oneD, tc.g.sh, tc.g.sw)},
			{Name: "pad", Value: tupleOf(tc.oneD, tc.g.ph, tc.g.pw)},
			{Name: "count_include_pad", Value: tc.countPad},
		}
		if tc.full {
			attrs = append(attrs, ops.Attr{Name: "pooling_convention", Value: "full"})
		}
		if tc.global {
			kernel = nil
			attrs = []ops.Attr{{Name: "global_pool", Value: true}}
		}
		for _, dt := range []ops.DType{ops.Float64, ops.Float32} {
			y := eager.F.Pooling(x.AsType(dt), kernel, tc.poolType, attrs...)
			if s := y.Shape(); !s.Equal(ops.Shape(dataShape(tc.oneD, tc.n, tc.c, tc.oh, tc.ow))) {
				t.Fatalf("%s: shape %v, want %v", tc.name, s, dataShape(tc.oneD, tc.n, tc.c, tc.oh, tc.ow))
			}
			tol := 1e-12
			if dt == ops.Float32 {
				tol = 1e-6
			}
			assertClose(t, fmt.Sprintf("%s %v", tc.name, dt), y.Float64s(), want, tol)
		}
	}
}

func TestPoolingGradients(t *testing.T) {
	// Max pooling sends each gradient to its window's first maximum.
	x := eager.Array([]float64{
		1, 3, 0, 0,
		3, 2, 0, 5,
		4, 4, 1, 1,
		4, 4, 1, 1}, 1, 1, 4, 4)
	x.AttachGrad()
	var y ops.Tensor
	eager.Record(func() { y = eager.F.Pooling(x, []int{2, 2}, "max", ops.Attr{Name: "stride", Value: []int{2, 2}}) })
	if err := y.(*eager.NDArray).Backward(eager.Array([]float64{10, 20, 30, 40}, 1, 1, 2, 2)); err != nil {
		t.Fatal(err)
	}
	assertClose(t, "max", x.Grad().Float64s(), []float64{
		0, 10, 0, 0,
		0, 0, 0, 20,
		30, 0, 40, 0,
		0, 0, 0, 0}, 0)

	// Average pooling with padding: each gradient is split over its window,
	// divided by the padded window size.
	x = eager.Array([]float64{1, 2, 3, 4}, 1, 1, 4)
	x.AttachGrad()
	eager.Record(func() {
		y = eager.F.Pooling(x, []int{3}, "avg", ops.Attr{Name: "stride", Value: []int{2}}, ops.Attr{Name: "pad", Value: []int{1}})
	})
	if err := y.(*eager.NDArray).Backward(eager.Array([]float64{3, 6}, 1, 1, 2)); err != nil {
		t.Fatal(err)
	}
	assertClose(t, "avg", x.Grad().Float64s(), []float64{1, 1 + 2, 2, 2}, 1e-12)
}

// TestPoolingSecondOrder differentiates the gradient of avg pooling with
// respect to the head gradient (which is avg pooling again), and checks
// that max pooling refuses with a clear error.
func TestPoolingSecondOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, poolType := range []string{"avg", "max"} {
		x := randArray(r, 1, 2, 4, 4)
		head := randArray(r, 1, 2, 2, 2)
		u := randArray(r, 1, 2, 4, 4)
		x.AttachGrad()
		head.AttachGrad()
		var y ops.Tensor
		eager.Record(func() { y = eager.F.Pooling(x, []int{2, 2}, poolType, ops.Attr{Name: "stride", Value: []int{2, 2}}) })
		var err error
		var z ops.Tensor
		eager.Record(func() {
			var gx []*eager.NDArray
			gx, err = eager.Grad([]*eager.NDArray{y.(*eager.NDArray)}, []*eager.NDArray{x}, []*eager.NDArray{head}, true, true)
			if err == nil {
				z = eager.F.Sum(eager.F.Mul(gx[0], u))
			}
		})
		if err != nil {
			t.Fatalf("%s: first-order gradient: %v", poolType, err)
		}
		g2, err := eager.Grad([]*eager.NDArray{z.(*eager.NDArray)}, []*eager.NDArray{head}, nil, false, false)
		if poolType == "max" {
			if err == nil || !strings.Contains(err.Error(), "second-order gradient of max pooling is not supported") {
				t.Errorf("max: got %v", err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("avg: %v", err)
		}
		want := eager.F.Pooling(u, []int{2, 2}, "avg", ops.Attr{Name: "stride", Value: []int{2, 2}})
		assertClose(t, "avg", g2[0].Float64s(), want.Float64s(), 1e-12)
	}
}

func TestPoolingErrors(t *testing.T) {
	op := ops.MustLookup("Pooling")
	cases := []struct {
		attrs map[string]string
		data  ops.Shape
		want  []string
	}{
		{map[string]string{"kernel": "(2, 2)", "pool_type": "lp", "p_value": "2"}, nil,
			[]string{"Pooling: pool_type lp is not supported (max, avg and sum are)"}},
		{map[string]string{"kernel": "(2, 2)", "pooling_convention": "same"}, nil,
			[]string{"Pooling: pooling_convention same is not supported"}},
		{map[string]string{"pool_type": "avg"}, nil,
			[]string{"kernel is required unless global_pool=True"}},
		{map[string]string{"kernel": "(2, 2)", "layout": "NHWC"}, nil,
			[]string{"layout NHWC is not supported"}},
		{map[string]string{"kernel": "(2, 2, 2)"}, nil,
			[]string{"kernel (2, 2, 2) is 3-D"}},
		{map[string]string{"kernel": "(2, 2)", "pad": "(1, 1, 1)"}, nil,
			[]string{"pad (1, 1, 1) must have 2 values like kernel (2, 2)"}},
		{map[string]string{"pool_type": "bogus", "kernel": "(2, 2)"}, nil,
			[]string{`pool_type="bogus" is not one of max, avg, sum, lp`}},
		{map[string]string{"kernel": "(5, 5)"}, ops.Shape{2, 3, 4, 6},
			[]string{"Pooling: kernel (5, 5) is larger than data 2x3x4x6 padded to 4x6 (pad (0, 0))", "inputs: data 2x3x4x6", "kernel=(5, 5)"}},
		{map[string]string{"kernel": "(2, 2)"}, ops.Shape{2, 3, 4},
			[]string{"data 2x3x4 must be NCHW (4 dims) for kernel (2, 2)"}},
		{map[string]string{"global_pool": "True"}, ops.Shape{2, 3},
			[]string{"data 2x3 must be NCW or NCHW"}},
	}
	for _, tc := range cases {
		attrs, err := op.ParseAttrs(tc.attrs)
		if err == nil {
			_, _, err = op.InferShape(attrs, []ops.Shape{tc.data})
		}
		if err == nil {
			t.Errorf("%v %v: no error, want %q", tc.attrs, tc.data, tc.want)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v %v:\n got %v\nwant %q", tc.attrs, tc.data, err, w)
			}
		}
	}
}

func ExampleF_Pooling() {
	x := eager.F.Reshape(eager.Arange(0, 16, 1), 1, 1, 4, 4)
	fmt.Println(eager.F.Pooling(x, []int{2, 2}, "max", ops.Attr{Name: "stride", Value: []int{2, 2}}))
	fmt.Println(eager.F.Pooling(x, nil, "avg", ops.Attr{Name: "global_pool", Value: true}))
	// Output:
	// [[[[ 5.  7.]
	//    [13. 15.]]]]
	// <NDArray 1x1x2x2 @cpu(0)>
	// [[[[7.5]]]]
	// <NDArray 1x1x1x1 @cpu(0)>
}
