package ops_test

import (
	"fmt"
	"math"

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

// A user-defined op: a shape rule, a kernel and a gradient rule. Once
// registered it runs eagerly and traced, differentiates, and is written to
// symbol files as MXNet's Custom op with op_type "softclip".
func ExampleRegisterCustom() {
	_, err := ops.RegisterCustom(ops.CustomDef{
		Name:  "softclip", // scale * tanh(x / scale)
		Attrs: []ops.AttrInfo{{Name: "scale", Type: "float", Default: "1"}},
		Shape: func(a ops.CustomAttrs, in []ops.Shape) ([]ops.Shape, error) {
			return []ops.Shape{in[0]}, nil
		},
		Kernel: func(a ops.CustomAttrs, in, out []ops.Value) error {
			s := a.Float("scale")
			x := ops.ToFloat64s(in[0].Data)
			for i := range x {
				x[i] = s * math.Tanh(x[i]/s)
			}
			ops.CopyData(out[0].Data, ops.FromFloat64s(in[0].DType, x))
			return nil
		},
		Grad: func(F ops.F, a ops.CustomAttrs, in, out, g []ops.Tensor) []ops.Tensor {
			// d/dx = 1 - tanh² = 1 - (y/scale)²
			t := F.DivScalar(out[0], a.Float("scale"))
			return []ops.Tensor{F.Mul(g[0], F.RminusScalar(F.Square(t), 1))}
		},
	})
	if err != nil {
		panic(err)
	}
	x := eager.Array([]float32{-4, 0, 1, 4})
	x.AttachGrad()
	var y *eager.NDArray
	eager.Record(func() {
		y = eager.F.Call("softclip", []ops.Tensor{x}, ops.Attr{Name: "scale", Value: 2})[0].(*eager.NDArray)
	})
	if err := y.Backward(); err != nil {
		panic(err)
	}
	fmt.Println(y)
	fmt.Println(x.Grad())
	// Output:
	// [-1.9280552   0.          0.92423433  1.9280552 ]
	// <NDArray 4 @cpu(0)>
	// [0.07065082 1.         0.7864477  0.07065082]
	// <NDArray 4 @cpu(0)>
}
