package nn

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

// Parameter is a learnable array of a block: MXNet Gluon's Parameter. Its
// shape may have unknown dims (0) until the first forward fills them from
// the data (deferred initialisation).
type Parameter struct {
	local string // the name the block gave it ("weight")
	name  string // the full name, the block's prefix + local ("dense0_weight")
	shape ops.Shape
	dtype ops.DType

	// Init initialises the values; nil means the block's or Initialize's
	// initializer.
	Init Initializer
	// LRMult and WDMult scale the learning rate and weight decay.
	LRMult, WDMult float64

	gradReq  eager.GradReq
	constant bool // a Constant: never gets a gradient
	data     *eager.NDArray
	pending  Initializer // Initialize was called but the shape is not yet known
}

// NewParameter makes a parameter named name (the block prefixes it) of
// the given shape (0 for dims to infer), float32, with gradient request
// "write".
func NewParameter(name string, shape ops.Shape) *Parameter {
	return &Parameter{local: name, name: name, shape: shape.Clone(), dtype: ops.Float32, gradReq: eager.GradWrite, LRMult: 1, WDMult: 1}
}

// NewConstant makes a parameter holding a fixed value that never gets a
// gradient (Gluon's Constant).
func NewConstant(name string, value *eager.NDArray) *Parameter {
	p := &Parameter{local: name, name: name, shape: value.Shape(), dtype: value.DType(), gradReq: eager.GradNull, constant: true, LRMult: 1, WDMult: 1}
	p.data = value
	return p
}

// Name is the full name: the owning block's prefix and the parameter's own name.
func (p *Parameter) Name() string { return p.name }

// Shape is the shape, with 0 for dims not yet known.
func (p *Parameter) Shape() ops.Shape { return p.shape.Clone() }

// DType is the element type.
func (p *Parameter) DType() ops.DType { return p.dtype }

// GradReq is the gradient request: write, add or null.
func (p *Parameter) GradReq() eager.GradReq { return p.gradReq }

// SetGradReq changes the gradient request ("write", "add" or "null").
func (p *Parameter) SetGradReq(req eager.GradReq) error {
	if req != eager.GradWrite && req != eager.GradAdd && req != eager.GradNull {
		return fmt.Errorf("parameter %s: unknown grad request %q (want write, add or null)", p.name, req)
	}
	if p.constant && req != eager.GradNull {
		return fmt.Errorf("parameter %s is a constant and gets no gradient", p.name)
	}
	p.gradReq = req
	if p.data != nil {
		p.attachGrad()
	}
	return nil
}

// IsConstant reports whether the parameter is a Constant.
func (p *Parameter) IsConstant() bool { return p.constant }

// Initialized reports whether the parameter has values.
func (p *Parameter) Initialized() bool { return p.data != nil }

// Data returns the values. It panics with a clear error when the
// parameter has none yet.
func (p *Parameter) Data() *eager.NDArray {
	if p.data == nil {
		panic(p.notReady())
	}
	return p.data
}

// Ready returns nil when the parameter has values, and otherwise an
// error that names it and says how it gets them.
func (p *Parameter) Ready() error {
	if p.data != nil {
		return nil
	}
	return p.notReady()
}

func (p *Parameter) notReady() error {
	if p.pending != nil {
		return fmt.Errorf("parameter %s has shape %v with unknown dims: it is initialised on the block's first forward, which infers them from the data", p.name, p.shape)
	}
	return fmt.Errorf("parameter %s has not been initialised: call Initialize on its block (or on the parameter) first", p.name)
}

// Grad returns the gradient buffer; it stays zero when the request is null.
func (p *Parameter) Grad() *eager.NDArray {
	if p.data == nil {
		panic(p.notReady())
	}
	return p.data.Grad()
}

// SetData replaces the values; the shape must agree with the known dims.
func (p *Parameter) SetData(a *eager.NDArray) error {
	if !p.shape.Fits(a.Shape()) {
		return fmt.Errorf("parameter %s: cannot set data of shape %v on a parameter of shape %v", p.name, a.Shape(), p.shape)
	}
	p.shape, p.dtype = a.Shape(), a.DType()
	p.data = a
	p.pending = nil
	p.attachGrad()
	return nil
}

// ZeroGrad sets the gradient to zero.
func (p *Parameter) ZeroGrad() {
	if p.data != nil && p.data.Grad() != nil {
		ops.ClearData(p.data.Grad().Data())
	}
}

// Cast converts the values (and gradient) to dtype.
func (p *Parameter) Cast(dtype ops.DType) {
	p.dtype = dtype
	if p.data != nil {
		var c *eager.NDArray
		eager.Pause(func() { c = p.data.AsType(dtype) })
		p.data = c
		p.attachGrad()
	}
}

func (p *Parameter) attachGrad() {
	if p.constant || p.gradReq == eager.GradNull {
		p.data.AttachGrad(eager.GradNull)
		return
	}
	p.data.AttachGrad(p.gradReq)
}

// Initialize gives the parameter values with init (or its own Init, or
// the default Uniform(0.07)). With unknown dims, it waits for the first
// forward. An initialised parameter is left alone unless force is set.
func (p *Parameter) Initialize(init Initializer, force bool) error {
	if p.data != nil && !force {
		return nil
	}
	if p.Init != nil {
		init = p.Init
	}
	if init == nil {
		init = Uniform(0.07)
	}
	if !p.shape.Known() {
		p.pending = init
		return nil
	}
	return p.fill(init)
}

func (p *Parameter) fill(init Initializer) error {
	a := eager.ZerosOf(p.dtype, p.shape...)
	if err := init.Fill(p.name, a); err != nil {
		return fmt.Errorf("parameter %s: %w", p.name, err)
	}
	p.data = a
	p.pending = nil
	p.attachGrad()
	return nil
}

// SetShape fills the parameter's unknown dims (0), as assigning Gluon's
// Parameter.shape does: the known dims must agree. A parameter whose
// initialisation waited for its shape is initialised. Blocks that know a
// parameter's shape from their input before any op sees it (the
// recurrent layers of nn/rnn) call it.
func (p *Parameter) SetShape(shape ops.Shape) error {
	if len(shape) != len(p.shape) || !p.shape.Fits(shape) {
		return fmt.Errorf("parameter %s: cannot set shape %v on a parameter of shape %v", p.name, shape, p.shape)
	}
	return p.inferred(shape)
}

// inferred fills unknown dims from a shape found while tracing, and
// finishes a deferred initialisation.
func (p *Parameter) inferred(shape ops.Shape) error {
	if shape == nil || p.shape.Known() && p.data != nil {
		return nil
	}
	if !p.shape.Fits(shape) {
		return fmt.Errorf("parameter %s: declared %v, but the data needs %v", p.name, p.shape, shape)
	}
	if shape.Known() {
		p.shape = shape.Clone()
		if p.pending != nil {
			return p.fill(p.pending)
		}
	}
	return nil
}

// Var returns the parameter as a graph variable, with what is known of its
// shape and dtype.
func (p *Parameter) Var() *graph.Symbol { return graph.Var(p.name, p.shape, p.dtype) }

// Tensor returns the parameter as F needs it: its values when F runs
// eagerly, its variable when F traces a graph. Blocks call it through
// F.Param-style helpers: Param(F, p).
func (p *Parameter) Tensor(f ops.F) ops.Tensor {
	if t, ok := f.Interpreter().(*graph.Tracer); ok {
		return traceParam(t, p)
	}
	if p.data == nil {
		return &deferred{p: p}
	}
	return p.data
}

// String describes the parameter as Gluon does.
func (p *Parameter) String() string {
	return fmt.Sprintf("Parameter %s (shape=%s, dtype=%v)", p.name, p.shape.Tuple(), p.dtype)
}

// ParameterDict is a block's parameters by full name, in the order blocks
// declare them.
type ParameterDict struct {
	names  []string
	params map[string]*Parameter
}

func newParameterDict() *ParameterDict { return &ParameterDict{params: map[string]*Parameter{}} }

func (d *ParameterDict) add(p *Parameter) {
	if q, ok := d.params[p.name]; ok && q == p {
		return // shared: listed once
	}
	d.names = append(d.names, p.name)
	d.params[p.name] = p
}

// Get returns the parameter with the full name, or nil.
func (d *ParameterDict) Get(name string) *Parameter { return d.params[name] }

// Names lists the full names, in declaration order.
func (d *ParameterDict) Names() []string { return append([]string(nil), d.names...) }

// List returns the parameters in declaration order.
func (d *ParameterDict) List() []*Parameter {
	out := make([]*Parameter, len(d.names))
	for i, n := range d.names {
		out[i] = d.params[n]
	}
	return out
}

// Len is the number of parameters.
func (d *ParameterDict) Len() int { return len(d.names) }

// Initialize initialises every parameter (see Parameter.Initialize).
func (d *ParameterDict) Initialize(init Initializer, force bool) error {
	for _, p := range d.List() {
		if err := p.Initialize(init, force); err != nil {
			return err
		}
	}
	return nil
}

// ZeroGrad zeroes every gradient.
func (d *ParameterDict) ZeroGrad() {
	for _, p := range d.List() {
		p.ZeroGrad()
	}
}

// SetLRMult sets every parameter's learning-rate multiplier.
func (d *ParameterDict) SetLRMult(m float64) {
	for _, p := range d.List() {
		p.LRMult = m
	}
}

// Select returns the parameters whose full names match the regular
// expression (Gluon's collect_params(select)).
func (d *ParameterDict) Select(pattern string) (*ParameterDict, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("collect params: bad pattern %q: %w", pattern, err)
	}
	out := newParameterDict()
	for _, p := range d.List() {
		if re.MatchString(p.name) {
			out.add(p)
		}
	}
	return out, nil
}

// String lists the parameters, one per line.
func (d *ParameterDict) String() string {
	var b strings.Builder
	b.WriteString("ParameterDict(\n")
	for _, p := range d.List() {
		b.WriteString("  " + p.String() + "\n")
	}
	b.WriteString(")")
	return b.String()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
