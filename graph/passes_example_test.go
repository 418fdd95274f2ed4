package graph_test

import (
	"fmt"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

func ExampleOptimize() {
	tr := graph.NewTracer()
	F := tr.F()
	x := graph.Var("x", ops.Shape{2, 3}, ops.Float32)
	shift := F.MulScalar(eager.Array([]float32{1, 2, 3}), 0.5) // constant
	h := F.Tanh(F.Add(x, shift))
	y := F.Relu(F.Add(F.MulScalar(h, 2), F.MulScalar(h, 2))) // a repeated term
	g := y.(*graph.Symbol).Graph()
	fmt.Print(g)

	opt, reports, err := graph.Optimize(g, graph.DefaultPassOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range reports[1:] { // after InferShapes
		fmt.Println(r)
	}
	fmt.Print(opt)

	out, _ := graph.Eval(opt, map[string]*eager.NDArray{"x": eager.Array([]float32{-1, 0, 1, 2, 3, 4}, 2, 3)}, false)
	fmt.Println(out[0])
	// Output:
	// graph(x: 2x3 float32, const0: 3 float32 const):
	//   %_mul_scalar0 = _mul_scalar(%const0; is_int=False scalar=0.5)  # 3 float32
	//   %broadcast_add0 = broadcast_add(%x, %_mul_scalar0)  # 2x3 float32
	//   %tanh0 = tanh(%broadcast_add0)  # 2x3 float32
	//   %_mul_scalar1 = _mul_scalar(%tanh0; scalar=2.0)  # 2x3 float32
	//   %_mul_scalar2 = _mul_scalar(%tanh0; scalar=2.0)  # 2x3 float32
	//   %broadcast_add1 = broadcast_add(%_mul_scalar1, %_mul_scalar2)  # 2x3 float32
	//   %relu0 = relu(%broadcast_add1)  # 2x3 float32
	//   return %relu0
	// EliminateDeadCode: no changes
	// EliminateCommonSubexpressions: 1 change
	//   merged _mul_scalar2 into _mul_scalar1
	// FoldConstants: 1 change
	//   folded _mul_scalar0 (constant 3 float32)
	// EliminateDeadCode: 1 change
	//   removed unused variable const0
	// FuseActivation: no changes
	// FuseElementwise: 1 change
	//   fused broadcast_add0 -> tanh0 -> _mul_scalar1 -> broadcast_add1 -> relu0 into fused0
	// graph(x: 2x3 float32, _mul_scalar0: 3 float32 const):
	//   %fused0 = _fused_elemwise(%x, %_mul_scalar0; nodes=broadcast_add0,tanh0,_mul_scalar1,broadcast_add1,relu0)  # 2x3 float32
	//   return %fused0
	// [[0.        3.0463767 3.9464571]
	//  [3.9464571 3.9973173 3.9998665]]
	// <NDArray 2x3 @cpu(0)>
}
