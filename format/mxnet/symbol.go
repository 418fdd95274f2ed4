package mxnet

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

// This file reads and writes MXNet's symbol files (PREFIX-symbol.json):
//
//	{"nodes": [{"op": "null", "name": "data", "inputs": []}, …],
//	 "arg_nodes": [0, 1, 2],
//	 "node_row_ptr": [0, 1, 2, 3, 4],
//	 "heads": [[3, 0, 0]],
//	 "attrs": {"mxnet_version": ["int", 10901]}}
//
// A variable's shape and dtype travel as the "__shape__" and "__dtype__"
// attributes; its other attributes ("__init__", "__lr_mult__", …) and any
// attribute an op does not know are kept in graph.Node.Extra and written
// back.

// A user-defined op (ops.RegisterCustom) is written as MXNet writes its
// Python custom ops: "op": "Custom", with the op's name in the attribute
// op_type.
const (
	customOp  = "Custom"
	opTypeKey = "op_type"
)

// mxnetVersion is the version written into files: 1.9.1, the last 1.x.
const mxnetVersion = 10901

// The variable attributes that hold a node's Shapes and DTypes rather
// than graph.Node.Extra.
const (
	shapeKey = "__shape__"
	dtypeKey = "__dtype__"
)

// maxDTypeFlag is the largest type flag MXNet 1.x defines (bfloat16).
const maxDTypeFlag = 12

// EncodeSymbol encodes s as an MXNet symbol file. The output is
// deterministic: the same graph always gives the same bytes. Nodes come in
// graph.NewGraph's order; attributes are sorted by name. A graph holding
// constants (NDArrays captured while tracing) cannot be written: their
// values belong in a parameter file, so export them as parameters first.
func EncodeSymbol(s *graph.Symbol) ([]byte, error) {
	if s.NumOutputs() == 0 {
		return nil, errors.New("symbol json: the symbol has no outputs")
	}
	g := s.Graph()
	ids := make(map[*graph.Node]int, len(g.Nodes))
	for i, n := range g.Nodes {
		ids[n] = i
	}
	var w jsonWriter
	w.str("{\n  \"nodes\": [")
	var argNodes []int
	rowPtr := []int{0}
	for i, n := range g.Nodes {
		if i > 0 {
			w.str(",")
		}
		w.str("\n    {\n      \"op\": ")
		var attrs map[string]string
		nout := 1
		if n.IsVar() {
			if n.Value != nil {
				return nil, fmt.Errorf("symbol json: node %d %q is a constant (an NDArray used inside the traced code): constants must be exported as parameters, not written into a symbol file", i, n.Name)
			}
			w.quote("null")
			attrs = varAttrs(n)
			argNodes = append(argNodes, i)
		} else {
			a := n.Attrs
			if a == nil {
				a = n.Op.DefaultAttrs()
			}
			attrs = opAttrs(n.Op, a, n.Extra)
			if n.Op.Custom() {
				// As MXNet writes its Python custom ops.
				w.quote(customOp)
				attrs[opTypeKey] = n.Op.Name()
			} else {
				w.quote(n.Op.Name())
			}
			nout = n.Op.NumOutputs(a)
		}
		rowPtr = append(rowPtr, rowPtr[len(rowPtr)-1]+nout)
		w.str(",\n      \"name\": ")
		w.quote(n.Name)
		if len(attrs) > 0 {
			w.str(",\n      \"attrs\": {")
			for j, k := range slices.Sorted(maps.Keys(attrs)) {
				if j > 0 {
					w.str(",")
				}
				w.str("\n        ")
				w.quote(k)
				w.str(": ")
				w.quote(attrs[k])
			}
			w.str("\n      }")
		}
		w.str(",\n      \"inputs\": [")
		for j, in := range n.Inputs {
			if j > 0 {
				w.str(", ")
			}
			id, ok := ids[in.Node]
			if !ok {
				return nil, fmt.Errorf("symbol json: node %d %q: input %d is not in the graph", i, n.Name, j)
			}
			w.entry(id, in.Index)
		}
		w.str("]\n    }")
	}
	w.str("\n  ],\n  \"arg_nodes\": ")
	w.ints(argNodes)
	w.str(",\n  \"node_row_ptr\": ")
	w.ints(rowPtr)
	w.str(",\n  \"heads\": [")
	for i, o := range s.Entries() {
		if i > 0 {
			w.str(", ")
		}
		w.entry(ids[o.Node], o.Index)
	}
	w.str("],\n  \"attrs\": {\"mxnet_version\": [\"int\", ")
	w.str(strconv.Itoa(mxnetVersion))
	w.str("]}\n}\n")
	if w.err != nil {
		return nil, fmt.Errorf("symbol json: %w", w.err)
	}
	return w.buf.Bytes(), nil
}

// varAttrs is what a variable writes: its Extra attributes, with its shape
// and dtype in place of any "__shape__" or "__dtype__" there.
func varAttrs(n *graph.Node) map[string]string {
	m := map[string]string{}
	for k, v := range n.Extra {
		if k != shapeKey && k != dtypeKey {
			m[k] = v
		}
	}
	if len(n.Shapes) > 0 && n.Shapes[0] != nil {
		m[shapeKey] = n.Shapes[0].Tuple()
	}
	if len(n.DTypes) > 0 && n.DTypes[0] != ops.Unknown {
		m[dtypeKey] = strconv.Itoa(int(n.DTypes[0]))
	}
	return m
}

// opAttrs is what an op node writes: its attributes that differ from the
// defaults, and the Extra ones that are not the op's own attributes (an
// Extra entry never overrides, or stands in for, a real attribute).
func opAttrs(op *ops.Op, a ops.Attrs, extra map[string]string) map[string]string {
	m := op.FormatAttrs(a)
	known := knownAttrs(op)
	for k, v := range extra {
		if !known[k] {
			m[k] = v
		}
	}
	return m
}

func knownAttrs(op *ops.Op) map[string]bool {
	infos := op.AttrInfos()
	known := make(map[string]bool, len(infos))
	for _, info := range infos {
		known[info.Name] = true
	}
	return known
}

// jsonWriter builds the file text; the first error sticks.
type jsonWriter struct {
	buf bytes.Buffer
	err error
}

func (w *jsonWriter) str(s string) { w.buf.WriteString(s) }

// quote writes s as a JSON string, without escaping <, > and &.
func (w *jsonWriter) quote(s string) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		if w.err == nil {
			w.err = err
		}
		return
	}
	w.buf.Write(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

func (w *jsonWriter) entry(id, index int) {
	fmt.Fprintf(&w.buf, "[%d, %d, 0]", id, index)
}

func (w *jsonWriter) ints(v []int) {
	w.buf.WriteByte('[')
	for i, x := range v {
		if i > 0 {
			w.buf.WriteString(", ")
		}
		w.buf.WriteString(strconv.Itoa(x))
	}
	w.buf.WriteByte(']')
}

// jsonFile is the top level of a symbol file. arg_nodes and node_row_ptr
// follow from the nodes, so they are decoded (to check their form) but
// not trusted.
type jsonFile struct {
	Nodes      []json.RawMessage `json:"nodes"`
	ArgNodes   []int             `json:"arg_nodes"`
	NodeRowPtr []int             `json:"node_row_ptr"`
	Heads      [][]int           `json:"heads"`
	Attrs      json.RawMessage   `json:"attrs"`
}

// jsonNode is one node. Files before nnvm use "param" (op attributes) and
// "attr" (user attributes) where later ones use "attrs"; all are read.
type jsonNode struct {
	Op     *string           `json:"op"`
	Name   *string           `json:"name"`
	Attrs  map[string]string `json:"attrs"`
	Attr   map[string]string `json:"attr"`
	Param  map[string]string `json:"param"`
	Inputs [][]int           `json:"inputs"`
}

// DecodeSymbol reads a symbol file's bytes. Unknown attributes are tolerated
// and kept (in graph.Node.Extra); unknown ops, malformed structure and attribute
// values that do not parse are errors naming the node. After the nodes
// are built, shapes and dtypes are inferred from the variables' "__shape__"
// and "__dtype__" annotations as far as they go: unknown shapes are fine,
// contradictions between known ones are errors.
func DecodeSymbol(data []byte) (*graph.Symbol, error) {
	return decodeSymbol(data, nil)
}

// DecodeSymbolWithParams is DecodeSymbol for a symbol file read together
// with its params file, as MXNet's SymbolBlock.imports and load_checkpoint
// read them: the shape and dtype of each entry of params (named as the
// variable, or with the "arg:" or "aux:" in front of it) are the
// variable's before inference starts, so that the file's shapes win over
// those the ops' rules would infer. A shape the symbol file declares
// ("__shape__") still wins: an entry that does not fit it is an error
// naming both. Entries the graph has no variable for are left alone.
func DecodeSymbolWithParams(data []byte, params []NamedArray) (*graph.Symbol, error) {
	given := make(map[string]NamedArray, len(params))
	for _, p := range params {
		if p.Array != nil {
			given[stripArgAux(p.Name)] = p
		}
	}
	return decodeSymbol(data, given)
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

func decodeSymbol(data []byte, given map[string]NamedArray) (*graph.Symbol, error) {
	var f jsonFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("symbol json: %w", err)
	}
	if f.Nodes == nil {
		return nil, errors.New(`symbol json: no "nodes" list`)
	}
	if len(f.Heads) == 0 {
		return nil, errors.New(`symbol json: no "heads" (the graph has no outputs)`)
	}
	r := reader{
		nodes:    make([]*graph.Node, 0, len(f.Nodes)),
		varNames: map[string]int{},
		// Some ops take their output count from an attribute
		// (SliceChannel's num_outputs): the total is bounded by the
		// file's size, so that inference cannot be made to allocate
		// without limit.
		outputBudget: 1<<16 + 16*len(data),
		// Inferred shapes can grow faster than the file (a chain of
		// expand_dims adds a dim per node); their dims are bounded too.
		dimBudget: 1<<16 + 4*len(data),
		given:     given,
	}
	for i, raw := range f.Nodes {
		if err := r.addNode(i, raw); err != nil {
			return nil, err
		}
	}
	outs := make([]graph.Entry, len(f.Heads))
	for i, h := range f.Heads {
		e, err := r.entry(h)
		if err != nil {
			return nil, fmt.Errorf("symbol json: head %d: %w", i, err)
		}
		outs[i] = e
	}
	if err := r.infer(); err != nil {
		return nil, err
	}
	return graph.FromEntries(outs...), nil
}

// reader builds nodes in file order.
type reader struct {
	nodes        []*graph.Node
	varNames     map[string]int // variable name -> node id
	outputBudget int
	dimBudget    int // dims that inferred shapes may hold, in all
	// given holds the variables' values from a params file, by name:
	// their shapes and dtypes are taken before inference.
	given map[string]NamedArray
}

func nodeErr(i int, name string, format string, args ...any) error {
	return fmt.Errorf("symbol json: node %d %q: %s", i, name, fmt.Sprintf(format, args...))
}

func (r *reader) addNode(i int, raw json.RawMessage) error {
	var jn jsonNode
	if err := json.Unmarshal(raw, &jn); err != nil {
		// Name the node if at least its name can be read.
		var named struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(raw, &named) == nil && named.Name != "" {
			return fmt.Errorf("symbol json: node %d %q: %w", i, named.Name, err)
		}
		return fmt.Errorf("symbol json: node %d: %w", i, err)
	}
	if jn.Name == nil || *jn.Name == "" {
		return fmt.Errorf("symbol json: node %d has no name", i)
	}
	name := *jn.Name
	if jn.Op == nil || *jn.Op == "" {
		return nodeErr(i, name, `no "op" (variables have "op": "null")`)
	}
	// Later keys win: attrs over attr over param.
	attrs := map[string]string{}
	for _, m := range []map[string]string{jn.Param, jn.Attr, jn.Attrs} {
		for k, v := range m {
			attrs[k] = v
		}
	}
	if *jn.Op == "null" {
		n, err := r.variable(i, name, attrs, len(jn.Inputs))
		if err != nil {
			return err
		}
		r.nodes = append(r.nodes, n)
		return nil
	}
	op, ok := ops.Lookup(*jn.Op)
	if *jn.Op == customOp {
		// MXNet's custom op: the op itself is named by op_type.
		opType := attrs[opTypeKey]
		delete(attrs, opTypeKey)
		if opType == "" {
			return nodeErr(i, name, "a %s op needs the attribute %s, the name of the op", customOp, opTypeKey)
		}
		op, ok = ops.Lookup(opType)
		switch {
		case !ok:
			return nodeErr(i, name, "custom op %q is not registered: register it with ops.RegisterCustom before loading this file", opType)
		case !op.Custom():
			return nodeErr(i, name, "a %s op names %q as its %s, which is a built-in op, not one registered with ops.RegisterCustom", customOp, opType, opTypeKey)
		}
	} else if !ok {
		return nodeErr(i, name, "unknown op %q (hybridgo ops lists the supported ones)", *jn.Op)
	}
	// Split the attributes: the op's own are parsed, the rest kept as text.
	known := knownAttrs(op)
	own := map[string]string{}
	var extra map[string]string
	for k, v := range attrs {
		if known[k] {
			own[k] = v
			continue
		}
		if extra == nil {
			extra = map[string]string{}
		}
		extra[k] = v
	}
	a, err := op.ParseAttrs(own)
	if err != nil {
		return fmt.Errorf("symbol json: node %d %q: %w", i, name, err)
	}
	// An input count taken from an attribute (num_args) is checked before
	// the op builds its list of input names from it.
	if s, ok := op.FormatAttrs(a)["num_args"]; ok {
		if k, err := strconv.Atoi(s); err == nil && k > len(jn.Inputs) {
			return nodeErr(i, name, "%s takes %d inputs (num_args=%d), got %d", op.Name(), k, k, len(jn.Inputs))
		}
	}
	want := op.InputNames(a)
	if len(want) != len(jn.Inputs) {
		return nodeErr(i, name, "%s takes %d inputs (%s), got %d", op.Name(), len(want), strings.Join(want, ", "), len(jn.Inputs))
	}
	nout := op.NumOutputs(a)
	if nout < 1 || nout > r.outputBudget {
		return nodeErr(i, name, "%s has %d outputs, more than a file of this size can use", op.Name(), nout)
	}
	r.outputBudget -= nout
	n := &graph.Node{Op: op, Name: name, Attrs: a, Extra: extra,
		Shapes: make([]ops.Shape, nout), DTypes: make([]ops.DType, nout)}
	for j := range n.DTypes {
		n.DTypes[j] = ops.Unknown
	}
	n.Inputs = make([]graph.Entry, len(jn.Inputs))
	for j, in := range jn.Inputs {
		e, err := r.entry(in)
		if err != nil {
			return nodeErr(i, name, "input %d: %v", j, err)
		}
		n.Inputs[j] = e
	}
	r.nodes = append(r.nodes, n)
	return nil
}

// variable builds a variable node from its attributes.
func (r *reader) variable(i int, name string, attrs map[string]string, inputs int) (*graph.Node, error) {
	if inputs != 0 {
		return nil, nodeErr(i, name, "a variable (op null) has %d inputs; it must have none", inputs)
	}
	if j, dup := r.varNames[name]; dup {
		return nil, nodeErr(i, name, "duplicate variable name (node %d has it too)", j)
	}
	r.varNames[name] = i
	n := &graph.Node{Name: name, Shapes: []ops.Shape{nil}, DTypes: []ops.DType{ops.Unknown}}
	for k, v := range attrs {
		switch k {
		case shapeKey:
			s, err := parseShapeAttr(v)
			if err != nil {
				return nil, nodeErr(i, name, "%s=%q: %v", k, v, err)
			}
			n.Shapes[0] = s
		case dtypeKey:
			d, err := parseDTypeAttr(v)
			if err != nil {
				return nil, nodeErr(i, name, "%s=%q: %v", k, v, err)
			}
			n.DTypes[0] = d
		default:
			if n.Extra == nil {
				n.Extra = map[string]string{}
			}
			n.Extra[k] = v
		}
	}
	if p, ok := r.given[name]; ok {
		v := p.Array
		if !n.Shapes[0].Fits(v.Shape()) {
			return nil, nodeErr(i, name, "parameter %q has shape %s, but the symbol file declares %s (%s)",
				p.Name, v.Shape().Tuple(), n.Shapes[0].Tuple(), shapeKey)
		}
		if d := n.DTypes[0]; d != ops.Unknown && d != v.DType() {
			return nil, nodeErr(i, name, "parameter %q is %v, but the symbol file declares %v (%s)", p.Name, v.DType(), d, dtypeKey)
		}
		n.Shapes[0], n.DTypes[0] = v.Shape().Clone(), v.DType()
	}
	return n, nil
}

// entry checks a reference [id, index] or [id, index, version] to an
// earlier node's output.
func (r *reader) entry(e []int) (graph.Entry, error) {
	if len(e) != 2 && len(e) != 3 {
		return graph.Entry{}, fmt.Errorf("an entry is [node, output] or [node, output, version], not %v", e)
	}
	id, index := e[0], e[1]
	if id < 0 || id >= len(r.nodes) {
		return graph.Entry{}, fmt.Errorf("refers to node %d, which is not an earlier node (nodes so far: %d)", id, len(r.nodes))
	}
	n := r.nodes[id]
	if index < 0 || index >= len(n.Shapes) {
		return graph.Entry{}, fmt.Errorf("refers to output %d of node %d %q, which has %d outputs", index, id, n.Name, len(n.Shapes))
	}
	return graph.Entry{Node: n, Index: index}, nil
}

// parseShapeAttr reads "(128, 0)", "(3,)", "()" or "[2, 3]". Dims of 0
// (MXNet 1.x) or -1 (numpy semantics) are unknown; both become 0.
// Python 2's long suffix ("128L") is accepted.
func parseShapeAttr(s string) (ops.Shape, error) {
	t := strings.TrimSpace(s)
	if len(t) < 2 || !(t[0] == '(' && t[len(t)-1] == ')' || t[0] == '[' && t[len(t)-1] == ']') {
		return nil, errors.New("not a shape like (128, 0)")
	}
	t = strings.TrimSpace(t[1 : len(t)-1])
	if t == "" {
		return ops.Shape{}, nil
	}
	parts := strings.Split(t, ",")
	if strings.TrimSpace(parts[len(parts)-1]) == "" {
		parts = parts[:len(parts)-1]
	}
	shape := make(ops.Shape, len(parts))
	for i, p := range parts {
		p = strings.TrimSuffix(strings.TrimSpace(p), "L")
		d, err := strconv.Atoi(p)
		if err != nil {
			return nil, fmt.Errorf("dim %d (%q) is not an int", i, p)
		}
		switch {
		case d == -1:
			d = 0
		case d < 0:
			return nil, fmt.Errorf("dim %d is negative (%d)", i, d)
		}
		shape[i] = d
	}
	return shape, nil
}

// parseDTypeAttr reads a type flag ("0" is float32); a dtype name is
// accepted too.
func parseDTypeAttr(s string) (ops.DType, error) {
	t := strings.TrimSpace(s)
	if k, err := strconv.Atoi(t); err == nil {
		if k == -1 {
			return ops.Unknown, nil
		}
		if k < 0 || k > maxDTypeFlag {
			return ops.Unknown, fmt.Errorf("type flag %d is not one MXNet defines (0 to %d)", k, maxDTypeFlag)
		}
		return ops.DType(k), nil
	}
	return ops.ParseDType(t)
}

// infer runs shape and dtype inference over the loaded nodes until the
// variables stop changing (so that writing the result and reading it back
// infers nothing new).
func (r *reader) infer() error {
	for range maxInferPasses {
		changed := false
		dims := r.dimBudget
		for i, n := range r.nodes {
			if n.IsVar() {
				continue
			}
			c, err := inferLoaded(n)
			if err != nil {
				return fmt.Errorf("symbol json: node %d %q: %w", i, n.Name, err)
			}
			changed = changed || c
			for _, sh := range n.Shapes {
				dims -= len(sh)
			}
			if dims < 0 {
				return nodeErr(i, n.Name, "the inferred shapes hold more dims than a file of this size can describe")
			}
		}
		if !changed {
			return nil
		}
	}
	return nil
}

// maxInferPasses bounds the passes of inference over a loaded graph; one
// or two are the rule.
const maxInferPasses = 8

// inferLoaded infers the outputs of a node read from a file, whose inputs
// may be of unknown shape: a rule that fails on inputs not all known leaves the
// outputs unknown, while one that fails on known inputs is a real
// contradiction. It reports whether it changed a variable.
func inferLoaded(n *graph.Node) (changed bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			changed, err = false, fmt.Errorf("%s: shape inference failed on inputs %s: %v", n.Op.Name(), inputDesc(n), p)
		}
	}()
	dtypes := make([]ops.DType, len(n.Inputs))
	shapes := make([]ops.Shape, len(n.Inputs))
	typesKnown, shapesKnown := true, true
	for i, e := range n.Inputs {
		dtypes[i], shapes[i] = e.DType(), e.Shape()
		typesKnown = typesKnown && dtypes[i] != ops.Unknown
		shapesKnown = shapesKnown && shapes[i] != nil && (len(shapes[i]) == 0 || shapes[i].Known())
	}
	nout := len(n.Shapes)
	outTypes, err := n.Op.InferDType(n.Attrs, dtypes)
	if err != nil {
		if typesKnown {
			return false, err
		}
		outTypes = nil
	}
	outShapes, filled, err := n.Op.InferShape(n.Attrs, shapes)
	if err != nil {
		if shapesKnown {
			return false, err
		}
		outShapes, filled = nil, nil
	}
	for i, e := range n.Inputs {
		v := e.Node
		if !v.IsVar() {
			continue
		}
		if i < len(filled) && !v.Shapes[0].Known() && len(filled[i]) > 0 && !v.Shapes[0].Equal(filled[i]) {
			v.Shapes[0] = filled[i]
			changed = true
		}
		if v.DTypes[0] == ops.Unknown && !n.Op.HasDTypeRule() && len(outTypes) > 0 && outTypes[0] != ops.Unknown {
			v.DTypes[0] = outTypes[0]
			changed = true
		}
	}
	for i := range nout {
		n.Shapes[i], n.DTypes[i] = nil, ops.Unknown
		if i < len(outShapes) {
			n.Shapes[i] = outShapes[i]
		}
		if i < len(outTypes) {
			n.DTypes[i] = outTypes[i]
		}
	}
	return changed, nil
}

func inputDesc(n *graph.Node) string {
	parts := make([]string, len(n.Inputs))
	for i, e := range n.Inputs {
		parts[i] = graph.ShapeString(e.Shape(), e.DType())
	}
	return strings.Join(parts, ", ")
}

// SaveSymbol encodes s (as EncodeSymbol) and writes it to path
// atomically, as SaveParams writes its files: a failed save leaves an
// existing file at path as it was.
func SaveSymbol(path string, s *graph.Symbol) error {
	data, err := EncodeSymbol(s)
	if err != nil {
		return err
	}
	if err := writeFile(path, data); err != nil {
		return fmt.Errorf("save symbol %s: %w", path, err)
	}
	return nil
}

// LoadSymbol reads the file at path and decodes it with DecodeSymbol. It
// reads no more than the size the file had when opened.
func LoadSymbol(path string) (*graph.Symbol, error) {
	return LoadSymbolWithParams(path, nil)
}

// LoadSymbolWithParams reads the file at path and decodes it with
// DecodeSymbolWithParams: the shapes and dtypes of params, the entries
// of the model's params file, win over inferred ones.
func LoadSymbolWithParams(path string, params []NamedArray) (*graph.Symbol, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, fmt.Errorf("load symbol %s: %w", path, err)
	}
	s, err := DecodeSymbolWithParams(data, params)
	if err != nil {
		return nil, fmt.Errorf("load symbol %s: %w", path, err)
	}
	return s, nil
}
