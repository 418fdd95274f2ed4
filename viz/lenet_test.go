package viz_test

import (
	"testing"

	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

// lenetForward is the LeNet of MXNet's hybridize tutorial (as in the graph
// package's benchmarks), written with F so that it traces on Symbols.
func lenetForward(F ops.F, x ops.Tensor, p map[string]ops.Tensor) ops.Tensor {
	pool := func(x ops.Tensor) ops.Tensor {
		return F.Pooling(x, []int{2, 2}, "max", ops.Attr{Name: "stride", Value: []int{2, 2}})
	}
	x = pool(F.Relu(F.Convolution(x, p["conv0_weight"], p["conv0_bias"], []int{5, 5}, 6)))
	x = pool(F.Relu(F.Convolution(x, p["conv1_weight"], p["conv1_bias"], []int{5, 5}, 16)))
	x = F.Reshape(x, 0, -1)
	x = F.Relu(F.FullyConnected(x, p["dense0_weight"], p["dense0_bias"], 120))
	x = F.Relu(F.FullyConnected(x, p["dense1_weight"], p["dense1_bias"], 84))
	return F.Dot(x, p["fc3_weight"], ops.TransposeB())
}

var lenetParamNames = []string{
	"conv0_weight", "conv0_bias", "conv1_weight", "conv1_bias",
	"dense0_weight", "dense0_bias", "dense1_weight", "dense1_bias", "fc3_weight",
}

var lenetShapes = map[string]ops.Shape{
	"conv0_weight": {6, 1, 5, 5}, "conv0_bias": {6}, "conv1_weight": {16, 6, 5, 5}, "conv1_bias": {16},
	"dense0_weight": {120, 256}, "dense0_bias": {120}, "dense1_weight": {84, 120}, "dense1_bias": {84},
	"fc3_weight": {10, 84},
}

// lenetGraph traces LeNet for a batch of 4 28x28 images.
func lenetGraph(t testing.TB) *graph.Graph {
	t.Helper()
	tr := graph.NewTracer()
	vars := map[string]ops.Tensor{}
	for _, name := range lenetParamNames {
		vars[name] = graph.Var(name, lenetShapes[name], ops.Float32)
	}
	y := lenetForward(tr.F(), graph.Var("data", ops.Shape{4, 1, 28, 28}, ops.Float32), vars)
	g := y.(*graph.Symbol).Graph()
	if err := graph.InferGraph(g); err != nil {
		t.Fatal(err)
	}
	return g
}
