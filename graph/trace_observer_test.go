package graph_test

import (
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

// The trace observer sees each op node as it is recorded, in order, with
// its inferred shape; removing it stops the calls.
func TestTraceObserver(t *testing.T) {
	var seen []string
	prev := graph.SetTraceObserver(func(n *graph.Node) {
		seen = append(seen, n.Op.Name()+" "+graph.ShapeString(n.Shapes[0], n.DTypes[0]))
	})
	defer func() { graph.SetTraceObserver(prev) }()
	_, err := graph.Trace(func(f ops.F, in []ops.Tensor) []ops.Tensor {
		return []ops.Tensor{f.Relu(f.Add(in[0], in[0]))}
	}, []ops.Shape{{2, 3}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 || seen[1] != "relu 2x3 float32" {
		t.Errorf("observed %q", seen)
	}
	// Compiling the graph with its gradients records no observed nodes.
	seen = nil
	sym, err := graph.Trace(func(f ops.F, in []ops.Tensor) []ops.Tensor {
		return []ops.Tensor{f.Relu(in[0])}
	}, []ops.Shape{{2}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	x := eager.Ones(2)
	x.AttachGrad()
	cop, err := graph.Compile(sym, graph.SignatureOf([]*eager.NDArray{x}, true), graph.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var y []*eager.NDArray
	eager.Record(func() { y, err = cop.Call(x) })
	if err != nil {
		t.Fatal(err)
	}
	if err := y[0].Backward(); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 {
		t.Errorf("observed %q: the gradient graph's nodes should not be", seen)
	}
	if got := graph.SetTraceObserver(nil); got == nil {
		t.Error("SetTraceObserver did not return the observer it replaced")
	}
	seen = nil
	graph.Trace(func(f ops.F, in []ops.Tensor) []ops.Tensor { return []ops.Tensor{f.Relu(in[0])} }, []ops.Shape{{2}}, nil)
	if len(seen) != 0 {
		t.Errorf("observed %q after removing the observer", seen)
	}
}
