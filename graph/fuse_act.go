package graph

import "github.com/hybridgo/hybridgo/ops"

// FuseActivation replaces each Convolution or FullyConnected node whose
// output is read only by a relu (the relu op, or Activation with act_type
// relu) with one node that computes both in a single kernel: the bias and
// the rectifier are applied to each tile of the product while it is in
// cache (see ops.WithRelu). A convolution with a folded BatchNorm (see
// FoldBatchNorm) takes clip(x, 0, cap) too, MobileNet's relu6
// (ops.WithCappedRelu). The node keeps the relu's name, so the graph's
// outputs and their names do not change. Like FuseElementwise it makes
// nodes with no gradient rule, so it belongs after differentiation; relu's
// own gradient reads relu's output, not the layer's, so in a graph with
// its backward half the layer's output still has the relu as its only
// reader. Graphs saved to files are the traced ones, with MXNet's ops.
func FuseActivation(g *Graph) (*Graph, PassReport) {
	rep := PassReport{Name: "FuseActivation"}
	c := cloneGraph(g)
	uses := entryUses(c)
	drop := map[*Node]bool{}
	for _, n := range c.Nodes {
		cap, capped := ops.CappedRelu(n.Op, n.Attrs)
		if n.IsVar() || len(n.Inputs) != 1 || !capped && !ops.IsRelu(n.Op, n.Attrs) {
			continue
		}
		layer := n.Inputs[0]
		p := layer.Node
		if p.IsVar() || layer.Index != 0 || uses[layer] != 1 || p.NumOutputs() != 1 {
			continue
		}
		fusedOp, attrs := ops.WithRelu(p.Op), p.Attrs
		if capped {
			fusedOp, attrs = ops.WithCappedRelu(p.Op, p.Attrs, cap)
		}
		if fusedOp == nil || !sameFloat(p, n) {
			continue
		}
		f := &Node{Op: fusedOp, Name: n.Name, Attrs: attrs, Inputs: append([]Entry(nil), p.Inputs...), Extra: n.Extra}
		if err := inferNode(f); err != nil || !f.Shapes[0].Equal(n.Shapes[0]) {
			continue // cannot happen for a graph that inferred; keep the pair
		}
		drop[p] = true
		*n = *f // the relu's node becomes the fused one: its readers need no change
		rep.add("fused %s -> %s into %s", p.Name, n.Name, n.Name)
	}
	c.dropNodes(drop)
	return c, rep
}

// sameFloat reports whether the layer p and the relu n have one output
// each, of the same float dtype.
func sameFloat(p, n *Node) bool {
	if len(p.DTypes) != 1 || len(n.DTypes) != 1 || p.DTypes[0] != n.DTypes[0] {
		return false
	}
	return p.DTypes[0] == ops.Float32 || p.DTypes[0] == ops.Float64
}
