package ops_test

import (
	"fmt"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

func TestClipAndAddN(t *testing.T) {
	F := eager.F
	x := eager.Array([]float32{-2, -1, 0, 1, 2})
	checkArray(t, "clip", F.Clip(x, -1, 1), ops.Shape{5}, []float64{-1, -1, 0, 1, 1}, 1e-5)
	checkArray(t, "clip int32", F.Clip(eager.Array([]int32{-5, 3, 9}), 0, 4), ops.Shape{3}, []float64{0, 3, 4}, 1e-5)
	if d := F.Clip(eager.Array([]int32{1}), 0, 4).DType(); d != ops.Int32 {
		t.Errorf("clip of int32 gives %v", d)
	}
	// The gradient passes on the bounds themselves (MXNet's inclusive rule).
	got := kaGrad(t, eager.Array([]float64{-2, -1, 0, 1, 2}), nil, func(x ops.Tensor) ops.Tensor { return F.Clip(x, -1, 1) })
	checkArray(t, "clip gradient", eager.Array(got), ops.Shape{5}, []float64{0, 1, 1, 1, 0}, 1e-5)

	a, b, c := eager.Array([]float32{1, 2}), eager.Array([]float32{3, 4}), eager.Array([]float32{5, 6})
	checkArray(t, "add_n", F.AddN(a, b, c), ops.Shape{2}, []float64{9, 12}, 1e-5)
	checkArray(t, "add_n one input", F.AddN(a), ops.Shape{2}, []float64{1, 2}, 1e-5)
	checkArray(t, "ElementWiseSum", F.Call("ElementWiseSum", []ops.Tensor{a, b}, ops.Attr{"num_args", 2})[0], ops.Shape{2}, []float64{4, 6}, 1e-5)
	checkArray(t, "add_n int64", F.AddN(eager.Array([]int{1, 2}), eager.Array([]int{10, 20})), ops.Shape{2}, []float64{11, 22}, 1e-5)

	// Every input gets the output's gradient.
	u, v := eager.Array([]float64{1, 2}), eager.Array([]float64{3, 4})
	u.AttachGrad()
	v.AttachGrad()
	var out *eager.NDArray
	eager.Record(func() { out = F.AddN(u, v, u).(*eager.NDArray) })
	if err := out.Backward(eager.Array([]float64{1, 10})); err != nil {
		t.Fatal(err)
	}
	checkArray(t, "add_n gradient (used twice)", u.Grad(), ops.Shape{2}, []float64{2, 20}, 1e-5)
	checkArray(t, "add_n gradient", v.Grad(), ops.Shape{2}, []float64{1, 10}, 1e-5)

	op := ops.MustLookup("add_n")
	attrs, _ := op.ParseAttrs(map[string]string{"num_args": "3"})
	if names := op.InputNames(attrs); len(names) != 3 || names[0] != "arg0" || names[2] != "arg2" {
		t.Errorf("add_n inputs %v, want arg0 arg1 arg2", names)
	}
	// Unknown dims of one input are filled from another.
	_, filled, err := op.InferShape(attrs, []ops.Shape{{0, 3}, {2, 0}, {2, 3}})
	if err != nil || !filled[0].Equal(ops.Shape{2, 3}) || !filled[1].Equal(ops.Shape{2, 3}) {
		t.Errorf("add_n filled %v (%v), want 2x3 everywhere", filled, err)
	}
}

func TestClipAndAddNErrors(t *testing.T) {
	F := eager.F
	_, err := ops.MustLookup("clip").ParseAttrs(map[string]string{"a_min": "0"})
	wantErr(t, "clip a_max", err, "clip", "a_max is required")
	wantErr(t, "clip bool", panicErr(func() { F.Clip(eager.Array([]bool{true}), 0, 1) }), "clip", "bool")
	x := eager.Array([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	wantErr(t, "add_n shapes", panicErr(func() { F.AddN(x, eager.Zeros(3)) }), "add_n", "arg1 3", "arg0 2x3")
	wantErr(t, "add_n dtypes", panicErr(func() { F.AddN(x, eager.Array([]float64{1, 2, 3, 4, 5, 6}, 2, 3)) }), "add_n", "float64", "float32")
	wantErr(t, "add_n none", panicErr(func() { F.AddN() }), "add_n", "no inputs")
	_, err = ops.MustLookup("add_n").ParseAttrs(map[string]string{"num_args": "0"})
	wantErr(t, "add_n num_args", err, "add_n", "num_args=0")
}

func ExampleF_Clip() {
	x := eager.Array([]float32{-2, -0.5, 0.5, 3})
	fmt.Println(eager.F.Clip(x, -1, 1))
	// Output:
	// [-1.  -0.5  0.5  1. ]
	// <NDArray 4 @cpu(0)>
}
