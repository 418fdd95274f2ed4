package nn

import (
	"fmt"
	"strings"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/format/mxnet"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

// SymbolBlock is a hybrid block made from a graph rather than from Go
// code: MXNet Gluon's SymbolBlock. Its inputs are chosen variables of the
// graph; its parameters are all the other variables (constants aside),
// named as in the graph, the auxiliary states among them (BatchNorm's
// running statistics) with gradient request "null".
//
// Before Hybridize it runs the graph op by op on NDArrays, on the
// autograd tape, so gradients flow into its parameters and inputs; after
// Hybridize it runs as one cached graph. Inside another block it is a
// child like any other: when the parent is traced, the SymbolBlock's
// graph is copied into the parent's graph.
type SymbolBlock struct {
	HybridBlock
	// Params are the graph's parameters, arguments then auxiliary states,
	// in graph order.
	Params []*Parameter

	g      *graph.Graph
	inputs []string
	byVar  map[string]*Parameter // by graph variable name
	varOf  map[*Parameter]string // the graph variable each parameter binds
	keys   map[*Parameter]string // structural names (SaveParameters)
	isIn   map[*graph.Node]int   // input variables: index of the input
}

// ImportOptions are the options of SymbolBlockImports.
type ImportOptions struct {
	AllowMissing bool // parameters absent from the params file stay uninitialised
	IgnoreExtra  bool // entries of the params file the graph does not use are skipped
}

// NewSymbolBlock makes a block that computes outputs (a symbol or a group)
// from the variables named in inputNames. The other variables become the
// block's parameters: taken from params when one of the dicts holds a
// parameter of that name (the block then shares it), made new otherwise,
// with the shape and dtype the graph declares (0 dims are inferred on the
// first forward, as for any parameter).
func NewSymbolBlock(outputs *graph.Symbol, inputNames []string, params ...*ParameterDict) (*SymbolBlock, error) {
	if outputs == nil || outputs.NumOutputs() == 0 {
		return nil, fmt.Errorf("symbol block: the graph has no outputs")
	}
	g := outputs.Graph()
	vars := map[string]*graph.Node{}
	var names []string
	for _, n := range g.Inputs() {
		if _, dup := vars[n.Name]; dup {
			return nil, fmt.Errorf("symbol block: two variables of the graph are named %q", n.Name)
		}
		vars[n.Name] = n
		if n.Value == nil {
			names = append(names, n.Name)
		}
	}
	s := &SymbolBlock{g: g, inputs: append([]string(nil), inputNames...), byVar: map[string]*Parameter{},
		keys: map[*Parameter]string{}, varOf: map[*Parameter]string{}, isIn: map[*graph.Node]int{}}
	for i, name := range inputNames {
		n, ok := vars[name]
		if !ok || n.Value != nil {
			return nil, fmt.Errorf("symbol block: input %q is not a variable of the graph (its variables: %s)", name, strings.Join(names, ", "))
		}
		if _, dup := s.isIn[n]; dup {
			return nil, fmt.Errorf("symbol block: input %q is named twice", name)
		}
		s.isIn[n] = i
	}
	aux := map[*graph.Node]bool{}
	for _, n := range g.AuxStates() {
		aux[n] = true
	}
	var own []string
	for _, n := range append(g.Arguments(), g.AuxStates()...) {
		if n.Value != nil {
			continue // a constant captured while tracing keeps its value
		}
		if _, in := s.isIn[n]; in {
			continue
		}
		var p *Parameter
		for _, d := range params {
			if d != nil && d.Get(n.Name) != nil {
				p = d.Get(n.Name)
				break
			}
		}
		if p == nil {
			dtype := n.DTypes[0]
			if dtype == ops.Unknown {
				dtype = ops.Float32
			}
			p = NewParameter(n.Name, n.Shapes[0])
			p.name, p.dtype = n.Name, dtype
			if aux[n] {
				p.gradReq = eager.GradNull
			}
			own = append(own, n.Name)
		}
		s.byVar[n.Name] = p
		s.varOf[p] = n.Name
		s.Params = append(s.Params, p)
	}
	// Structural names drop the prefix the parameters' names share, as
	// Gluon's SymbolBlock does ("resnet0_conv0_weight" -> "conv0_weight").
	var pnames []string
	for _, p := range s.Params {
		pnames = append(pnames, s.varOf[p])
	}
	cut := len(commonPrefix(pnames))
	for _, p := range s.Params {
		name := s.varOf[p]
		key := name[cut:]
		if key == "" {
			key = name
		}
		s.keys[p] = key
	}
	for _, name := range own {
		s.byVar[name].local = s.keys[s.byVar[name]]
	}
	s.keepNames = true
	s.BindN(s, "symbolblock")
	return s, nil
}

// commonPrefix returns the longest prefix the names share, cut after its
// last "_" (so that no name is left empty): "net0_dense0_weight" and
// "net0_dense1_bias" share "net0_".
func commonPrefix(names []string) string {
	if len(names) == 0 {
		return ""
	}
	prefix := names[0]
	for _, n := range names[1:] {
		i := 0
		for i < len(prefix) && i < len(n) && prefix[i] == n[i] {
			i++
		}
		prefix = prefix[:i]
	}
	if i := strings.LastIndexByte(prefix, '_'); i >= 0 {
		return prefix[:i+1]
	}
	return ""
}

// InputNames names the graph variables the block's inputs bind, in order.
func (s *SymbolBlock) InputNames() []string { return append([]string(nil), s.inputs...) }

// Graph returns the block's graph.
func (s *SymbolBlock) Graph() *graph.Symbol { return graph.FromEntries(s.g.Outputs...) }

// HybridForwardN runs the graph on the inputs: op by op when F runs
// eagerly, copied into the trace when F traces.
func (s *SymbolBlock) HybridForwardN(F ops.F, xs []ops.Tensor) []ops.Tensor {
	if len(xs) != len(s.inputs) {
		panic(fmt.Errorf("%s takes %d inputs (%s), got %d", s.Name(), len(s.inputs), strings.Join(s.inputs, ", "), len(xs)))
	}
	bound := map[*graph.Node]ops.Tensor{}
	for _, n := range s.g.Inputs() {
		switch {
		case n.Value != nil:
			bound[n] = n.Value
		default:
			if i, ok := s.isIn[n]; ok {
				bound[n] = xs[i]
			} else {
				bound[n] = Param(F, s.byVar[n.Name])
			}
		}
	}
	outs, err := applyGraph(F, s.g, bound)
	if err != nil {
		panic(err)
	}
	return outs
}

// applyGraph applies every op node of g, in order, through F, on the
// tensors bound to its variables, and returns its outputs. Eagerly that
// runs the graph op by op on the autograd tape; under a tracer it copies
// the graph into the trace, each node keeping its name.
func applyGraph(F ops.F, g *graph.Graph, bound map[*graph.Node]ops.Tensor) (outs []ops.Tensor, err error) {
	values := make(map[*graph.Node][]ops.Tensor, len(g.Nodes))
	for n, v := range bound {
		values[n] = []ops.Tensor{v}
	}
	tracer, tracing := F.Interpreter().(*graph.Tracer)
	run := func() {
		for _, n := range g.Nodes {
			if n.IsVar() {
				if _, ok := values[n]; !ok {
					err = fmt.Errorf("graph variable %q is not bound", n.Name)
					return
				}
				continue
			}
			in := make([]ops.Tensor, len(n.Inputs))
			for i, e := range n.Inputs {
				vs := values[e.Node]
				if e.Index >= len(vs) {
					err = fmt.Errorf("node %s: input %d reads output %d of %s, which has %d", n.Name, i, e.Index, e.Node.Name, len(vs))
					return
				}
				in[i] = vs[e.Index]
			}
			if tracing {
				tracer.NameNext(n.Name)
			}
			var out []ops.Tensor
			if out, err = F.Apply(n.Op, n.Attrs, in...); err != nil {
				return
			}
			values[n] = out
		}
	}
	if tracing {
		// An empty scope: the copied nodes keep the names they have.
		tracer.Scope("", run)
	} else {
		run()
	}
	if err != nil {
		return nil, err
	}
	outs = make([]ops.Tensor, len(g.Outputs))
	for i, o := range g.Outputs {
		outs[i] = values[o.Node][o.Index]
	}
	return outs, nil
}

// SymbolBlockImports loads a block from an MXNet symbol file (such as
// Export or MXNet 1.x Gluon's export writes) and, unless paramFile is "",
// its parameters from a params file, whose "arg:" and "aux:" prefixes are
// dropped. The parameters take the shapes and dtypes saved in the file,
// which win over the shapes the graph's rules infer (but not over a shape
// the symbol file declares in a variable's "__shape__"), as in MXNet's
// SymbolBlock.imports.
// A parameter of the graph the file lacks, or an entry of the file the
// graph does not use, is an error naming both files, unless the options
// allow it.
func SymbolBlockImports(symbolFile string, inputNames []string, paramFile string, opts ...ImportOptions) (*SymbolBlock, error) {
	o := OneOption("nn.SymbolBlockImports", opts)
	// The symbol file is read first, so that a missing one is the error
	// reported, then again with the params file's shapes.
	if _, err := mxnet.LoadSymbol(symbolFile); err != nil {
		return nil, err
	}
	var list []mxnet.NamedArray
	if paramFile != "" {
		var err error
		if list, err = mxnet.LoadParams(paramFile); err != nil {
			return nil, err
		}
	}
	// The params file's shapes win over those inferred from the graph;
	// an entry named as an input is reported below.
	inputs := map[string]bool{}
	for _, name := range inputNames {
		inputs[name] = true
	}
	var given []mxnet.NamedArray
	for _, e := range list {
		if !inputs[stripArgAux(e.Name)] {
			given = append(given, e)
		}
	}
	sym, err := mxnet.LoadSymbolWithParams(symbolFile, given)
	if err != nil {
		if paramFile != "" {
			return nil, fmt.Errorf("import %s: %w", paramFile, err)
		}
		return nil, err
	}
	s, err := NewSymbolBlock(sym, inputNames)
	if err != nil {
		return nil, fmt.Errorf("import %s: %w", symbolFile, err)
	}
	if paramFile == "" {
		return s, nil
	}
	type value struct {
		p *Parameter
		a *eager.NDArray
	}
	var values []value
	loaded := map[string]bool{}
	for i, e := range list {
		if e.Name == "" {
			return nil, fmt.Errorf("import %s: entry %d has no name: an unnamed list cannot be matched to the graph's parameters", paramFile, i)
		}
		name := stripArgAux(e.Name)
		if loaded[name] {
			return nil, fmt.Errorf("import %s: parameter %q appears twice", paramFile, name)
		}
		loaded[name] = true
		p := s.byVar[name]
		if p == nil {
			if o.IgnoreExtra {
				continue
			}
			why := "is not a variable of the graph"
			if inputs[name] {
				why = "is an input of the block, not a parameter"
			}
			return nil, fmt.Errorf("import %s: parameter %q %s in %s (its parameters: %s); set IgnoreExtra to skip it",
				paramFile, e.Name, why, symbolFile, strings.Join(sortedKeys(s.byVar), ", "))
		}
		if !p.shape.Fits(e.Array.Shape()) {
			return nil, fmt.Errorf("import %s: parameter %q has shape %s, but %s declares %s",
				paramFile, e.Name, e.Array.Shape().Tuple(), symbolFile, p.shape.Tuple())
		}
		values = append(values, value{p, e.Array})
	}
	if !o.AllowMissing {
		for _, p := range s.Params {
			if name := s.varOf[p]; !loaded[name] {
				return nil, fmt.Errorf("import %s: parameter %q of %s is missing from the file; set AllowMissing to initialise it yourself",
					paramFile, name, symbolFile)
			}
		}
	}
	for _, v := range values {
		if err := v.p.SetData(v.a); err != nil {
			return nil, fmt.Errorf("import %s: %w", paramFile, err)
		}
	}
	return s, nil
}

// stripArgAux drops the "arg:" or "aux:" that exported params files put
// in front of each name.
func stripArgAux(name string) string {
	for _, pre := range []string{"arg:", "aux:"} {
		if strings.HasPrefix(name, pre) && len(name) > len(pre) {
			return name[len(pre):]
		}
	}
	return name
}
