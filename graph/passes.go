package graph

import (
	"fmt"
	"maps"
	"reflect"
	"sort"
	"strings"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

// Graph passes: small rewrites of the IR. Each takes a graph, leaves it
// untouched, and returns a new graph (sharing only attributes and constant
// values with the old one) with a report of what it changed.

// PassReport says what one pass changed, one line per change.
type PassReport struct {
	Name    string
	Changes []string
}

// String prints the pass's name, the number of changes and one indented
// line per change:
//
//	EliminateCommonSubexpressions: 1 change
//	  merged relu1 into relu0
func (r PassReport) String() string {
	switch len(r.Changes) {
	case 0:
		return r.Name + ": no changes"
	case 1:
		return r.Name + ": 1 change\n  " + r.Changes[0]
	}
	return fmt.Sprintf("%s: %d changes\n  %s", r.Name, len(r.Changes), strings.Join(r.Changes, "\n  "))
}

func (r *PassReport) add(format string, args ...any) {
	r.Changes = append(r.Changes, fmt.Sprintf(format, args...))
}

// PassOptions chooses the passes Optimize runs (shape inference always runs).
type PassOptions struct {
	DCE           bool // EliminateDeadCode, before and after folding
	CSE           bool // EliminateCommonSubexpressions
	FoldConstants bool // FoldConstants
	Fuse          bool // FuseActivation, then FuseElementwise
	// Inference says that the graph runs outside training only, so that
	// FoldBatchNorm may run (before the fusions, when Fuse is on too).
	// Compile never runs it on the program that calls on the tape or in
	// training mode run: it makes a second program, for the other calls,
	// when Inference is on.
	Inference bool
}

// DefaultPassOptions turns on every pass that keeps a graph fit for
// training: all but Inference.
func DefaultPassOptions() PassOptions {
	return PassOptions{DCE: true, CSE: true, FoldConstants: true, Fuse: true}
}

// InferencePassOptions turns every pass on, Inference included: the
// passes of a graph run outside training (Compile's default).
func InferencePassOptions() PassOptions {
	o := DefaultPassOptions()
	o.Inference = true
	return o
}

// Optimize runs the chosen passes in order: shape inference, dead code
// elimination, common subexpressions, constant folding, dead code again
// (folding leaves its inputs behind), BatchNorm folding (with Inference),
// and fusion: layers with their relu, then element-wise chains. Fusion
// makes nodes with no gradient, so differentiate before optimizing. It
// returns the new graph and one report per pass run.
func Optimize(g *Graph, opt PassOptions) (*Graph, []PassReport, error) {
	return optimize(g, opt, true)
}

// optimize is Optimize; without fuse it leaves out the fusion passes, so
// that every op's output stays visible (to an op hook).
func optimize(g *Graph, opt PassOptions, fuse bool) (*Graph, []PassReport, error) {
	g, rep, err := InferShapes(g)
	reports := []PassReport{rep}
	if err != nil {
		return nil, reports, err
	}
	run := func(on bool, pass func(*Graph) (*Graph, PassReport)) {
		if on {
			var r PassReport
			g, r = pass(g)
			reports = append(reports, r)
		}
	}
	run(opt.DCE, EliminateDeadCode)
	run(opt.CSE, EliminateCommonSubexpressions)
	run(opt.FoldConstants, FoldConstants)
	run(opt.DCE && opt.FoldConstants, EliminateDeadCode)
	run(opt.Inference && opt.Fuse && fuse, FoldBatchNorm)
	run(opt.Fuse && fuse, FuseActivation)
	run(opt.Fuse && fuse, FuseElementwise)
	return g, reports, nil
}

// cloneGraph copies every node g lists, and any node its outputs reach
// that it does not list, in a topological order that keeps g's order
// where g's is one. Attributes and constant values are shared; shapes,
// dtypes, inputs and annotations are the copy's own.
func cloneGraph(g *Graph) *Graph {
	copies := map[*Node]*Node{}
	c := &Graph{}
	var visit func(n *Node)
	visit = func(n *Node) {
		if _, done := copies[n]; done {
			return
		}
		copies[n] = nil // visiting; inputs never lead back here in a DAG
		for _, in := range n.Inputs {
			visit(in.Node)
		}
		cp := *n
		cp.Inputs = make([]Entry, len(n.Inputs))
		for i, in := range n.Inputs {
			cp.Inputs[i] = Entry{copies[in.Node], in.Index}
		}
		cp.Shapes = make([]ops.Shape, len(n.Shapes))
		for i, s := range n.Shapes {
			cp.Shapes[i] = s.Clone()
		}
		cp.DTypes = append([]ops.DType(nil), n.DTypes...)
		cp.Extra = maps.Clone(n.Extra)
		copies[n] = &cp
		c.Nodes = append(c.Nodes, &cp)
	}
	for _, n := range g.Nodes {
		visit(n)
	}
	for _, o := range g.Outputs {
		visit(o.Node)
		c.Outputs = append(c.Outputs, Entry{copies[o.Node], o.Index})
	}
	return c
}

// remap replaces the entries in m wherever a node or the outputs read them.
func (g *Graph) remap(m map[Entry]Entry) {
	if len(m) == 0 {
		return
	}
	for _, n := range g.Nodes {
		for i, in := range n.Inputs {
			if r, ok := m[in]; ok {
				n.Inputs[i] = r
			}
		}
	}
	for i, o := range g.Outputs {
		if r, ok := m[o]; ok {
			g.Outputs[i] = r
		}
	}
}

// outputsKnown reports whether every output of n has a known shape and dtype.
func outputsKnown(n *Node) bool {
	if len(n.Shapes) == 0 || len(n.DTypes) != len(n.Shapes) {
		return false
	}
	for i, s := range n.Shapes {
		if !s.Known() || n.DTypes[i] == ops.Unknown {
			return false
		}
	}
	return true
}

// shapesString prints a node's output shapes and dtypes.
func shapesString(n *Node) string {
	parts := make([]string, len(n.Shapes))
	for i := range n.Shapes {
		parts[i] = ShapeString(n.Shapes[i], n.DTypes[i])
	}
	return strings.Join(parts, ", ")
}

// InferShapes runs shape and dtype inference over a copy of g and reports
// the nodes (variables included) whose outputs became fully known.
func InferShapes(g *Graph) (*Graph, PassReport, error) {
	rep := PassReport{Name: "InferShapes"}
	c := cloneGraph(g)
	before := map[*Node]bool{}
	for _, n := range c.Nodes {
		before[n] = outputsKnown(n)
	}
	if err := InferGraph(c); err != nil {
		return nil, rep, err
	}
	for _, n := range c.Nodes {
		if !before[n] && outputsKnown(n) {
			rep.add("inferred %s: %s", n.Name, shapesString(n))
		}
	}
	return c, rep, nil
}

// EliminateDeadCode drops the nodes that no output depends on (a graph
// built by hand may list more nodes than its outputs need), unused
// variables included.
func EliminateDeadCode(g *Graph) (*Graph, PassReport) {
	rep := PassReport{Name: "EliminateDeadCode"}
	c := cloneGraph(g)
	live := map[*Node]bool{}
	for _, n := range NewGraph(c.Outputs).Nodes {
		live[n] = true
	}
	kept := make([]*Node, 0, len(live))
	for _, n := range c.Nodes {
		switch {
		case live[n]:
			kept = append(kept, n)
		case n.IsVar():
			rep.add("removed unused variable %s", n.Name)
		default:
			rep.add("removed dead node %s", n.Name)
		}
	}
	c.Nodes = kept
	return c, rep
}

// EliminateCommonSubexpressions merges op nodes that compute the same
// thing: the same op, equal attributes and annotations, and the same
// input entries (after earlier merges). Random ops and ops that update
// auxiliary states are never merged, nor are variables.
func EliminateCommonSubexpressions(g *Graph) (*Graph, PassReport) {
	rep := PassReport{Name: "EliminateCommonSubexpressions"}
	c := cloneGraph(g)
	merged := map[Entry]Entry{}
	byKey := map[string][]*Node{}
	kept := make([]*Node, 0, len(c.Nodes))
	for _, n := range c.Nodes {
		for i, in := range n.Inputs {
			if r, ok := merged[in]; ok {
				n.Inputs[i] = r
			}
		}
		if n.IsVar() || n.Op.Random() || len(n.Op.AuxInputs()) > 0 {
			kept = append(kept, n)
			continue
		}
		key := cseKey(n)
		var same *Node
		for _, m := range byKey[key] {
			if sameComputation(m, n) {
				same = m
				break
			}
		}
		if same == nil {
			byKey[key] = append(byKey[key], n)
			kept = append(kept, n)
			continue
		}
		for i := range n.Shapes {
			merged[Entry{n, i}] = Entry{same, i}
		}
		rep.add("merged %s into %s", n.Name, same.Name)
	}
	c.Nodes = kept
	c.remap(merged)
	return c, rep
}

// cseKey is a string that equal computations share: op, attributes,
// annotations and the identity of each input entry.
func cseKey(n *Node) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s(", n.Op.Name())
	for _, in := range n.Inputs {
		fmt.Fprintf(&b, "%p.%d,", in.Node, in.Index)
	}
	fmt.Fprintf(&b, ";%s", n.Op.AttrString(n.Attrs))
	keys := make([]string, 0, len(n.Extra))
	for k := range n.Extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%s", k, n.Extra[k])
	}
	return b.String()
}

// sameComputation checks in full what cseKey suggests: the printed
// attributes may round, and attributes that do not print are compared too.
func sameComputation(a, b *Node) bool {
	if a.Op != b.Op || len(a.Inputs) != len(b.Inputs) || !maps.Equal(a.Extra, b.Extra) {
		return false
	}
	for i := range a.Inputs {
		if a.Inputs[i] != b.Inputs[i] {
			return false
		}
	}
	return reflect.DeepEqual(a.Attrs, b.Attrs)
}

// FoldConstants computes, once, every op node whose inputs are all
// constants and replaces it with a constant variable of the same name
// ("<name>_output<i>" per output for several outputs). One sweep in
// topological order reaches the fixed point, since a node's inputs are
// folded before the node is visited. Random ops and ops that update
// auxiliary states are left alone, and the values are computed as in
// prediction. A node whose kernel fails is left for Eval to report. The
// constants that fed folded nodes stay listed until EliminateDeadCode.
func FoldConstants(g *Graph) (*Graph, PassReport) {
	rep := PassReport{Name: "FoldConstants"}
	c := cloneGraph(g)
	folded := map[Entry]Entry{}
	nodes := make([]*Node, 0, len(c.Nodes))
	for _, n := range c.Nodes {
		for i, in := range n.Inputs {
			if r, ok := folded[in]; ok {
				n.Inputs[i] = r
			}
		}
		consts := foldNode(n)
		if consts == nil {
			nodes = append(nodes, n)
			continue
		}
		for i, k := range consts {
			folded[Entry{n, i}] = Entry{k, 0}
		}
		nodes = append(nodes, consts...)
		shapes := make([]string, len(consts))
		for i, k := range consts {
			shapes[i] = ShapeString(k.Shapes[0], k.DTypes[0])
		}
		rep.add("folded %s (constant %s)", n.Name, strings.Join(shapes, ", "))
	}
	c.Nodes = nodes
	c.remap(folded)
	return c, rep
}

// foldNode computes n when all its inputs are constants and returns one
// constant variable per output; nil when n cannot be folded.
func foldNode(n *Node) []*Node {
	if n.IsVar() || n.Op.Random() || len(n.Op.AuxInputs()) > 0 {
		return nil
	}
	in := make([]*eager.NDArray, len(n.Inputs))
	for i, e := range n.Inputs {
		if e.Node.Value == nil {
			return nil
		}
		in[i] = e.Node.Value
	}
	out, err := runNode(n, in, false)
	if err != nil {
		return nil
	}
	consts := make([]*Node, len(out))
	for i, a := range out {
		name := n.Name
		if len(out) > 1 {
			name = fmt.Sprintf("%s_output%d", n.Name, i)
		}
		consts[i] = &Node{Name: name, Shapes: []ops.Shape{a.Shape()}, DTypes: []ops.DType{a.DType()}, Value: a}
	}
	return consts
}
