package ops_test

import (
	"fmt"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

// F is the same namespace in every mode; here it runs eagerly.
func ExampleF() {
	F := eager.F
	x := eager.Array([]float32{-1, 0, 2, 3}, 2, 2)
	y := F.Relu(F.Add(x, eager.Array([]float32{0.5, -0.5})))
	fmt.Println(y)
	fmt.Println(F.Sum(y, ops.Axis(1), ops.Keepdims()).Shape())
	// Output:
	// [[0.  0. ]
	//  [2.5 2.5]]
	// <NDArray 2x2 @cpu(0)>
	// 2x1
}

// Ops without an F method of their own are reached by MXNet name.
func ExampleF_Call() {
	x := eager.Array([]float32{1, 2, 3})
	fmt.Println(eager.F.Call("_rminus_scalar", []ops.Tensor{x}, ops.Attr{Name: "scalar", Value: 10})[0])
	// Output:
	// [9. 8. 7.]
	// <NDArray 3 @cpu(0)>
}

// Bad input fails with an error that names the op, the inputs and the attributes.
func ExampleF_Apply() {
	_, err := eager.F.Apply(ops.MustLookup("Reshape"), &ops.ReshapeAttrs{Shape: ops.Tuple{4, -1}}, eager.Zeros(2, 3))
	fmt.Println(err)
	// Output:
	// Reshape: cannot reshape 2x3 (6 elements) to (4, -1): -1 does not divide evenly [inputs: data 2x3; attrs: shape=(4, -1)]
}

func ExampleOp_ParseAttrs() {
	op, _ := ops.Lookup("_mul_scalar")
	attrs, err := op.ParseAttrs(map[string]string{"scalar": "2.5"})
	fmt.Println(attrs.(*ops.ScalarAttrs).Scalar, err)
	fmt.Println(op.FormatAttrs(attrs))
	// Output:
	// 2.5 <nil>
	// map[scalar:2.5]
}

func ExampleF_Reshape() {
	x := eager.Zeros(2, 3, 4)
	F := eager.F
	fmt.Println(F.Reshape(x, 0, -1).Shape())        // 0 copies a dim, -1 infers one
	fmt.Println(F.Reshape(x, -3, -2).Shape())       // -3 merges two dims, -2 copies the rest
	fmt.Println(F.Reshape(x, -4, 1, 2, -2).Shape()) // -4 splits a dim
	// Output:
	// 2x12
	// 6x4
	// 1x2x3x4
}
