package ops

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func randValue(r *rand.Rand, dt DType, s Shape) Value {
	xs := make([]float64, s.Size())
	for i := range xs {
		xs[i] = r.Float64()*4 - 2
	}
	return Value{Data: FromFloat64s(dt, xs), Shape: s, DType: dt}
}

// TestFastBinaryMatchesGeneral checks the arithmetic fast paths against the
// general broadcasting loop, bit for bit, and that shapes they do not cover
// are left to it.
func TestFastBinaryMatchesGeneral(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	fns := map[arithKind]func(x, y float64) float64{
		arithAdd: func(x, y float64) float64 { return x + y },
		arithSub: func(x, y float64) float64 { return x - y },
		arithMul: func(x, y float64) float64 { return x * y },
		arithDiv: func(x, y float64) float64 { return x / y },
	}
	cases := []struct {
		a, b Shape
		fast bool
	}{
		{Shape{2, 3}, Shape{2, 3}, true},
		{Shape{7}, Shape{}, true},
		{Shape{2, 5}, Shape{1}, true},
		{Shape{}, Shape{3, 2}, true},
		{Shape{4, 3, 5}, Shape{5}, true},
		{Shape{4, 3, 5}, Shape{1, 3, 5}, true},
		{Shape{16, 120}, Shape{120}, true},
		{Shape{2, 3, 4}, Shape{3, 1}, true},
		{Shape{16, 5, 3, 3}, Shape{1, 5, 1, 1}, true},
		{Shape{1, 5, 1, 1}, Shape{2, 5, 3, 3}, true},
		{Shape{2, 6, 3, 3}, Shape{6, 3, 1}, true},
		{Shape{2, 6, 3, 3}, Shape{6, 1, 3}, false},
		{Shape{2, 5, 3}, Shape{2, 1, 1}, true},
		{Shape{2, 5, 1}, Shape{1, 5, 1}, true},
		{Shape{3, 4}, Shape{2, 3, 4}, false},
		{Shape{1, 4}, Shape{3, 1}, false},
	}
	for _, dt := range []DType{Float32, Float64} {
		for _, tc := range cases {
			for kind, f := range fns {
				a, b := randValue(r, dt, tc.a), randValue(r, dt, tc.b)
				os, err := BroadcastShapes(tc.a, tc.b)
				if err != nil {
					t.Fatal(err)
				}
				want := Value{Data: MakeData(dt, os.Size()), Shape: os, DType: dt}
				got := Value{Data: MakeData(dt, os.Size()), Shape: os, DType: dt}
				if err := mapBinary(a, b, want, f); err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("%v %v op%d %v", dt, tc.a, kind, tc.b)
				if ok := fastBinary(kind, a, b, got); ok != tc.fast {
					t.Fatalf("%s: fast path taken = %v, want %v", name, ok, tc.fast)
				} else if !ok {
					continue
				}
				g, w := got.Float64s(), want.Float64s()
				for i := range w {
					if g[i] != w[i] {
						t.Fatalf("%s: [%d] = %v, want %v", name, i, g[i], w[i])
					}
				}
			}
		}
	}
	if fastBinary(arithAdd, randValue(r, Int32, Shape{2}), randValue(r, Int32, Shape{2}), randValue(r, Int32, Shape{2})) {
		t.Error("an int32 add took the float fast path")
	}
}

func TestFastUnaryMatchesGeneral(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	fns := map[unaryKind]func(float64) float64{
		unaryRelu:     func(x float64) float64 { return max(x, 0) },
		unaryNegative: func(x float64) float64 { return -x },
		unaryAbs:      func(x float64) float64 { return max(x, -x) },
		unarySquare:   func(x float64) float64 { return x * x },
	}
	for _, dt := range []DType{Float32, Float64} {
		for kind, f := range fns {
			in := randValue(r, dt, Shape{3, 7})
			want := Value{Data: MakeData(dt, 21), Shape: Shape{3, 7}, DType: dt}
			got := Value{Data: MakeData(dt, 21), Shape: Shape{3, 7}, DType: dt}
			if err := mapUnary(in, want, f); err != nil {
				t.Fatal(err)
			}
			if !fastUnary(kind, in, got) {
				t.Fatalf("%v kind %d: no fast path", dt, kind)
			}
			g, w := got.Float64s(), want.Float64s()
			for i := range w {
				if g[i] != w[i] {
					t.Fatalf("%v kind %d: [%d] = %v, want %v", dt, kind, i, g[i], w[i])
				}
			}
		}
	}
}

// TestBackwardRelu checks _backward_relu against ograd * (out > 0),
// including a NaN and an infinite ograd where the mask is 0.
func TestBackwardRelu(t *testing.T) {
	inf := math.Inf(1)
	g := []float64{1.5, -2, math.NaN(), inf, 3, inf}
	y := []float64{0.5, 0, -1, -1, 2, 1}
	for _, dt := range []DType{Float32, Float64} {
		s := Shape{2, 3}
		in := []Value{{Data: FromFloat64s(dt, g), Shape: s, DType: dt}, {Data: FromFloat64s(dt, y), Shape: s, DType: dt}}
		out := []Value{{Data: MakeData(dt, 6), Shape: s, DType: dt}}
		if err := opBackwardRelu.Forward(nil, &NoAttrs{}, in, out); err != nil {
			t.Fatal(err)
		}
		got := out[0].Float64s()
		for i := range g {
			var m float64
			if y[i] > 0 {
				m = 1
			}
			want := g[i] * m
			if !(got[i] == want || (got[i] != got[i] && want != want)) {
				t.Errorf("%v: [%d] = %v, want %v", dt, i, got[i], want)
			}
		}
	}
	bad := []Value{{Data: []int32{1}, Shape: Shape{1}, DType: Int32}, {Data: []int32{1}, Shape: Shape{1}, DType: Int32}}
	if err := opBackwardRelu.Forward(nil, &NoAttrs{}, bad, []Value{{Data: []int32{0}, Shape: Shape{1}, DType: Int32}}); err == nil {
		t.Error("int32 was accepted")
	}
}

// TestReduceSumLoopMatchesFold checks the inline sum loop against the
// general fold over several kept shapes: bit for bit, except for float32,
// whose runs are summed in float32 vector lanes before the float64 total.
func TestReduceSumLoopMatchesFold(t *testing.T) {
	r := rand.New(rand.NewPCG(45, 46))
	add := func(acc, x float64) float64 { return acc + x }
	shape := Shape{3, 4, 5, 6}
	for _, kept := range []Shape{{1, 4, 1, 1}, {3, 1, 1, 1}, {1, 1, 1, 6}, {3, 4, 5, 1}, {1, 1, 1, 1}, {3, 1, 5, 1}} {
		for _, dt := range []DType{Float32, Float64, Int32} {
			in := randValue(r, dt, shape)
			want := Value{Data: MakeData(dt, kept.Size()), Shape: kept, DType: dt}
			got := Value{Data: MakeData(dt, kept.Size()), Shape: kept, DType: dt}
			if err := reduce(in, kept, want, 0, add, nil, false); err != nil {
				t.Fatal(err)
			}
			if err := reduce(in, kept, got, 0, add, nil, true); err != nil {
				t.Fatal(err)
			}
			g, w := got.Float64s(), want.Float64s()
			for i := range w {
				if g[i] != w[i] && (dt != Float32 || math.Abs(g[i]-w[i]) > 1e-6*(1+math.Abs(w[i]))) {
					t.Fatalf("%v kept %v: [%d] = %v, want %v", dt, kept, i, g[i], w[i])
				}
			}
		}
	}
}

// BenchmarkBiasGradSum is the sum that makes a convolution's bias
// gradient (axes 0, 2 and 3 of NCHW), at LeNet's sizes for batch 256.
func BenchmarkBiasGradSum(b *testing.B) {
	add := func(acc, x float64) float64 { return acc + x }
	for _, sh := range []Shape{{256, 6, 24, 24}, {256, 16, 8, 8}} {
		in := Value{Data: MakeData(Float32, sh.Size()), Shape: sh, DType: Float32}
		kept := Shape{1, sh[1], 1, 1}
		out := Value{Data: MakeData(Float32, sh[1]), Shape: kept, DType: Float32}
		b.Run(sh.String(), func(b *testing.B) {
			for b.Loop() {
				if err := reduce(in, kept, out, 0, add, nil, true); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestSumOuterInnerLarge checks the float32 sums over all axes but one
// (a BatchNorm's statistics) on arrays large enough to be spread over the
// workers, against sums in float64, with and without trailing axes.
func TestSumOuterInnerLarge(t *testing.T) {
	r := rand.New(rand.NewPCG(45, 46))
	for _, s := range [][3]int{{4, 37, 900}, {16, 64, 196}, {3, 5000, 1}, {1, 9, 70000}} {
		outer, mid, inner := s[0], s[1], s[2]
		x := make([]float32, outer*mid*inner)
		for i := range x {
			x[i] = float32(r.Float64()*2 - 1)
		}
		acc := make([]float64, mid)
		sumOuterInner32(x, outer, mid, inner, acc)
		for j := range mid {
			want := 0.0
			for i := range outer {
				for _, v := range x[(i*mid+j)*inner:][:inner] {
					want += float64(v)
				}
			}
			if math.Abs(acc[j]-want) > 1e-3 {
				t.Fatalf("%v: [%d] = %v, want %v", s, j, acc[j], want)
			}
		}
	}
}
