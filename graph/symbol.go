package graph

import (
	"fmt"
	"strings"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

// Symbol is a handle on one or more outputs of a graph: MXNet's Symbol.
// It implements ops.Tensor, so the same F code that runs on NDArrays
// builds graphs on Symbols. Shape and DType are known (they are inferred
// as the graph is built); values are not, and asking for them panics with
// a *HybridizationError.
type Symbol struct {
	outs []Entry
}

var _ ops.Tensor = (*Symbol)(nil)

// Var makes a variable: a named input of a graph, with a shape (0 for
// unknown dims, or nil when nothing is known) and a dtype (ops.Unknown if
// not known).
func Var(name string, shape ops.Shape, dtype ops.DType) *Symbol {
	return &Symbol{outs: []Entry{{&Node{Name: name, Shapes: []ops.Shape{shape.Clone()}, DTypes: []ops.DType{dtype}}, 0}}}
}

// Group makes one symbol of the outputs of several (MXNet's sym.Group).
func Group(syms ...*Symbol) *Symbol {
	var outs []Entry
	for _, s := range syms {
		outs = append(outs, s.outs...)
	}
	return &Symbol{outs: outs}
}

// FromEntries makes a symbol of graph entries.
func FromEntries(outs ...Entry) *Symbol { return &Symbol{outs: append([]Entry(nil), outs...)} }

// Entries returns the outputs the symbol stands for.
func (s *Symbol) Entries() []Entry { return append([]Entry(nil), s.outs...) }

// NumOutputs is the number of outputs.
func (s *Symbol) NumOutputs() int { return len(s.outs) }

// Output returns the i-th output as a symbol of its own (MXNet's sym[i]).
func (s *Symbol) Output(i int) *Symbol {
	if i < 0 || i >= len(s.outs) {
		panic(&ops.Error{Op: "Symbol.Output", Msg: fmt.Sprintf("index %d is out of range for a symbol of %d outputs", i, len(s.outs))})
	}
	return &Symbol{outs: []Entry{s.outs[i]}}
}

// Name is the name of the node behind the (first) output.
func (s *Symbol) Name() string {
	if len(s.outs) == 0 {
		return ""
	}
	return s.outs[0].Node.Name
}

// Graph returns the graph the symbol's outputs depend on.
func (s *Symbol) Graph() *Graph { return NewGraph(s.outs) }

// Shape returns the inferred shape of the first output (0 for unknown dims).
func (s *Symbol) Shape() ops.Shape {
	if len(s.outs) == 0 {
		return nil
	}
	return s.outs[0].Shape().Clone()
}

// DType returns the inferred dtype of the first output.
func (s *Symbol) DType() ops.DType {
	if len(s.outs) == 0 {
		return ops.Unknown
	}
	return s.outs[0].DType()
}

// String prints MXNet's short form, with the inferred shape and dtype when
// known: "<Symbol conv0_fwd 16x6x24x24 float32>".
func (s *Symbol) String() string {
	if len(s.outs) != 1 {
		names := make([]string, len(s.outs))
		for i, o := range s.outs {
			names[i] = o.OutputName()
		}
		return fmt.Sprintf("<Symbol group [%s]>", strings.Join(names, ", "))
	}
	e := s.outs[0]
	name := e.Node.Name
	if e.Node.NumOutputs() > 1 {
		name = e.OutputName()
	}
	if sh := e.Shape(); sh != nil && sh.Known() && e.DType() != ops.Unknown {
		return fmt.Sprintf("<Symbol %s %s>", name, ShapeString(sh, e.DType()))
	}
	return fmt.Sprintf("<Symbol %s>", name)
}

func (s *Symbol) hybridizationError(attempt, fix string) *HybridizationError {
	e := &HybridizationError{Attempt: attempt, Fix: fix, Op: "variable"}
	if len(s.outs) > 0 {
		n := s.outs[0].Node
		e.Node = n.Name
		if !n.IsVar() {
			e.Op = n.Op.Name()
		}
	}
	return e
}

const valuesFix = "Compute with F ops instead (they work on Symbols and NDArrays alike). To look at values, call the block before Hybridize(), or register an op hook."

// Float32s panics with a *HybridizationError: a Symbol has no values.
func (s *Symbol) Float32s() []float32 {
	panic(s.hybridizationError("Float32s()", valuesFix))
}

// Float64s panics with a *HybridizationError: a Symbol has no values.
func (s *Symbol) Float64s() []float64 {
	panic(s.hybridizationError("Float64s()", valuesFix))
}

// Scalar panics with a *HybridizationError: a Symbol has no values.
func (s *Symbol) Scalar() float64 {
	panic(s.hybridizationError("Scalar()", "To choose between values, use F.Where(cond, x, y) instead of an if on tensor values; shapes are known while tracing, so branching on x.Shape() is fine."))
}

// At panics with a *HybridizationError: a Symbol has no values.
func (s *Symbol) At(index ...int) float64 {
	panic(s.hybridizationError(fmt.Sprintf("At%v", index), "To pick elements, use F.Slice, F.Take or F.Pick; to choose between values, use F.Where(cond, x, y)."))
}

// ListArguments names the variables that are not auxiliary states.
func (s *Symbol) ListArguments() []string { return nodeNames(s.Graph().Arguments()) }

// ListAuxiliaryStates names the variables ops update in place.
func (s *Symbol) ListAuxiliaryStates() []string { return nodeNames(s.Graph().AuxStates()) }

// ListInputs names every variable, arguments and auxiliary states.
func (s *Symbol) ListInputs() []string { return nodeNames(s.Graph().Inputs()) }

// ListOutputs names the outputs ("fc1_output").
func (s *Symbol) ListOutputs() []string {
	names := make([]string, len(s.outs))
	for i, o := range s.outs {
		names[i] = o.OutputName()
	}
	return names
}

func nodeNames(nodes []*Node) []string {
	names := make([]string, len(nodes))
	for i, n := range nodes {
		names[i] = n.Name
	}
	return names
}

// GetInternals returns a group of every output of every node, in
// topological order (MXNet's get_internals).
func (s *Symbol) GetInternals() *Symbol {
	var outs []Entry
	for _, n := range s.Graph().Nodes {
		for i := range n.Shapes {
			outs = append(outs, Entry{n, i})
		}
	}
	return &Symbol{outs: outs}
}

// GetChildren returns the inputs of the node behind the output, as a
// group; nil for a variable.
func (s *Symbol) GetChildren() *Symbol {
	if len(s.outs) == 0 || s.outs[0].Node.IsVar() {
		return nil
	}
	return &Symbol{outs: append([]Entry(nil), s.outs[0].Node.Inputs...)}
}

// InferShape infers every shape of the graph from the shapes given for
// some of its variables (by name; 0 for unknown dims), as MXNet's
// infer_shape. It returns the shapes of the arguments, the outputs and the
// auxiliary states, in the orders of ListArguments, ListOutputs and
// ListAuxiliaryStates. The symbol itself is not changed.
func (s *Symbol) InferShape(known map[string]ops.Shape) (args, outs, aux []ops.Shape, err error) {
	c, err := s.inferCopy(known, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	g := c.Graph()
	for _, n := range g.Arguments() {
		args = append(args, n.Shapes[0])
	}
	for _, o := range c.outs {
		outs = append(outs, o.Shape())
	}
	for _, n := range g.AuxStates() {
		aux = append(aux, n.Shapes[0])
	}
	return args, outs, aux, nil
}

// InferType is InferShape for dtypes.
func (s *Symbol) InferType(known map[string]ops.DType) (args, outs, aux []ops.DType, err error) {
	c, err := s.inferCopy(nil, known)
	if err != nil {
		return nil, nil, nil, err
	}
	g := c.Graph()
	for _, n := range g.Arguments() {
		args = append(args, n.DTypes[0])
	}
	for _, o := range c.outs {
		outs = append(outs, o.DType())
	}
	for _, n := range g.AuxStates() {
		aux = append(aux, n.DTypes[0])
	}
	return args, outs, aux, nil
}

// inferCopy copies the graph, sets the given variable shapes and dtypes,
// and re-runs inference over it.
func (s *Symbol) inferCopy(shapes map[string]ops.Shape, dtypes map[string]ops.DType) (*Symbol, error) {
	c := s.Copy()
	g := c.Graph()
	byName := map[string]*Node{}
	for _, n := range g.Inputs() {
		byName[n.Name] = n
	}
	for _, name := range sortedNames(shapes) {
		n, ok := byName[name]
		if !ok {
			return nil, fmt.Errorf("infer shape: the graph has no variable %q (it has: %s)", name, strings.Join(nodeNames(g.Inputs()), ", "))
		}
		n.Shapes[0] = shapes[name].Clone()
	}
	for _, name := range sortedNames(dtypes) {
		n, ok := byName[name]
		if !ok {
			return nil, fmt.Errorf("infer type: the graph has no variable %q (it has: %s)", name, strings.Join(nodeNames(g.Inputs()), ", "))
		}
		n.DTypes[0] = dtypes[name]
	}
	if err := InferGraph(g); err != nil {
		return nil, err
	}
	return c, nil
}

// InferGraph re-runs shape and dtype inference over every op node, in
// order, from the variables' shapes and dtypes.
func InferGraph(g *Graph) error {
	for _, n := range g.Nodes {
		if n.IsVar() {
			continue
		}
		if err := inferNode(n); err != nil {
			return err
		}
	}
	return nil
}

// Copy returns a symbol for a copy of the graph behind s: its nodes can be
// changed (a variable's shape, a constant made a variable) without
// changing s. Constants keep sharing their values.
func (s *Symbol) Copy() *Symbol { return &Symbol{outs: copyGraph(s.outs)} }

// copyGraph duplicates the nodes outs depend on and returns the matching
// entries of the copy. Constants keep sharing their values.
func copyGraph(outs []Entry) []Entry {
	copies := map[*Node]*Node{}
	for _, n := range NewGraph(outs).Nodes {
		c := *n
		c.Inputs = make([]Entry, len(n.Inputs))
		for i, in := range n.Inputs {
			c.Inputs[i] = Entry{copies[in.Node], in.Index}
		}
		c.Shapes = make([]ops.Shape, len(n.Shapes))
		for i, sh := range n.Shapes {
			c.Shapes[i] = sh.Clone()
		}
		c.DTypes = append([]ops.DType(nil), n.DTypes...)
		if n.Extra != nil {
			c.Extra = map[string]string{}
			for k, v := range n.Extra {
				c.Extra[k] = v
			}
		}
		copies[n] = &c
	}
	res := make([]Entry, len(outs))
	for i, o := range outs {
		res[i] = Entry{copies[o.Node], o.Index}
	}
	return res
}

// Eval runs the graph on NDArrays bound to its variables by name and
// returns its outputs (MXNet's sym.eval). Constants need no binding.
func (s *Symbol) Eval(bindings map[string]*eager.NDArray) ([]*eager.NDArray, error) {
	return Eval(s.Graph(), bindings, eager.IsTraining())
}
