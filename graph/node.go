package graph

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

// Node is one vertex of a graph: an op applied to inputs, or a variable
// (Op == nil) that stands for a data input, a parameter, an auxiliary
// state, or a constant captured while tracing.
type Node struct {
	Op     *ops.Op   // nil for a variable
	Name   string    // unique within a graph: "conv0_fwd", "data", "conv0_weight"
	Attrs  ops.Attrs // the op's attributes (nil for a variable)
	Inputs []Entry
	// Extra holds attributes kept as strings: a variable's annotations
	// ("__lr_mult__", "__init__", …; its "__shape__" and "__dtype__" live
	// in Shapes and DTypes) and any attribute an op does not know
	// (tolerated when reading model files, written back unchanged).
	Extra map[string]string

	// Shapes and DTypes are the inferred shape and dtype of each output
	// (0 dims and ops.Unknown where not yet known). For a variable they
	// are what it was declared with, refined by inference.
	Shapes []ops.Shape
	DTypes []ops.DType

	// Value is the fixed value of a constant variable: an NDArray that a
	// traced function used directly. Nil for other nodes.
	Value *eager.NDArray
}

// Entry is one output of a node: the edge type of the graph.
type Entry struct {
	Node  *Node
	Index int
}

// IsVar reports whether the node is a variable.
func (n *Node) IsVar() bool { return n.Op == nil }

// NumOutputs is how many outputs the node has (1 for a variable).
func (n *Node) NumOutputs() int { return len(n.Shapes) }

// Shape returns the inferred shape of output i.
func (e Entry) Shape() ops.Shape { return e.Node.Shapes[e.Index] }

// DType returns the inferred dtype of output i.
func (e Entry) DType() ops.DType { return e.Node.DTypes[e.Index] }

// OutputName names an output as MXNet's list_outputs does: "<node>_output"
// for single-output ops, "<node>_output<i>" otherwise; a variable's output
// is its own name.
func (e Entry) OutputName() string {
	switch {
	case e.Node.IsVar():
		return e.Node.Name
	case e.Node.NumOutputs() == 1 || e.Index == 0 && e.Node.Op.NumVisibleOutputs(e.Node.Attrs) == 1:
		// One visible output (BatchNorm hides its mean and variance).
		return e.Node.Name + "_output"
	}
	return fmt.Sprintf("%s_output%d", e.Node.Name, e.Index)
}

// Graph is the nodes that outputs depend on, in topological order (every
// node after its inputs), as MXNet writes them in symbol JSON files.
type Graph struct {
	Nodes   []*Node
	Outputs []Entry
}

// NewGraph collects the nodes outputs depend on, in depth-first post-order
// (inputs in order), which is MXNet's order and is deterministic.
func NewGraph(outputs []Entry) *Graph {
	g := &Graph{Outputs: outputs}
	seen := map[*Node]bool{}
	var visit func(n *Node)
	visit = func(n *Node) {
		if seen[n] {
			return
		}
		seen[n] = true
		for _, in := range n.Inputs {
			visit(in.Node)
		}
		g.Nodes = append(g.Nodes, n)
	}
	for _, o := range outputs {
		visit(o.Node)
	}
	return g
}

// auxVars returns the variables that some op updates in place (BatchNorm's
// moving statistics): MXNet's auxiliary states.
func (g *Graph) auxVars() map[*Node]bool {
	aux := map[*Node]bool{}
	for _, n := range g.Nodes {
		if n.IsVar() {
			continue
		}
		for _, i := range n.Op.AuxInputs() {
			if i < len(n.Inputs) && n.Inputs[i].Node.IsVar() {
				aux[n.Inputs[i].Node] = true
			}
		}
	}
	return aux
}

// Inputs lists every variable (arguments and auxiliary states) in
// topological order; constants are included.
func (g *Graph) Inputs() []*Node {
	var vars []*Node
	for _, n := range g.Nodes {
		if n.IsVar() {
			vars = append(vars, n)
		}
	}
	return vars
}

// Arguments lists the variables that are not auxiliary states.
func (g *Graph) Arguments() []*Node {
	aux := g.auxVars()
	var args []*Node
	for _, n := range g.Inputs() {
		if !aux[n] {
			args = append(args, n)
		}
	}
	return args
}

// AuxStates lists the variables that ops update in place.
func (g *Graph) AuxStates() []*Node {
	aux := g.auxVars()
	var out []*Node
	for _, n := range g.Inputs() {
		if aux[n] {
			out = append(out, n)
		}
	}
	return out
}

// ShapeString prints a shape and dtype as "16x6x24x24 float32", or "?"
// parts where unknown.
func ShapeString(s ops.Shape, d ops.DType) string {
	var b strings.Builder
	if s == nil {
		b.WriteString("?")
	} else {
		b.WriteString(s.String())
	}
	b.WriteString(" ")
	b.WriteString(d.String())
	return b.String()
}

// String prints the graph one op per line, in the spirit of torch.fx:
//
//	graph(data: 16x1x28x28 float32, conv0_weight: 6x1x5x5 float32, …):
//	  %conv0_fwd = Convolution(%data, %conv0_weight, %conv0_bias; kernel=(5, 5) num_filter=6)  # 16x6x24x24 float32
//	  return %conv0_fwd
func (g *Graph) String() string {
	var b strings.Builder
	ref := func(e Entry) string {
		if e.Node.NumOutputs() > 1 {
			return fmt.Sprintf("%%%s.%d", e.Node.Name, e.Index)
		}
		return "%" + e.Node.Name
	}
	var params []string
	for _, n := range g.Inputs() {
		kind := ""
		if n.Value != nil {
			kind = " const"
		}
		params = append(params, fmt.Sprintf("%s: %s%s", n.Name, ShapeString(n.Shapes[0], n.DTypes[0]), kind))
	}
	fmt.Fprintf(&b, "graph(%s):\n", strings.Join(params, ", "))
	for _, n := range g.Nodes {
		if n.IsVar() {
			continue
		}
		args := make([]string, len(n.Inputs))
		for i, in := range n.Inputs {
			args[i] = ref(in)
		}
		call := strings.Join(args, ", ")
		if a := n.Op.AttrString(n.Attrs); a != "" {
			call += "; " + a
		}
		var shapes []string
		for i := range n.Shapes {
			shapes = append(shapes, ShapeString(n.Shapes[i], n.DTypes[i]))
		}
		fmt.Fprintf(&b, "  %%%s = %s(%s)  # %s\n", n.Name, n.Op.Name(), call, strings.Join(shapes, ", "))
	}
	outs := make([]string, len(g.Outputs))
	for i, o := range g.Outputs {
		outs[i] = ref(o)
	}
	fmt.Fprintf(&b, "  return %s\n", strings.Join(outs, ", "))
	return b.String()
}

// sortedNames returns the keys of m in order.
func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}
