// Package sym is the REPL's ready-made symbolic namespace, MXNet's mx.sym:
// every op of ops.F as a function that adds a node to a graph and returns
// a *graph.Symbol whose shape is inferred as it is built:
//
//	data := sym.Var("data", ops.Shape{16, 1, 28, 28}, ops.Float32)
//	h := sym.Relu(sym.FullyConnected(data, w, b, 10)) // <Symbol ... 16x10 float32>
//
// The op wrappers are generated from ops.F (go generate ./repl) and run
// through graph.F.
package sym

import (
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

// Symbol is graph.Symbol, so that sym.Symbol names the type in the REPL.
type Symbol = graph.Symbol

// Var makes a named graph input with a shape (0 for unknown dims, nil when
// nothing is known) and a dtype (ops.Unknown if not known).
func Var(name string, shape ops.Shape, dtype ops.DType) *Symbol { return graph.Var(name, shape, dtype) }

// Group makes one symbol of the outputs of several.
func Group(syms ...*Symbol) *Symbol { return graph.Group(syms...) }

// F is graph.F, the namespace the generated functions run through.
var F = graph.F

func sym(t ops.Tensor) *Symbol {
	if t == nil {
		return nil
	}
	return t.(*Symbol)
}

func syms(ts []ops.Tensor) []*Symbol {
	out := make([]*Symbol, len(ts))
	for i, t := range ts {
		out[i] = sym(t)
	}
	return out
}
