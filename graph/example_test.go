package graph_test

import (
	"fmt"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

// The README's graph-mode example.
func ExampleCompile() {
	tr := graph.NewTracer()
	F := tr.F()
	x := graph.Var("data", ops.Shape{16, 784}, ops.Float32)
	w := graph.Var("fc_weight", nil, ops.Unknown) // inferred: 10x784
	y := F.Relu(F.FullyConnected(x, w, graph.Var("fc_bias", nil, ops.Unknown), 10))
	fmt.Println(y)
	fmt.Print(y.(*graph.Symbol).Graph())

	args := []*eager.NDArray{eager.Ones(16, 784), eager.Full(0.001, 10, 784), eager.Zeros(10)}
	e, _ := graph.Compile(y.(*graph.Symbol), graph.SignatureOf(args, false), graph.CompileOptions{StaticAlloc: true})
	fmt.Println(e.InputNames())
	out, err := e.Call(args...)
	fmt.Printf("%v %.4f %v\n", out[0].Shape(), out[0].At(0, 0), err)
	// Output:
	// <Symbol relu0 16x10 float32>
	// graph(data: 16x784 float32, fc_weight: 10x784 float32, fc_bias: 10 float32):
	//   %fullyconnected0 = FullyConnected(%data, %fc_weight, %fc_bias; num_hidden=10)  # 16x10 float32
	//   %relu0 = relu(%fullyconnected0)  # 16x10 float32
	//   return %relu0
	// [data fc_weight fc_bias]
	// 16x10 0.7840 <nil>
}

// Reading values while tracing is an error that says what to do instead.
func ExampleHybridizationError() {
	_, err := graph.Trace(func(F ops.F, in []ops.Tensor) []ops.Tensor {
		if in[0].Scalar() > 0 { // a branch on a tensor value
			return in
		}
		return []ops.Tensor{F.Negative(in[0])}
	}, []ops.Shape{{1}}, nil)
	fmt.Println(err)
	// Output:
	// hybridize: Scalar() on data (output of variable) — a traced tensor has a shape but no values until the graph runs. To choose between values, use F.Where(cond, x, y) instead of an if on tensor values; shapes are known while tracing, so branching on x.Shape() is fine.
}
