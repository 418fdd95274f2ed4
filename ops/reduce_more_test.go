package ops_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

// Helpers shared by the known-answer tests of this package (ka = known answer).

// kaGrad returns the gradient of sum(head * fn(x)) with respect to x
// (head is ones when nil).
func kaGrad(t *testing.T, x *eager.NDArray, head []float64, fn func(ops.Tensor) ops.Tensor) []float64 {
	t.Helper()
	x.AttachGrad()
	var y *eager.NDArray
	eager.Record(func() { y = fn(x).(*eager.NDArray) })
	var err error
	if head != nil {
		err = y.Backward(eager.Array(head, y.Shape()...))
	} else {
		err = y.Backward()
	}
	if err != nil {
		t.Fatalf("backward: %v", err)
	}
	return x.Grad().Float64s()
}

func TestReductionsKnownAnswers(t *testing.T) {
	F := eager.F
	x := eager.Array([]float32{1, 5, 3, 4, 2, 6}, 2, 3)
	nan := float32(math.NaN())
	cases := []struct {
		name  string
		got   ops.Tensor
		shape ops.Shape
		want  []float64
	}{
		{"max all", F.Max(x), ops.Shape{1}, []float64{6}},
		{"max axis 0", F.Max(x, ops.Axis(0)), ops.Shape{3}, []float64{4, 5, 6}},
		{"max axis 1 keepdims", F.Max(x, ops.Axis(1), ops.Keepdims()), ops.Shape{2, 1}, []float64{5, 6}},
		{"max exclude 1", F.Max(x, ops.Axis(1), ops.Attr{"exclude", true}), ops.Shape{3}, []float64{4, 5, 6}},
		{"max_axis alias", F.Call("max_axis", []ops.Tensor{x}, ops.Axis(-1))[0], ops.Shape{2}, []float64{5, 6}},
		{"min all", F.Min(x), ops.Shape{1}, []float64{1}},
		{"min axis 1", F.Min(x, ops.Axis(1)), ops.Shape{2}, []float64{1, 2}},
		{"max negative", F.Max(eager.Array([]float64{-3, -2, -7})), ops.Shape{1}, []float64{-2}},
		{"min int32", F.Min(eager.Array([]int32{4, -2, 9})), ops.Shape{1}, []float64{-2}},
		{"prod axis 0", F.Prod(x, ops.Axis(0)), ops.Shape{3}, []float64{4, 10, 18}},
		{"prod all", F.Prod(x), ops.Shape{1}, []float64{720}},
		{"nansum", F.Nansum(eager.Array([]float32{1, nan, 3, 4}, 2, 2), ops.Axis(1)), ops.Shape{2}, []float64{1, 7}},
		{"nanprod", F.Nanprod(eager.Array([]float32{2, nan, 3})), ops.Shape{1}, []float64{6}},
		{"argmax axis 1", F.Argmax(x, 1), ops.Shape{2}, []float64{1, 2}},
		{"argmin axis 0", F.Argmin(x, 0), ops.Shape{3}, []float64{0, 1, 0}},
		{"argmax axis -1 keepdims", F.Argmax(x, -1, ops.Keepdims()), ops.Shape{2, 1}, []float64{1, 2}},
		{"argmax flat", F.ArgmaxFlat(x), ops.Shape{1}, []float64{5}},
		{"argmin flat keepdims", F.ArgminFlat(x, ops.Keepdims()), ops.Shape{1, 1}, []float64{0}},
		{"argmax ties take the first", F.Argmax(eager.Array([]float32{2, 7, 7, 1}), 0), ops.Shape{1}, []float64{1}},
		{"norm all", F.Norm(x), ops.Shape{1}, []float64{math.Sqrt(91)}},
		{"norm ord 1 axis 1", F.Norm(x, ops.Axis(1), ops.Attr{"ord", 1}), ops.Shape{2}, []float64{9, 12}},
		{"norm axis 0 keepdims", F.Norm(eager.Array([]float32{3, 0, 4, 1}, 2, 2), ops.Axis(0), ops.Keepdims()), ops.Shape{1, 2}, []float64{5, 1}},
	}
	for _, c := range cases {
		checkArray(t, c.name, c.got, c.shape, c.want, 1e-5)
	}
	if d := F.Argmax(eager.Array([]int32{3, 9, 1}), 0).DType(); d != ops.Int32 {
		t.Errorf("argmax of int32 gives %v, want int32 (the input's dtype)", d)
	}
	if d := F.Norm(x, ops.Attr{"out_dtype", "float64"}).DType(); d != ops.Float64 {
		t.Errorf("norm with out_dtype=float64 gives %v", d)
	}
}

func TestReductionGradients(t *testing.T) {
	F := eager.F
	nan := math.NaN()
	cases := []struct {
		name string
		x    []float64
		fn   func(ops.Tensor) ops.Tensor
		want []float64
	}{
		// MXNet sends the whole gradient to every tied maximum.
		{"max ties", []float64{1, 3, 3, 2}, func(x ops.Tensor) ops.Tensor { return F.Max(x) }, []float64{0, 1, 1, 0}},
		{"min ties", []float64{1, 3, 1, 2}, func(x ops.Tensor) ops.Tensor { return F.Min(x) }, []float64{1, 0, 1, 0}},
		{"prod", []float64{2, 3, 4}, func(x ops.Tensor) ops.Tensor { return F.Prod(x) }, []float64{12, 8, 6}},
		{"nansum", []float64{1, nan, 2}, func(x ops.Tensor) ops.Tensor { return F.Nansum(x) }, []float64{1, 0, 1}},
		{"nanprod", []float64{2, nan, 4}, func(x ops.Tensor) ops.Tensor { return F.Nanprod(x) }, []float64{4, 0, 2}},
		{"norm 2", []float64{3, 4}, func(x ops.Tensor) ops.Tensor { return F.Norm(x) }, []float64{0.6, 0.8}},
		{"norm 1", []float64{-3, 4}, func(x ops.Tensor) ops.Tensor { return F.Norm(x, ops.Attr{"ord", 1}) }, []float64{-1, 1}},
	}
	for _, c := range cases {
		got := kaGrad(t, eager.Array(c.x), nil, c.fn)
		checkArray(t, c.name, eager.Array(got), ops.Shape{len(c.want)}, c.want, 1e-5)
	}
	// Row-wise max of a matrix: each row's maximum gets its row's head gradient.
	x := eager.Array([]float64{1, 5, 3, 4, 2, 6}, 2, 3)
	got := kaGrad(t, x, []float64{10, 20}, func(x ops.Tensor) ops.Tensor { return F.Max(x, ops.Axis(1)) })
	checkArray(t, "max axis 1", eager.Array(got, 2, 3), ops.Shape{2, 3}, []float64{0, 10, 0, 0, 0, 20}, 1e-5)
}

func TestReductionErrors(t *testing.T) {
	F := eager.F
	x := eager.Array([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	wantErr(t, "max axis", panicErr(func() { F.Max(x, ops.Axis(3)) }), "max", "axis 3", "2x3")
	wantErr(t, "argmax axis", panicErr(func() { F.Argmax(x, 2) }), "argmax", "axis 2", "2x3")
	wantErr(t, "argmin axis", panicErr(func() { F.Argmin(x, -3) }), "argmin", "axis -3", "2x3")
	wantErr(t, "norm axis", panicErr(func() { F.Norm(x, ops.Axis(5)) }), "norm", "axis 5", "2x3")
	wantErr(t, "norm ord", panicErr(func() { F.Norm(x, ops.Attr{"ord", 3}) }), "norm", "ord=3")
	wantErr(t, "prod bool", panicErr(func() { F.Prod(eager.Array([]bool{true, false})) }), "prod", "bool")
}

func ExampleF_Max() {
	x := eager.Array([]float32{1, 5, 3, 4, 2, 6}, 2, 3)
	fmt.Println(eager.F.Max(x, ops.Axis(1)))
	fmt.Println(eager.F.Argmax(x, 1))
	// Output:
	// [5. 6.]
	// <NDArray 2 @cpu(0)>
	// [1. 2.]
	// <NDArray 2 @cpu(0)>
}
