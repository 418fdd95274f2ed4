package graph

import (
	"fmt"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

// Eval runs g on the NDArrays bound to its variables by name and returns
// its outputs. Each op's output shape is inferred from the actual input
// shapes, so a graph traced with unknown dims runs on any batch size.
// Constants need no binding. Auxiliary states are updated in place, as in
// MXNet, when training.
func Eval(g *Graph, bindings map[string]*eager.NDArray, training bool) ([]*eager.NDArray, error) {
	values := map[*Node][]*eager.NDArray{}
	for _, n := range g.Inputs() {
		a, err := bindVar(n, bindings)
		if err != nil {
			return nil, err
		}
		values[n] = []*eager.NDArray{a}
	}
	for _, n := range g.Nodes {
		if n.IsVar() {
			continue
		}
		in := make([]*eager.NDArray, len(n.Inputs))
		for i, e := range n.Inputs {
			in[i] = values[e.Node][e.Index]
		}
		out, err := runNode(n, in, training)
		if err != nil {
			return nil, err
		}
		values[n] = out
	}
	res := make([]*eager.NDArray, len(g.Outputs))
	for i, o := range g.Outputs {
		res[i] = values[o.Node][o.Index]
	}
	return res, nil
}

// bindVar finds the value of a variable: its constant, or its binding,
// which must agree with the variable's known dims and dtype.
func bindVar(n *Node, bindings map[string]*eager.NDArray) (*eager.NDArray, error) {
	if n.Value != nil {
		return n.Value, nil
	}
	a, ok := bindings[n.Name]
	if !ok {
		return nil, fmt.Errorf("graph: variable %q is not bound (declared %s)", n.Name, ShapeString(n.Shapes[0], n.DTypes[0]))
	}
	if !n.Shapes[0].Fits(a.Shape()) {
		return nil, fmt.Errorf("graph: variable %q is declared %v but bound to an array of shape %v", n.Name, n.Shapes[0], a.Shape())
	}
	if d := n.DTypes[0]; d != ops.Unknown && d != a.DType() {
		return nil, fmt.Errorf("graph: variable %q is declared %v but bound to a %v array", n.Name, d, a.DType())
	}
	return a, nil
}

// runNode runs one op node on concrete inputs, outside the autograd tape,
// with the eager node runner.
func runNode(n *Node, in []*eager.NDArray, training bool) ([]*eager.NDArray, error) {
	out, err := eager.Exec(n.Op, n.Attrs, training, in...)
	if err != nil {
		return nil, nodeError(n, err)
	}
	return out, nil
}
