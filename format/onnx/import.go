package onnx

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

// Imported is an ONNX model turned into a hybridgo graph: the graph of
// MXNet ops, the names of its data inputs in the model's order, and the
// values of its parameters by variable name.
type Imported struct {
	Symbol *graph.Symbol
	Inputs []string
	Params map[string]*eager.NDArray
}

// Import converts an ONNX model (opset 11 to MaxImportOpset) into a
// graph of the registry's ops. Initializers that ops use as weights,
// biases and statistics become parameters, named as in the model; the
// graph inputs that are not initializers are the data inputs, whose
// symbolic dims (a dynamic batch) stay unknown until the graph runs.
// Shape computations that PyTorch writes for x.view(x.size(0), -1)
// (Shape, Gather, Unsqueeze, Concat into Reshape) are worked out at
// import, and become Reshape's codes. A node with no conversion, or with
// an attribute value that has none, is an error naming the node, its op
// and what is wrong; ImportOps lists the ONNX ops that convert.
func Import(m *Model) (*Imported, error) {
	if m == nil || m.Graph == nil {
		return nil, fmt.Errorf("onnx import: the model has no graph")
	}
	opset, err := importOpset(m)
	if err != nil {
		return nil, err
	}
	// The graph is built twice, with the symbolic dims of the inputs set
	// to two different sizes: a dim that differs between the two builds
	// depends on them, which is what Reshape's codes must keep symbolic.
	inits, err := initializers(m.Graph)
	if err != nil {
		return nil, err
	}
	first, err := build(m, opset, inits, 1, nil)
	if err != nil {
		return nil, err
	}
	second, err := build(m, opset, inits, 2, first.sizes)
	if err != nil {
		return nil, err
	}
	return second.result()
}

// MaxImportOpset is the newest ONNX operator set Import reads.
const MaxImportOpset = 18

func importOpset(m *Model) (int64, error) {
	opset := int64(-1)
	for _, o := range m.OpsetImports {
		if o.Domain == "" || o.Domain == "ai.onnx" {
			opset = o.Version
		}
	}
	switch {
	case opset < 0:
		return 0, fmt.Errorf("onnx import: the model imports no version of the default operator set")
	case opset < 11 || opset > MaxImportOpset:
		return 0, fmt.Errorf("onnx import: opset %d is not supported (opsets 11 to %d are)", opset, MaxImportOpset)
	}
	return opset, nil
}

// A value is what an ONNX name stands for while the graph is built.
type value struct {
	sym    *graph.Symbol  // a tensor of the graph
	konst  *eager.NDArray // known at import: an initializer or a Constant
	dims   []dim          // computed from shapes (Shape and what follows it): an int64 vector
	scalar bool           // a 0-D value: konst or dims holds one element
	// padded is the input of a Pad, and pad its padding on each spatial
	// dim, when only the Conv or AveragePool it feeds can apply it.
	padded *graph.Symbol
	pad    []int64
}

// dim is one element of a shape computation: a constant, or dim axis of
// tensor of, whose size was size in this build and size1 in the first.
type dim struct {
	of          *graph.Symbol
	axis        int
	size, size1 int
	dynamic     bool // differs between the builds: depends on a symbolic input dim
}

type builder struct {
	m      *Model
	opset  int64
	t      *graph.Tracer
	values map[string]*value
	names  map[string]bool // node and variable names taken
	params map[string]*eager.NDArray
	inputs []string
	data   map[string][]bool // the symbolic dims of each data input
	// sizes are the shapes of the values in this build; first are those
	// of the first build (nil while making it).
	sizes, first map[string]ops.Shape
	node         *Node // the node being converted, for errors
}

// initializers reads the values of the graph's initializers, once for
// both builds.
func initializers(g *Graph) (map[string]value, error) {
	inits := map[string]value{}
	for i, t := range g.Initializers {
		if t.Name == "" {
			return nil, fmt.Errorf("onnx import: initializer %d has no name", i)
		}
		if _, dup := inits[t.Name]; dup {
			return nil, fmt.Errorf("onnx import: two initializers are named %q", t.Name)
		}
		a, err := arrayOf(t)
		if err != nil {
			return nil, fmt.Errorf("onnx import: initializer %q: %w", t.Name, err)
		}
		inits[t.Name] = value{konst: a, scalar: len(t.Dims) == 0}
	}
	return inits, nil
}

func build(m *Model, opset int64, inits map[string]value, probe int, first map[string]ops.Shape) (*builder, error) {
	b := &builder{m: m, opset: opset, t: graph.NewTracer(), values: map[string]*value{}, names: map[string]bool{},
		params: map[string]*eager.NDArray{}, data: map[string][]bool{}, sizes: map[string]ops.Shape{}, first: first}
	g := m.Graph
	for name, v := range inits {
		b.values[name] = &v // a copy per build: conversions set its sym
	}
	for _, in := range g.Inputs {
		if _, init := b.values[in.Name]; init {
			continue // an initializer listed as an input too (IR version 3)
		}
		if err := b.input(in, probe); err != nil {
			return nil, err
		}
	}
	if len(b.inputs) == 0 {
		return nil, fmt.Errorf("onnx import: the model has no data input")
	}
	for i, n := range g.Nodes {
		b.node = n
		if err := b.convertSafely(n); err != nil {
			name := n.Name
			if name == "" && len(n.Outputs) > 0 {
				name = n.Outputs[0]
			}
			return nil, fmt.Errorf("onnx import: node %d %q (%s): %w", i, name, n.OpType, err)
		}
	}
	b.node = nil
	return b, nil
}

// convertSafely converts a node, turning a panic of an op's rules on
// inputs they were not written for (a model file is untrusted) into an
// error.
func (b *builder) convertSafely(n *Node) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the conversion failed: %v", p)
		}
	}()
	return b.convert(n)
}

// input makes the variable of a data input, its symbolic dims set to
// probe.
func (b *builder) input(in *ValueInfo, probe int) error {
	dtype, err := dtypeOf(in.ElemType)
	if err != nil {
		return fmt.Errorf("onnx import: input %q: %w", in.Name, err)
	}
	if !in.HasShape {
		return fmt.Errorf("onnx import: input %q has no shape", in.Name)
	}
	shape := make(ops.Shape, len(in.Shape))
	symbolic := make([]bool, len(in.Shape))
	for i, d := range in.Shape {
		switch {
		case d.Value > 0 && d.Value <= math.MaxInt32:
			shape[i] = int(d.Value)
		case d.Value == 0:
			shape[i], symbolic[i] = probe, true
		default:
			return fmt.Errorf("onnx import: input %q: dim %d is %d", in.Name, i, d.Value)
		}
	}
	name, err := b.claim(in.Name)
	if err != nil {
		return err
	}
	b.inputs = append(b.inputs, name)
	b.data[name] = symbolic
	b.set(in.Name, &value{sym: graph.Var(name, shape, dtype)})
	return nil
}

// claim takes a name for a variable or node, which must be unique.
func (b *builder) claim(name string) (string, error) {
	if name == "" || b.names[name] {
		return "", fmt.Errorf("onnx import: two values would be named %q", name)
	}
	b.names[name] = true
	return name, nil
}

// fresh returns an unused name made from stem.
func (b *builder) fresh(stem string) string {
	if stem != "" && !b.names[stem] {
		b.names[stem] = true
		return stem
	}
	for i := 0; ; i++ {
		name := stem + "_" + strconv.Itoa(i)
		if !b.names[name] {
			b.names[name] = true
			return name
		}
	}
}

func (b *builder) set(name string, v *value) {
	b.values[name] = v
	if v.sym != nil {
		b.sizes[name] = v.sym.Shape()
	}
}

// get returns the value of input i of the node being converted; an
// absent optional input is nil.
func (b *builder) get(i int) (*value, error) {
	n := b.node
	if i >= len(n.Inputs) || n.Inputs[i] == "" {
		return nil, nil
	}
	v, ok := b.values[n.Inputs[i]]
	if !ok {
		return nil, fmt.Errorf("input %d %q is not an output of an earlier node, an initializer or an input", i, n.Inputs[i])
	}
	return v, nil
}

// tensor returns input i as a tensor of the graph: an initializer
// becomes a parameter (a variable of the same name), a Constant's value a
// parameter too.
func (b *builder) tensor(i int) (*graph.Symbol, error) {
	v, err := b.get(i)
	switch {
	case err != nil:
		return nil, err
	case v == nil:
		return nil, fmt.Errorf("input %d is missing", i)
	case v.sym != nil:
		return v.sym, nil
	case v.konst != nil:
		name := b.fresh(b.node.Inputs[i])
		b.params[name] = v.konst
		v.sym = graph.Var(name, v.konst.Shape(), v.konst.DType())
		b.sizes[b.node.Inputs[i]] = v.konst.Shape()
		return v.sym, nil
	}
	if v.padded != nil {
		// A Pad of zeros that no Conv or AveragePool took over: a Pad op.
		width := []int64{0, 0, 0, 0}
		for _, p := range v.pad {
			width = append(width, p, p)
		}
		y, err := b.apply(b.node.Inputs[i]+"_pad", "Pad", map[string]string{"mode": "constant", "pad_width": tuple(width)}, v.padded)
		if err != nil {
			return nil, err
		}
		v.sym = y
		return y, nil
	}
	return nil, fmt.Errorf("input %d %q is a shape computed at import (from a Shape op); an op of the graph cannot use it as a tensor", i, b.node.Inputs[i])
}

// shapeOf is the shape of a tensor input in this build.
func (b *builder) shapeOf(i int) (ops.Shape, error) {
	s, err := b.tensor(i)
	if err != nil {
		return nil, err
	}
	if s.Shape() == nil {
		return nil, fmt.Errorf("the shape of input %d %q is unknown", i, b.node.Inputs[i])
	}
	return s.Shape(), nil
}

// ints returns input i as integers known at import: a constant, or a
// shape computation whose dims are all fixed.
func (b *builder) ints(i int) ([]int64, error) {
	v, err := b.get(i)
	if err != nil || v == nil {
		return nil, err
	}
	if v.konst != nil {
		return int64s(v.konst)
	}
	if v.dims != nil {
		out := make([]int64, len(v.dims))
		for j, d := range v.dims {
			if d.dynamic {
				return nil, fmt.Errorf("input %d %q depends on a symbolic dim of an input; it must be known at import", i, b.node.Inputs[i])
			}
			out[j] = int64(d.size)
		}
		return out, nil
	}
	return nil, fmt.Errorf("input %d %q is computed by the graph; it must be a constant", i, b.node.Inputs[i])
}

// scalarOf returns input i as one float known at import, or ok false.
func (b *builder) scalarOf(i int) (x float64, ok bool) {
	v, err := b.get(i)
	if err != nil || v == nil || v.konst == nil || v.konst.Size() != 1 || !v.konst.DType().IsFloat() && v.konst.DType() != ops.Int64 && v.konst.DType() != ops.Int32 {
		return 0, false
	}
	return v.konst.Float64s()[0], true
}

// apply records op on the inputs under a fresh node name, and returns
// its first output.
func (b *builder) apply(name, opName string, attrs map[string]string, inputs ...*graph.Symbol) (*graph.Symbol, error) {
	op, ok := ops.Lookup(opName)
	if !ok {
		return nil, fmt.Errorf("op %s is not registered", opName)
	}
	a, err := op.ParseAttrs(attrs)
	if err != nil {
		return nil, err
	}
	in := make([]ops.Tensor, len(inputs))
	for i, x := range inputs {
		in[i] = x
	}
	b.t.NameNext(b.fresh(name))
	outs, err := b.t.Apply(op, a, in)
	if err != nil {
		return nil, err
	}
	return outs[0].(*graph.Symbol), nil
}

// out sets the node's first output; its other outputs, if named, are
// values no op may use.
func (b *builder) out(v *value) error {
	n := b.node
	if len(n.Outputs) == 0 || n.Outputs[0] == "" {
		return fmt.Errorf("the node has no output")
	}
	if _, dup := b.values[n.Outputs[0]]; dup {
		return fmt.Errorf("output %q is also the output of another node", n.Outputs[0])
	}
	b.set(n.Outputs[0], v)
	return nil
}

// result finishes the second build: the inputs' symbolic dims become 0
// (unknown), and the inferred shapes of the nodes are dropped, to be
// inferred again from the shapes the graph is called with.
func (b *builder) result() (*Imported, error) {
	var outs []*graph.Symbol
	for _, o := range b.m.Graph.Outputs {
		v, ok := b.values[o.Name]
		if !ok || v.sym == nil && v.konst == nil {
			return nil, fmt.Errorf("onnx import: output %q is not a tensor the graph computes", o.Name)
		}
		b.node = &Node{Inputs: []string{o.Name}}
		s, err := b.tensor(0)
		if err != nil {
			return nil, fmt.Errorf("onnx import: output %q: %w", o.Name, err)
		}
		outs = append(outs, s)
	}
	if len(outs) == 0 {
		return nil, fmt.Errorf("onnx import: the model has no outputs")
	}
	sym := graph.Group(outs...)
	for _, n := range sym.Graph().Nodes {
		if !n.IsVar() {
			for i := range n.Shapes {
				n.Shapes[i] = nil
			}
			continue
		}
		for i, symbolic := range b.data[n.Name] {
			if symbolic {
				n.Shapes[0][i] = 0
			}
		}
	}
	return &Imported{Symbol: sym, Inputs: b.inputs, Params: b.params}, nil
}

// ---- attributes ----

func (b *builder) attr(name string) *Attribute {
	for _, a := range b.node.Attributes {
		if a.Name == name {
			return a
		}
	}
	return nil
}

func (b *builder) attrInt(name string, def int64) int64 {
	if a := b.attr(name); a != nil {
		return a.I
	}
	return def
}

func (b *builder) attrFloat(name string, def float64) float64 {
	if a := b.attr(name); a != nil {
		return float64(a.F)
	}
	return def
}

func (b *builder) attrString(name, def string) string {
	if a := b.attr(name); a != nil {
		return string(a.S)
	}
	return def
}

func (b *builder) attrInts(name string) []int64 {
	if a := b.attr(name); a != nil {
		return a.Ints
	}
	return nil
}

// tuple writes ints as an MXNet tuple attribute: "(1, 2)".
func tuple[T int | int64](vs []T) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = strconv.FormatInt(int64(v), 10)
	}
	if len(parts) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func float(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

func boolean(v bool) string {
	if v {
		return "True"
	}
	return "False"
}

// ---- tensors ----

func dtypeOf(t int32) (ops.DType, error) {
	switch t {
	case TypeFloat:
		return ops.Float32, nil
	case TypeDouble:
		return ops.Float64, nil
	case TypeInt32:
		return ops.Int32, nil
	case TypeInt64:
		return ops.Int64, nil
	case TypeUint8:
		return ops.Uint8, nil
	case TypeInt8:
		return ops.Int8, nil
	case TypeBool:
		return ops.Bool, nil
	}
	return ops.Unknown, fmt.Errorf("element type %d is not supported (float, double, int8, uint8, int32, int64 and bool are)", t)
}

// arrayOf reads a TensorProto's values into an NDArray, after checking
// that its dims describe exactly the values it holds (so that nothing
// is allocated beyond the size of the file).
func arrayOf(t *Tensor) (*eager.NDArray, error) {
	dtype, err := dtypeOf(t.DataType)
	if err != nil {
		return nil, err
	}
	shape := make([]int, len(t.Dims))
	size := 1
	for i, d := range t.Dims {
		if d < 0 || d > math.MaxInt32 {
			return nil, fmt.Errorf("dim %d is %d", i, d)
		}
		shape[i] = int(d)
		if d != 0 && size > math.MaxInt32/int(d) {
			return nil, fmt.Errorf("dims %v hold more values than a file can", t.Dims)
		}
		size *= int(d)
	}
	width := dtype.Size()
	held := len(t.RawData) / width
	if len(t.RawData) == 0 {
		held = len(t.FloatData) + len(t.DoubleData) + len(t.Int32Data) + len(t.Int64Data)
	}
	if held != size || len(t.RawData)%width != 0 {
		return nil, fmt.Errorf("dims %v need %d values, the tensor holds %d (external data files are not supported)", t.Dims, size, held)
	}
	values, err := decodeValues(t, dtype, size)
	if err != nil {
		return nil, err
	}
	return eager.NewArray(values, shape...)
}

// decodeValues reads the values of a tensor: raw_data when it holds
// them, else the typed field ONNX keeps that dtype in (int32_data for
// the integers narrower than 64 bits and for bool).
func decodeValues(t *Tensor, dtype ops.DType, size int) (any, error) {
	if len(t.RawData) > 0 {
		return ops.DecodeLittleEndian(dtype, t.RawData), nil
	}
	switch dtype {
	case ops.Float32:
		return slices.Clone(t.FloatData), nil
	case ops.Float64:
		return slices.Clone(t.DoubleData), nil
	case ops.Int64:
		return slices.Clone(t.Int64Data), nil
	case ops.Int32:
		return slices.Clone(t.Int32Data), nil
	}
	// int8, uint8 and bool: the values as bytes.
	if len(t.Int32Data) != size {
		return nil, fmt.Errorf("%d values in int32_data, the dims need %d", len(t.Int32Data), size)
	}
	raw := make([]byte, size)
	for i, v := range t.Int32Data {
		raw[i] = byte(v)
	}
	return ops.DecodeLittleEndian(dtype, raw), nil
}

// int64s reads an integer NDArray's values.
func int64s(a *eager.NDArray) ([]int64, error) {
	switch v := a.Data().(type) {
	case []int64:
		return slices.Clone(v), nil
	case []int32:
		out := make([]int64, len(v))
		for i, x := range v {
			out[i] = int64(x)
		}
		return out, nil
	}
	return nil, fmt.Errorf("a constant of dtype %s where integers are needed", a.DType())
}
