package onnx

import (
	"fmt"
	"os"
	"slices"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/internal/atomicfile"
	"github.com/hybridgo/hybridgo/ops"
)

// DefaultOpset is the ONNX operator set Export writes unless told
// otherwise.
const DefaultOpset = 13

// MaxOpset is the newest operator set Export accepts: every op it writes
// means the same from DefaultOpset up to it.
const MaxOpset = 17

// BatchDim is the symbolic name of the first dim of the inputs and
// outputs of a model exported with a dynamic batch.
const BatchDim = "N"

// Options tune Export. The zero value exports with DefaultOpset and a
// dynamic batch.
type Options struct {
	// Opset is the ONNX operator set version, DefaultOpset..MaxOpset; 0
	// means DefaultOpset.
	Opset int
	// InputShapes gives the shapes of data inputs that the symbol does
	// not know (a symbol file from Gluon's export leaves "data"
	// unshaped). Shapes of parameters come from their arrays.
	InputShapes map[string]ops.Shape
	// StaticBatch writes the first dim of the inputs and outputs as the
	// traced number instead of the symbolic BatchDim.
	StaticBatch bool
	// GraphName names the ONNX graph; "" means "hybridgo".
	GraphName string
}

// Export converts the graph of sym, with the parameter values in params
// (by variable name, without "arg:"/"aux:"), into an ONNX model and
// returns its bytes. Variables with a value in params become
// initializers; the others are the model's inputs. An op with no ONNX
// mapping is an error naming the op and the node.
func Export(sym *graph.Symbol, params map[string]*eager.NDArray, opts Options) ([]byte, error) {
	m, err := ExportModel(sym, params, opts)
	if err != nil {
		return nil, err
	}
	return m.Encode(), nil
}

// SaveModel exports sym and params as Export does and writes the model
// to path atomically: a failed save leaves the previous file as it was.
func SaveModel(path string, sym *graph.Symbol, params map[string]*eager.NDArray, opts Options) error {
	b, err := Export(sym, params, opts)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, b, 0o644)
}

// LoadModel reads a .onnx file with DecodeModel.
func LoadModel(path string) (*Model, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := DecodeModel(b)
	if err != nil {
		return nil, fmt.Errorf("load onnx model %s: %w", path, err)
	}
	return m, nil
}

// ExportModel is Export before encoding: the model as a value, for
// inspection and tests.
func ExportModel(sym *graph.Symbol, params map[string]*eager.NDArray, opts Options) (*Model, error) {
	opset := opts.Opset
	if opset == 0 {
		opset = DefaultOpset
	}
	if opset < DefaultOpset || opset > MaxOpset {
		return nil, fmt.Errorf("onnx: opset %d is not supported (use %d to %d)", opset, DefaultOpset, MaxOpset)
	}
	if sym.NumOutputs() == 0 {
		return nil, fmt.Errorf("onnx: the symbol has no outputs")
	}
	g, err := inferred(sym, params, opts.InputShapes)
	if err != nil {
		return nil, err
	}
	name := opts.GraphName
	if name == "" {
		name = "hybridgo"
	}
	e := &exporter{
		g:       &Graph{Name: name},
		names:   map[graph.Entry]string{},
		used:    map[string]bool{},
		dynamic: !opts.StaticBatch,
	}
	if err := e.variables(g, params); err != nil {
		return nil, err
	}
	for _, n := range g.Nodes {
		if n.IsVar() {
			continue
		}
		if err := e.convert(n); err != nil {
			return nil, fmt.Errorf("onnx: node %q (op %s): %w", n.Name, n.Op.Name(), err)
		}
	}
	if err := e.outputs(g.Outputs); err != nil {
		return nil, err
	}
	e.dropUnread()
	return &Model{
		IRVersion:       IRVersion,
		ProducerName:    "hybridgo",
		Graph:           e.g,
		OpsetImports:    []OpsetID{{Version: int64(opset)}},
		ProducerVersion: "0",
	}, nil
}

// inferred copies the graph of sym with the shapes of params and of the
// given inputs set on its variables, and infers every shape from them.
func inferred(sym *graph.Symbol, params map[string]*eager.NDArray, shapes map[string]ops.Shape) (*graph.Graph, error) {
	g := sym.Copy().Graph()
	known := map[string]bool{}
	for _, n := range g.Inputs() {
		known[n.Name] = true
		if p, ok := params[n.Name]; ok && n.Value == nil {
			n.Shapes[0], n.DTypes[0] = p.Shape(), p.DType()
		}
		if s, ok := shapes[n.Name]; ok {
			n.Shapes[0] = s.Clone()
		}
	}
	for name := range shapes {
		if !known[name] {
			return nil, fmt.Errorf("onnx: input shape given for %q, which is not a variable of the graph", name)
		}
	}
	if err := graph.InferGraph(g); err != nil {
		return nil, fmt.Errorf("onnx: inferring shapes: %w (give the shapes of the data inputs in Options.InputShapes)", err)
	}
	return g, nil
}

// exporter builds an ONNX graph from a hybridgo graph.
type exporter struct {
	g       *Graph
	names   map[graph.Entry]string // the ONNX value of each hybridgo output
	used    map[string]bool        // every ONNX value name taken
	dynamic bool
	batch   int // the traced batch size of the data inputs (0: unknown)
}

// unique returns name, or name with a number added if it is taken, and
// takes it.
func (e *exporter) unique(name string) string {
	n := name
	for i := 1; e.used[n]; i++ {
		n = fmt.Sprintf("%s_%d", name, i)
	}
	e.used[n] = true
	return n
}

// variables turns parameters and constants into initializers and the
// other variables into inputs.
func (e *exporter) variables(g *graph.Graph, params map[string]*eager.NDArray) error {
	for _, n := range g.Inputs() {
		name := e.unique(n.Name)
		e.names[graph.Entry{Node: n}] = name
		value := n.Value
		if value == nil {
			value = params[n.Name]
		}
		if value != nil {
			t, err := tensorOf(name, value)
			if err != nil {
				return fmt.Errorf("onnx: variable %q: %w", n.Name, err)
			}
			e.g.Initializers = append(e.g.Initializers, t)
			continue
		}
		shape := n.Shapes[0]
		if shape == nil {
			return fmt.Errorf("onnx: input %q has no shape: give it in Options.InputShapes", n.Name)
		}
		if len(shape) > 0 && e.batch == 0 {
			e.batch = shape[0]
		}
		v, err := e.valueInfo(name, shape, n.DTypes[0])
		if err != nil {
			return fmt.Errorf("onnx: input %q: %w", n.Name, err)
		}
		e.g.Inputs = append(e.g.Inputs, v)
	}
	return nil
}

// valueInfo describes a graph input or output; with a dynamic batch its
// first dim is BatchDim.
func (e *exporter) valueInfo(name string, shape ops.Shape, dtype ops.DType) (*ValueInfo, error) {
	if dtype == ops.Unknown {
		dtype = ops.Float32
	}
	et, err := elemType(dtype)
	if err != nil {
		return nil, err
	}
	v := &ValueInfo{Name: name, ElemType: et, HasShape: shape != nil}
	for i, d := range shape {
		switch {
		case i == 0 && e.dynamic && (d == 0 || d == e.batch):
			v.Shape = append(v.Shape, Dim{Param: BatchDim})
		case d > 0:
			v.Shape = append(v.Shape, Dim{Value: int64(d)})
		default:
			v.Shape = append(v.Shape, Dim{})
		}
	}
	return v, nil
}

// outputs names the graph's outputs. An output that is an input or an
// initializer, or that appears twice, is copied by an Identity node,
// since ONNX values have one producer.
func (e *exporter) outputs(outs []graph.Entry) error {
	seen := map[string]bool{}
	for _, o := range outs {
		name, err := e.value(o)
		if err != nil {
			return fmt.Errorf("onnx: graph output: %w", err)
		}
		if o.Node.IsVar() || seen[name] {
			id := e.unique(name + "_out")
			e.node("Identity", name+"_out", []string{name}, []string{id})
			name = id
		}
		seen[name] = true
		v, err := e.valueInfo(name, o.Shape(), o.DType())
		if err != nil {
			return fmt.Errorf("onnx: output %q: %w", name, err)
		}
		e.g.Outputs = append(e.g.Outputs, v)
	}
	return nil
}

// dropUnread removes the inputs that no node reads, which a runtime
// would still ask to be fed: SoftmaxOutput's label, used only in
// training.
func (e *exporter) dropUnread() {
	read := map[string]bool{}
	for _, n := range e.g.Nodes {
		for _, x := range n.Inputs {
			read[x] = true
		}
	}
	for _, o := range e.g.Outputs {
		read[o.Name] = true
	}
	e.g.Inputs = slices.DeleteFunc(e.g.Inputs, func(v *ValueInfo) bool { return !read[v.Name] })
}

// value returns the ONNX name of a hybridgo output.
func (e *exporter) value(in graph.Entry) (string, error) {
	name, ok := e.names[in]
	if !ok {
		return "", fmt.Errorf("output %d of node %q is used, and the ONNX export of %s gives no such output", in.Index, in.Node.Name, in.Node.Op.Name())
	}
	return name, nil
}

// node appends an ONNX node.
func (e *exporter) node(opType, name string, inputs, outputs []string, attrs ...*Attribute) {
	e.g.Nodes = append(e.g.Nodes, &Node{OpType: opType, Name: name, Inputs: inputs, Outputs: outputs, Attributes: attrs})
}

// temp returns a fresh value name for an intermediate of node n.
func (e *exporter) temp(n *graph.Node, suffix string) string {
	return e.unique(n.Name + "_" + suffix)
}

// constant adds an initializer of the given dims (none: a scalar)
// holding values ([]float32, []float64 or []int64) and returns its name.
func (e *exporter) constant(name string, values any, dims ...int) (string, error) {
	name = e.unique(name)
	t, err := tensorFrom(name, values, dims)
	if err != nil {
		return "", err
	}
	e.g.Initializers = append(e.g.Initializers, t)
	return name, nil
}

// scalar adds a 0-d initializer of dtype holding v.
func (e *exporter) scalar(name string, v float64, dtype ops.DType) (string, error) {
	switch dtype {
	case ops.Float32, ops.Unknown:
		return e.constant(name, []float32{float32(v)})
	case ops.Float64:
		return e.constant(name, []float64{v})
	}
	return "", fmt.Errorf("a scalar operand for %s data has no ONNX export (only float32 and float64)", dtype)
}

func attrInt(name string, v int) *Attribute {
	return &Attribute{Name: name, Type: AttrInt, I: int64(v)}
}

func attrFloat(name string, v float64) *Attribute {
	return &Attribute{Name: name, Type: AttrFloat, F: float32(v)}
}

func attrInts(name string, vs []int) *Attribute {
	a := &Attribute{Name: name, Type: AttrInts, Ints: make([]int64, len(vs))}
	for i, v := range vs {
		a.Ints[i] = int64(v)
	}
	return a
}

// elemType maps a hybridgo dtype to an ONNX element type.
func elemType(d ops.DType) (int32, error) {
	switch d {
	case ops.Float32:
		return TypeFloat, nil
	case ops.Float64:
		return TypeDouble, nil
	case ops.Int32:
		return TypeInt32, nil
	case ops.Int64:
		return TypeInt64, nil
	case ops.Uint8:
		return TypeUint8, nil
	case ops.Int8:
		return TypeInt8, nil
	case ops.Bool:
		return TypeBool, nil
	}
	return 0, fmt.Errorf("dtype %s has no ONNX export", d)
}

// tensorOf encodes an NDArray as a TensorProto.
func tensorOf(name string, a *eager.NDArray) (*Tensor, error) {
	return tensorFrom(name, a.Data(), a.Shape())
}

// tensorFrom encodes values (a slice of an NDArray's element type) of the
// given dims as a TensorProto, the values little-endian in raw_data,
// written into a buffer of the final size (the parameters of a network
// run to hundreds of megabytes).
func tensorFrom(name string, values any, dims []int) (*Tensor, error) {
	t := &Tensor{Name: name, Dims: make([]int64, 0, len(dims))}
	for _, d := range dims {
		t.Dims = append(t.Dims, int64(d))
	}
	dtype, ok := ops.DTypeOfData(values)
	if !ok {
		return nil, fmt.Errorf("values of type %T have no ONNX export", values)
	}
	var err error
	if t.DataType, err = elemType(dtype); err != nil {
		return nil, err
	}
	t.RawData = ops.AppendLittleEndian(make([]byte, 0, dtype.Size()*ops.DataLen(values)), values)
	return t, nil
}

// Supported lists the MXNet ops Export converts, sorted.
func Supported() []string {
	names := make([]string, 0, len(converters))
	for name := range converters {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Mapping says what Export writes for the MXNet op named op ("Conv",
// "Flatten+Gemm (flatten=True on >2-D data), Gemm, or MatMul+Add"), and
// whether it converts the op at all.
func Mapping(op string) (string, bool) {
	c, ok := converters[op]
	return c.onnx, ok
}
