package graph

import "github.com/hybridgo/hybridgo/ops"

// FoldBatchNorm rewrites a graph that runs outside training only (where
// BatchNorm normalises with its running statistics):
//
//   - a BatchNorm of a Convolution's channels, when it is the only reader
//     of the convolution's output and its batch statistics are not read,
//     becomes one node with the convolution (ops.WithBatchNorm): the
//     normalisation is a scale and shift per channel applied to each tile
//     of the product, so the normalised output is written once;
//   - a sum of such a node's output with another value of its shape, when
//     the sum is the output's only reader, becomes the node's residual
//     input (ops.WithResidual): the end of a ResNet block.
//
// A rectifier after either is then FuseActivation's to fuse. The nodes
// keep the names of the BatchNorm and of the sum, so the graph's outputs
// and their names do not change. The folded ops have no gradient and
// ignore training mode, so Compile runs this pass only on the program
// for calls outside Record and outside training (see Executable.Call);
// graphs saved to files are the traced ones, with MXNet's ops.
func FoldBatchNorm(g *Graph) (*Graph, PassReport) {
	rep := PassReport{Name: "FoldBatchNorm"}
	c := cloneGraph(g)
	uses := entryUses(c)
	drop := map[*Node]bool{}
	for _, n := range c.Nodes {
		if f := foldedBatchNorm(n, uses); f != nil {
			drop[n.Inputs[0].Node] = true
			rep.add("folded %s into %s", n.Name, n.Inputs[0].Node.Name)
			*n = *f // the BatchNorm's node becomes the fused one: its readers need no change
			continue
		}
		if f, layer := foldedResidual(n, uses); f != nil {
			drop[layer] = true
			rep.add("fused %s -> %s into %s", layer.Name, n.Name, n.Name)
			*n = *f
		}
	}
	c.dropNodes(drop)
	return c, rep
}

// entryUses counts the readers of each entry of g, a graph output
// counting as one (it has a reader outside the graph).
func entryUses(g *Graph) map[Entry]int {
	uses := map[Entry]int{}
	for _, n := range g.Nodes {
		for _, in := range n.Inputs {
			uses[in]++
		}
	}
	for _, o := range g.Outputs {
		uses[o]++
	}
	return uses
}

// dropNodes removes the nodes in drop from g's list.
func (g *Graph) dropNodes(drop map[*Node]bool) {
	if len(drop) == 0 {
		return
	}
	nodes := g.Nodes[:0:0]
	for _, n := range g.Nodes {
		if !drop[n] {
			nodes = append(nodes, n)
		}
	}
	g.Nodes = nodes
}

// foldedBatchNorm returns the node computing n, a BatchNorm, together with
// the convolution it normalises, or nil when n is not one that folds.
func foldedBatchNorm(n *Node, uses map[Entry]int) *Node {
	bn, ok := n.Attrs.(*ops.BatchNormAttrs)
	if n.IsVar() || !ok || n.Op.Name() != "BatchNorm" || len(n.Inputs) != 5 || uses[Entry{n, 1}] != 0 || uses[Entry{n, 2}] != 0 {
		return nil
	}
	layer := n.Inputs[0]
	p := layer.Node
	fused := ops.WithBatchNorm(p.Op)
	if fused == nil || layer.Index != 0 || uses[layer] != 1 || !sameFloat(p, p) || len(n.DTypes) == 0 || p.DTypes[0] != n.DTypes[0] {
		return nil
	}
	conv, ok := p.Attrs.(*ops.ConvolutionAttrs)
	if !ok || len(p.Shapes[0]) < 3 {
		return nil
	}
	if ax, err := ops.NormAxis(bn.Axis, len(p.Shapes[0])); err != nil || ax != 1 {
		return nil // not the channels
	}
	attrs := &ops.ConvBNAttrs{Conv: *conv, Eps: bn.Eps, FixGamma: bn.FixGamma, Nodes: p.Name + "," + n.Name}
	inputs := append(append([]Entry(nil), p.Inputs...), n.Inputs[1:]...)
	f := &Node{Op: fused, Name: n.Name, Attrs: attrs, Inputs: inputs, Extra: n.Extra}
	if err := inferNode(f); err != nil || !f.Shapes[0].Equal(n.Shapes[0]) {
		return nil // cannot happen for a graph that inferred; keep the pair
	}
	return f
}

// foldedResidual returns the node computing n, a sum of two values of one
// shape, as the convolution with BatchNorm that computes one of them plus
// the other, and that convolution's node; nil when n is not such a sum.
func foldedResidual(n *Node, uses map[Entry]int) (*Node, *Node) {
	if n.IsVar() || !ops.IsElemwiseAdd(n.Op) || len(n.Inputs) != 2 || len(n.Shapes) != 1 {
		return nil, nil
	}
	for i, layer := range n.Inputs {
		p, other := layer.Node, n.Inputs[1-i]
		fused := ops.WithResidual(p.Op)
		if fused == nil || layer.Index != 0 || uses[layer] != 1 || other.Node == p ||
			!layer.Shape().Equal(n.Shapes[0]) || !other.Shape().Equal(n.Shapes[0]) || !sameFloat(p, n) || other.DType() != n.DTypes[0] {
			continue
		}
		attrs, ok := p.Attrs.(*ops.ConvBNAttrs)
		if !ok {
			continue
		}
		withSum := *attrs
		withSum.Nodes += "," + n.Name
		inputs := append(append([]Entry(nil), p.Inputs...), other)
		f := &Node{Op: fused, Name: n.Name, Attrs: &withSum, Inputs: inputs, Extra: n.Extra}
		if err := inferNode(f); err != nil || !f.Shapes[0].Equal(n.Shapes[0]) {
			continue
		}
		return f, p
	}
	return nil, nil
}
