package graph

import (
	"fmt"

	"github.com/hybridgo/hybridgo/ops"
)

// Gradients builds, with tracer t, the graph of the gradients of outs
// (weighted by heads, one per output) with respect to the variables wrt.
// It is reverse-mode differentiation over the graph using each op's
// registered gradient rule — the same rules the eager tape uses — applied
// through the tracer's F, so the result is itself a graph. A variable
// that outs do not depend on gets zeros.
func Gradients(t *Tracer, outs, heads []Entry, wrt []*Node) (grads []Entry, err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(error)
			if !ok {
				panic(r)
			}
			grads, err = nil, e
		}
	}()
	if len(heads) != len(outs) {
		return nil, fmt.Errorf("gradients: %d head gradients for %d outputs", len(heads), len(outs))
	}
	F := t.F()
	g := NewGraph(outs)
	// needs[n]: some variable in wrt is reachable from n.
	target := map[*Node]bool{}
	for _, w := range wrt {
		target[w] = true
	}
	needs := map[*Node]bool{}
	for _, n := range g.Nodes {
		needs[n] = target[n]
		for _, in := range n.Inputs {
			needs[n] = needs[n] || needs[in.Node]
		}
	}
	sums := map[Entry]ops.Tensor{}
	add := func(e Entry, grad ops.Tensor) {
		if old, ok := sums[e]; ok {
			grad = F.Add(old, grad)
		}
		sums[e] = grad
	}
	for i, o := range outs {
		add(o, FromEntries(heads[i]))
	}
	for i := len(g.Nodes) - 1; i >= 0; i-- {
		n := g.Nodes[i]
		if n.IsVar() || !needs[n] {
			continue
		}
		outGrads := make([]ops.Tensor, n.NumOutputs())
		have := false
		for j := range outGrads {
			if s, ok := sums[Entry{n, j}]; ok {
				outGrads[j], have = s, true
			}
		}
		if !have {
			continue
		}
		outSyms := make([]ops.Tensor, n.NumOutputs())
		for j := range outSyms {
			outSyms[j] = FromEntries(Entry{n, j})
			if outGrads[j] == nil {
				outGrads[j] = F.ZerosLike(outSyms[j])
			}
		}
		inSyms := make([]ops.Tensor, len(n.Inputs))
		for j, in := range n.Inputs {
			inSyms[j] = FromEntries(in)
		}
		inGrads, err := n.Op.Gradient(F, n.Attrs, inSyms, outSyms, outGrads)
		if err != nil {
			return nil, nodeError(n, err)
		}
		for j, in := range n.Inputs {
			if j < len(inGrads) && inGrads[j] != nil && needs[in.Node] {
				add(in, inGrads[j])
			}
		}
	}
	grads = make([]Entry, len(wrt))
	for i, w := range wrt {
		s, ok := sums[Entry{w, 0}]
		if !ok {
			s = F.ZerosLike(FromEntries(Entry{w, 0}))
		}
		sym, ok := s.(*Symbol)
		if !ok || len(sym.outs) != 1 {
			return nil, fmt.Errorf("gradients: the gradient of %s is not a single symbol", w.Name)
		}
		grads[i] = sym.outs[0]
	}
	return grads, nil
}
