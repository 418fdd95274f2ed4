package ops_test

import (
	"fmt"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

// Helpers shared by the tests of this package.

// The dot tests use A = [[1 2 3] [4 5 6]] (2x3) and B = [[1 2] [3 4] [5 6]]
// (3x2), whose product is [[22 28] [49 64]], stored in various layouts.
var (
	matA  = []float32{1, 2, 3, 4, 5, 6}
	matAT = []float32{1, 4, 2, 5, 3, 6}
	matB  = []float32{1, 2, 3, 4, 5, 6}
	matBT = []float32{1, 3, 5, 2, 4, 6}
	prod  = []float64{22, 28, 49, 64}
)

func TestDotKnownAnswers(t *testing.T) {
	ta, tb := ops.TransposeA(), ops.TransposeB()
	tests := []struct {
		name   string
		a      []float32
		ashape []int
		b      []float32
		bshape []int
		attrs  []ops.Attr
		shape  ops.Shape
		want   []float64
	}{
		{"vector·vector", []float32{1, 2, 3}, []int{3}, []float32{4, 5, 6}, []int{3}, nil, ops.Shape{1}, []float64{32}},
		{"matrix", matA, []int{2, 3}, matB, []int{3, 2}, nil, ops.Shape{2, 2}, prod},
		{"transpose_a", matAT, []int{3, 2}, matB, []int{3, 2}, []ops.Attr{ta}, ops.Shape{2, 2}, prod},
		{"transpose_b", matA, []int{2, 3}, matBT, []int{2, 3}, []ops.Attr{tb}, ops.Shape{2, 2}, prod},
		{"transpose both", matAT, []int{3, 2}, matBT, []int{2, 3}, []ops.Attr{ta, tb}, ops.Shape{2, 2}, prod},
		{"N-D lhs", matA, []int{2, 1, 3}, matB, []int{3, 2}, nil, ops.Shape{2, 1, 2}, prod},
		{"N-D rhs", matA, []int{2, 3}, matB, []int{3, 1, 2}, nil, ops.Shape{2, 1, 2}, prod},
		{"N-D lhs transpose_a", matAT, []int{3, 2, 1}, matB, []int{3, 2}, []ops.Attr{ta}, ops.Shape{2, 1, 2}, prod},
		{"N-D rhs transpose_b", matA, []int{2, 3}, matBT, []int{2, 1, 3}, []ops.Attr{tb}, ops.Shape{2, 2, 1}, prod},
		{"N-D both transposed", matAT, []int{3, 1, 2}, matBT, []int{1, 2, 3}, []ops.Attr{ta, tb}, ops.Shape{1, 2, 1, 2}, prod},
		{"vector·matrix", []float32{1, 2, 3}, []int{3}, matB, []int{3, 2}, nil, ops.Shape{2}, []float64{22, 28}},
		{"matrix·vector", matA, []int{2, 3}, []float32{1, 1, 1}, []int{3}, nil, ops.Shape{2}, []float64{6, 15}},
	}
	for _, tc := range tests {
		a, b := eager.Array(tc.a, tc.ashape...), eager.Array(tc.b, tc.bshape...)
		checkArray(t, tc.name, eager.F.Dot(a, b, tc.attrs...), tc.shape, tc.want, 1e-6)
		// The same product in float64.
		a64, b64 := eager.F.Cast(a, ops.Float64), eager.F.Cast(b, ops.Float64)
		checkArray(t, tc.name+" float64", eager.F.Dot(a64, b64, tc.attrs...), tc.shape, tc.want, 1e-12)
	}
}

func TestBatchDotKnownAnswers(t *testing.T) {
	// Batch 0 holds A and B; batch 1 holds 2A and B, so its product is 2·prod.
	stack := func(x []float32, k float32) []float32 {
		out := append([]float32(nil), x...)
		for _, v := range x {
			out = append(out, k*v)
		}
		return out
	}
	want := append(append([]float64(nil), prod...), 44, 56, 98, 128)
	ta, tb := ops.TransposeA(), ops.TransposeB()
	tests := []struct {
		name   string
		a, b   []float32
		as, bs []int
		attrs  []ops.Attr
	}{
		{"plain", stack(matA, 2), stack(matB, 1), []int{2, 2, 3}, []int{2, 3, 2}, nil},
		{"transpose_a", stack(matAT, 2), stack(matB, 1), []int{2, 3, 2}, []int{2, 3, 2}, []ops.Attr{ta}},
		{"transpose_b", stack(matA, 2), stack(matBT, 1), []int{2, 2, 3}, []int{2, 2, 3}, []ops.Attr{tb}},
		{"both", stack(matAT, 2), stack(matBT, 1), []int{2, 3, 2}, []int{2, 2, 3}, []ops.Attr{ta, tb}},
	}
	for _, tc := range tests {
		out := eager.F.BatchDot(eager.Array(tc.a, tc.as...), eager.Array(tc.b, tc.bs...), tc.attrs...)
		checkArray(t, tc.name, out, ops.Shape{2, 2, 2}, want, 1e-6)
	}
}

func TestDotGradient(t *testing.T) {
	// d sum(A·B) / dA = ones · Bᵀ: each row holds B's row sums.
	a, b := eager.Array(matA, 2, 3), eager.Array(matB, 3, 2)
	a.AttachGrad()
	b.AttachGrad()
	var y *eager.NDArray
	eager.Record(func() { y = nd(eager.F.Sum(eager.F.Dot(a, b))) })
	if err := y.Backward(); err != nil {
		t.Fatal(err)
	}
	checkArray(t, "dA", a.Grad(), ops.Shape{2, 3}, []float64{3, 7, 11, 3, 7, 11}, 1e-6)
	checkArray(t, "dB", b.Grad(), ops.Shape{3, 2}, []float64{5, 5, 7, 7, 9, 9}, 1e-6)
}

func TestFullyConnectedKnownAnswers(t *testing.T) {
	x := eager.Array([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	w := eager.Array([]float32{1, 0, 1, 0, 1, 0}, 2, 3)
	b := eager.Array([]float32{10, 20})
	checkArray(t, "bias", eager.F.FullyConnected(x, w, b, 2), ops.Shape{2, 2}, []float64{14, 22, 20, 25}, 1e-6)
	checkArray(t, "no bias", eager.F.FullyConnected(x, w, nil, 2), ops.Shape{2, 2}, []float64{4, 2, 10, 5}, 1e-6)

	// flatten=True: (2, 1, 3) is seen as (2, 3).
	x3 := eager.Array([]float32{1, 2, 3, 4, 5, 6}, 2, 1, 3)
	checkArray(t, "flatten", eager.F.FullyConnected(x3, w, b, 2), ops.Shape{2, 2}, []float64{14, 22, 20, 25}, 1e-6)
	// flatten=False: only the last axis is transformed.
	checkArray(t, "no flatten", eager.F.FullyConnected(x3, w, b, 2, ops.Attr{Name: "flatten", Value: false}),
		ops.Shape{2, 1, 2}, []float64{14, 22, 20, 25}, 1e-6)
	// flatten=True with a wide input: (1, 2, 3) has 6 input units.
	w6 := eager.Array([]float32{1, 1, 1, 1, 1, 1}, 1, 6)
	checkArray(t, "flatten 6", eager.F.FullyConnected(eager.Array(matA, 1, 2, 3), w6, nil, 1), ops.Shape{1, 1}, []float64{21}, 1e-6)
}

func TestFullyConnectedGradient(t *testing.T) {
	x := eager.Array([]float32{1, 2, 3, 4, 5, 6}, 2, 1, 3)
	w := eager.Array([]float32{1, 0, 1, 0, 1, 0}, 2, 3)
	b := eager.Array([]float32{10, 20})
	for _, v := range []*eager.NDArray{x, w, b} {
		v.AttachGrad()
	}
	var y *eager.NDArray
	eager.Record(func() {
		y = nd(eager.F.Sum(eager.F.FullyConnected(x, w, b, 2, ops.Attr{Name: "flatten", Value: false})))
	})
	if err := y.Backward(); err != nil {
		t.Fatal(err)
	}
	checkArray(t, "dx", x.Grad(), ops.Shape{2, 1, 3}, []float64{1, 1, 1, 1, 1, 1}, 1e-6)
	checkArray(t, "dw", w.Grad(), ops.Shape{2, 3}, []float64{5, 7, 9, 5, 7, 9}, 1e-6)
	checkArray(t, "db", b.Grad(), ops.Shape{2}, []float64{2, 2}, 1e-6)
}

func TestFullyConnectedFillsParameterShapes(t *testing.T) {
	op := ops.MustLookup("FullyConnected")
	tests := []struct {
		attrs      map[string]string
		in         []ops.Shape
		out        ops.Shape
		filledW    ops.Shape
		filledBias ops.Shape
	}{
		{map[string]string{"num_hidden": "4"}, []ops.Shape{{16, 3, 5}, {4, 0}, {}}, ops.Shape{16, 4}, ops.Shape{4, 15}, ops.Shape{4}},
		{map[string]string{"num_hidden": "4"}, []ops.Shape{{16, 3, 5}, {}, {0}}, ops.Shape{16, 4}, ops.Shape{4, 15}, ops.Shape{4}},
		{map[string]string{"num_hidden": "4", "flatten": "False"}, []ops.Shape{{16, 3, 5}, {0, 0}, {}}, ops.Shape{16, 3, 4}, ops.Shape{4, 5}, ops.Shape{4}},
		{map[string]string{"num_hidden": "4"}, []ops.Shape{{0, 3, 5}, {4, 0}, {}}, ops.Shape{0, 4}, ops.Shape{4, 15}, ops.Shape{4}},
	}
	for _, tc := range tests {
		out, filled, err := op.InferShape(parse(t, op, tc.attrs), tc.in)
		if err != nil {
			t.Errorf("%v %v: %v", tc.attrs, tc.in, err)
			continue
		}
		if !out[0].Equal(tc.out) || !filled[1].Equal(tc.filledW) || !filled[2].Equal(tc.filledBias) {
			t.Errorf("%v %v: out %v weight %v bias %v, want %v %v %v", tc.attrs, tc.in, out[0], filled[1], filled[2], tc.out, tc.filledW, tc.filledBias)
		}
	}
	// Without bias there are two inputs.
	out, filled, err := op.InferShape(parse(t, op, map[string]string{"num_hidden": "3", "no_bias": "True"}), []ops.Shape{{2, 7}, {}})
	if err != nil || !out[0].Equal(ops.Shape{2, 3}) || !filled[1].Equal(ops.Shape{3, 7}) {
		t.Errorf("no_bias: out %v weight %v err %v", out, filled, err)
	}
}

func TestLinalgErrors(t *testing.T) {
	F := eager.F
	err := panicErr(func() { F.FullyConnected(eager.Zeros(16, 3, 5), eager.Zeros(4, 10), eager.Zeros(4), 4) })
	wantErr(t, "FullyConnected weight", err, "FullyConnected", "16x3x5", "4x10", "num_hidden=4", "(4, 15)")
	err = panicErr(func() { F.FullyConnected(eager.Zeros(16, 15), eager.Zeros(3, 15), nil, 4) })
	wantErr(t, "FullyConnected num_hidden", err, "FullyConnected", "16x15", "3x15", "num_hidden=4")
	err = panicErr(func() { F.FullyConnected(eager.Zeros(2, 3), eager.Zeros(4, 3), eager.Zeros(5), 4) })
	wantErr(t, "FullyConnected bias", err, "FullyConnected", "bias 5", "num_hidden=4")
	err = panicErr(func() { F.Dot(eager.Zeros(2, 3), eager.Zeros(4, 5)) })
	wantErr(t, "dot", err, "dot", "2x3", "4x5")
	err = panicErr(func() { F.Dot(eager.Zeros(2, 3), eager.Zeros(3, 2), ops.TransposeA()) })
	wantErr(t, "dot transpose_a", err, "dot", "2x3", "transpose_a=True")
	err = panicErr(func() { F.Dot(eager.Zeros(3), eager.Zeros(3), ops.TransposeB()) })
	wantErr(t, "dot vectors", err, "dot", "cannot be transposed")
	err = panicErr(func() { F.BatchDot(eager.Zeros(2, 2, 3), eager.Zeros(3, 3, 2)) })
	wantErr(t, "batch_dot batch", err, "batch_dot", "2x2x3", "3x3x2", "batch")
	err = panicErr(func() { F.BatchDot(eager.Zeros(2, 3), eager.Zeros(3, 2)) })
	wantErr(t, "batch_dot 2-D", err, "batch_dot", "3-D")
}

func ExampleF_Dot() {
	x := eager.Array([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	w := eager.Array([]float32{1, 0, 1, 0, 1, 0, 1, 1, 1, 0.5, 0.5, 0.5}, 4, 3)
	fmt.Println(eager.F.Dot(x, w, ops.TransposeB()))
	// Output:
	// [[ 4.   2.   6.   3. ]
	//  [10.   5.  15.   7.5]]
	// <NDArray 2x4 @cpu(0)>
}

func ExampleF_FullyConnected() {
	x := eager.Array([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	weight := eager.Array([]float32{1, 0, 1, 0, 1, 0, 1, 1, 1, 0.5, 0.5, 0.5}, 4, 3)
	bias := eager.Array([]float32{0, 1, 2, 3})
	fmt.Println(eager.F.FullyConnected(x, weight, bias, 4))
	// Output:
	// [[ 4.   3.   8.   6. ]
	//  [10.   6.  17.  10.5]]
	// <NDArray 2x4 @cpu(0)>
}

// BenchmarkDotLeNetFC times LeNet's first dense layer: 16x400 -> 120, float32.
func BenchmarkDotLeNetFC(b *testing.B) {
	const batch, in, hidden = 16, 400, 120
	xs := make([]float32, batch*in)
	ws := make([]float32, hidden*in)
	for i := range xs {
		xs[i] = float32(i%7) * 0.1
	}
	for i := range ws {
		ws[i] = float32(i%5) * 0.01
	}
	x, w, bias := eager.Array(xs, batch, in), eager.Array(ws, hidden, in), eager.Zeros(hidden)
	b.ResetTimer()
	for b.Loop() {
		eager.F.FullyConnected(x, w, bias, hidden)
	}
	flops := 2.0 * batch * in * hidden
	b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
