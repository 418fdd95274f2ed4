package ops

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Op is one registered operator. It is made once, by Register or
// RegisterCustom, and never changes. Everything about the op — its MXNet
// name, attributes, shape and dtype rules, CPU kernel and gradient rule —
// is reached through it.
type Op struct {
	name     string
	aliases  []string
	doc      string
	kind     string
	attrType reflect.Type  // the attribute struct type
	defaults reflect.Value // a struct value holding the defaults
	aux      []int
	random   bool
	noGrad   bool
	inPlace  bool
	accum    bool
	custom   bool // made by RegisterCustom
	samples  []Sample

	inputNames func(Attrs) []string
	numOutputs func(Attrs) int
	visible    func(Attrs) int
	check      func(Attrs) error
	shape      func(Attrs, []Shape) ([]Shape, error)
	dtype      func(Attrs, []DType) ([]DType, error)
	kernel     func(*Env, Attrs, []Value, []Value) error
	grad       func(F, Attrs, []Tensor, []Tensor, []Tensor) []Tensor
	elem       func(Attrs) func([]float64) float64
}

// Def defines an op for Register. A is the op's attribute struct (NoAttrs
// when it has none); its fields carry the MXNet names and defaults in tags:
//
//	type PoolingAttrs struct {
//		Kernel   Tuple  `attr:"kernel" default:"()" doc:"window size"`
//		PoolType string `attr:"pool_type" default:"max" enum:"max,avg,sum"`
//	}
type Def[A any] struct {
	Name    string   // MXNet's name, used in model files
	Aliases []string // other names that find the op (MXNet's aliases)
	Doc     string   // one paragraph for `hybridgo ops` and the REPL's help
	// Kind sorts the op for drawings and summaries; it is one of Kinds.
	// Register requires it; Define takes "other" when it is empty.
	Kind string

	Inputs     []string            // names of the inputs ("data", "weight", "bias")
	InputNames func(a *A) []string // when inputs depend on attributes (no_bias, num_args)
	Aux        []int               // inputs the kernel updates in place (auxiliary states)

	Outputs        int            // number of outputs; 0 means 1
	NumOutputs     func(a *A) int // when the count depends on attributes
	VisibleOutputs func(a *A) int // outputs a caller sees (BatchNorm shows 1 of 3); nil: all

	// Check validates the attributes alone (before any shapes are known).
	Check func(a *A) error
	// Shape infers the output shapes from the input shapes. Unknown dims are 0;
	// the rule may fill unknown dims of inputs in place (in[i] is its own copy),
	// which is how parameter shapes are inferred from the data's.
	Shape func(a *A, in []Shape) ([]Shape, error)
	// DType infers the output dtypes; nil means every input has one dtype
	// and every output takes it.
	DType func(a *A, in []DType) ([]DType, error)
	// Kernel computes the outputs (allocated by the caller with the inferred
	// shapes and dtypes) from the inputs on the CPU.
	Kernel func(env *Env, a *A, in, out []Value) error
	// Grad returns the gradient of each input given the gradients of the
	// outputs, written with F so that it works eagerly, in graphs, and
	// differentiates again. A nil entry means no gradient flows to that input.
	Grad func(f F, a *A, in, out, outGrad []Tensor) []Tensor
	// NoGrad marks an op whose gradient is zero everywhere (argmax, floor,
	// comparisons); an op with neither Grad nor NoGrad cannot be differentiated.
	NoGrad bool
	Random bool // the kernel draws from env.Rand

	// Elementwise returns the per-element function of an op whose output
	// element i depends only on element i of each input (after numpy
	// broadcasting): it gets one argument per input, as float64, and the
	// kernel's output is exactly this function's result converted to the
	// output dtype. Graph passes use it to fuse chains of such ops into
	// one loop. Nil, or a nil function for some attributes (LeakyReLU's
	// prelu), means the op is not element-wise.
	Elementwise func(a *A) func(x []float64) float64
	// InPlace says the kernel may write its output into the buffer of
	// input 0 (it reads each input element before writing that output
	// element), so a memory planner may let them share one buffer.
	InPlace bool
	// Accumulates says the kernel adds into its outputs, or leaves some of
	// their elements alone, so that it needs them to start at zero. Every
	// other kernel writes each output element without reading it, and an
	// executor may hand it buffers that still hold an earlier call's
	// values. The registry tests check this of every op not marked.
	Accumulates bool

	Samples []Sample // attribute and shape sets the registry tests walk
}

// Sample is a representative use of an op for the registry-walking tests.
type Sample struct {
	Attrs  map[string]string // MXNet string form
	Inputs []Shape
	DTypes []DType // per input; nil means float32 everywhere
	// Low and High bound the random input values (default -1, 1).
	Low, High float64
	// Ints marks inputs that hold indices: input i gets integers in [0, Ints[i]).
	Ints map[int]int
	// NoGradCheck skips the numeric gradient check (for points where the
	// op is not smooth, or inputs that are not differentiable).
	NoGradCheck bool
	// Deterministic marks a sample of a Random op that draws nothing with
	// its attributes (RNN with p=0), so that the tests needing repeatable
	// results check it too.
	Deterministic bool
}

// kinds are the kinds an op can have: what a drawing colours it by.
var kinds = []string{"conv", "dense", "pool", "norm", "activation", "softmax", "loss",
	"elementwise", "reduce", "shape", "fused", "other"}

// Kinds lists the kinds an op can have (Def.Kind, Op.Kind).
func Kinds() []string { return slices.Clone(kinds) }

var (
	registryMu sync.RWMutex
	registry   = map[string]*Op{}
	opNames    []string // primary names, in registration order
)

// Define builds an op from its definition without registering it: for ops
// that exist only inside a running program (a fused loop, a cached graph)
// and never appear in model files. It panics when the definition is
// malformed.
func Define[A any](d Def[A]) *Op {
	at := reflect.TypeFor[A]()
	if at.Kind() != reflect.Struct {
		panic("ops.Register " + d.Name + ": attribute type must be a struct")
	}
	if d.Shape == nil || d.Kernel == nil {
		panic("ops.Register " + d.Name + ": Shape and Kernel are required")
	}
	kind := cmp.Or(d.Kind, "other")
	if !slices.Contains(kinds, kind) {
		panic("ops.Register " + d.Name + ": unknown kind " + kind + " (see ops.Kinds)")
	}
	op := &Op{name: d.Name, aliases: d.Aliases, doc: d.Doc, kind: kind, attrType: at, aux: d.Aux,
		random: d.Random, noGrad: d.NoGrad, inPlace: d.InPlace, accum: d.Accumulates, samples: d.Samples}
	op.defaults = newDefaults(op)
	typed := func(a Attrs) *A { return a.(*A) }
	switch {
	case d.InputNames != nil:
		op.inputNames = func(a Attrs) []string { return d.InputNames(typed(a)) }
	default:
		names := d.Inputs
		op.inputNames = func(Attrs) []string { return names }
	}
	switch {
	case d.NumOutputs != nil:
		op.numOutputs = func(a Attrs) int { return d.NumOutputs(typed(a)) }
	default:
		n := max(d.Outputs, 1)
		op.numOutputs = func(Attrs) int { return n }
	}
	if d.VisibleOutputs != nil {
		op.visible = func(a Attrs) int { return d.VisibleOutputs(typed(a)) }
	} else {
		op.visible = op.numOutputs
	}
	if d.Check != nil {
		op.check = func(a Attrs) error { return d.Check(typed(a)) }
	}
	op.shape = func(a Attrs, in []Shape) ([]Shape, error) { return d.Shape(typed(a), in) }
	if d.DType != nil {
		op.dtype = func(a Attrs, in []DType) ([]DType, error) { return d.DType(typed(a), in) }
	}
	op.kernel = func(env *Env, a Attrs, in, out []Value) error { return d.Kernel(env, typed(a), in, out) }
	if d.Grad != nil {
		op.grad = func(f F, a Attrs, in, out, g []Tensor) []Tensor { return d.Grad(f, typed(a), in, out, g) }
	}
	if d.Elementwise != nil {
		op.elem = func(a Attrs) func([]float64) float64 { return d.Elementwise(typed(a)) }
	}
	return op
}

// Register adds an op to the registry and returns it. It panics when the
// definition is malformed or the name is taken: ops are registered at
// program start-up, so such a panic is a programming error found at once.
func Register[A any](d Def[A]) *Op {
	if d.Kind == "" {
		panic("ops.Register " + d.Name + ": Kind is required")
	}
	op := Define(d)
	registryMu.Lock()
	defer registryMu.Unlock()
	for _, n := range append([]string{d.Name}, d.Aliases...) {
		if _, dup := registry[n]; dup {
			panic("ops.Register: op " + n + " is registered twice")
		}
		registry[n] = op
	}
	opNames = append(opNames, d.Name)
	return op
}

// newDefaults builds the attribute struct value holding op's defaults; a
// malformed default tag is a programming error and panics.
func newDefaults(op *Op) reflect.Value {
	v := reflect.New(op.attrType).Elem()
	for _, info := range attrInfos(op.attrType) {
		if info.Required {
			continue
		}
		if err := setAttr(v.Field(info.index), info, info.Default); err != nil {
			panic("ops.Register " + op.name + ": bad default: " + err.Error())
		}
	}
	return v
}

// Lookup finds an op by its MXNet name or an alias.
func Lookup(name string) (*Op, bool) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	op, ok := registry[name]
	return op, ok
}

// MustLookup is Lookup for names known to exist; it panics otherwise.
func MustLookup(name string) *Op {
	op, ok := Lookup(name)
	if !ok {
		panic("ops: no op named " + name)
	}
	return op
}

// All returns every registered op, sorted by name.
func All() []*Op {
	registryMu.RLock()
	names := append([]string(nil), opNames...)
	registryMu.RUnlock()
	sort.Strings(names)
	out := make([]*Op, len(names))
	for i, n := range names {
		out[i] = MustLookup(n)
	}
	return out
}

// Name is the op's MXNet name.
func (op *Op) Name() string { return op.name }

// Aliases are the op's other names.
func (op *Op) Aliases() []string { return op.aliases }

// Doc is the op's description.
func (op *Op) Doc() string { return op.doc }

// Kind is the op's kind, one of Kinds: "conv", "elementwise", "shape", ….
func (op *Op) Kind() string { return op.kind }

// String returns the op's name.
func (op *Op) String() string { return op.name }

// AttrInfos describes the op's attributes, in declaration order.
func (op *Op) AttrInfos() []AttrInfo { return attrInfos(op.attrType) }

// Samples are the op's representative uses, for tests.
func (op *Op) Samples() []Sample { return op.samples }

// Random reports whether the op draws random numbers.
func (op *Op) Random() bool { return op.random }

// Differentiable reports whether the op has a gradient rule (or a zero gradient).
func (op *Op) Differentiable() bool { return op.grad != nil || op.noGrad }

// HasGradRule reports whether the op has a non-zero gradient rule.
func (op *Op) HasGradRule() bool { return op.grad != nil }

// HasDTypeRule reports whether the op has its own dtype rule (otherwise
// every input and output shares one dtype).
func (op *Op) HasDTypeRule() bool { return op.dtype != nil }

// ElemFunc returns the op's per-element function for the given attributes
// (one float64 argument per input, numpy broadcasting implied), and
// whether the op is element-wise with them at all.
func (op *Op) ElemFunc(a Attrs) (func([]float64) float64, bool) {
	if op.elem == nil {
		return nil, false
	}
	f := op.elem(a)
	return f, f != nil
}

// InPlace reports whether the kernel may write its output into the buffer
// of input 0.
func (op *Op) InPlace() bool { return op.inPlace }

// Accumulates reports whether the kernel needs its outputs to start at
// zero (it adds into them, or writes only some of their elements).
func (op *Op) Accumulates() bool { return op.accum }

// AuxInputs lists the inputs the kernel updates in place.
func (op *Op) AuxInputs() []int { return op.aux }

// InputNames names the op's inputs for the given attributes.
func (op *Op) InputNames(a Attrs) []string { return op.inputNames(a) }

// NumOutputs is the number of outputs the kernel produces.
func (op *Op) NumOutputs(a Attrs) int { return op.numOutputs(a) }

// NumVisibleOutputs is the number of outputs a caller sees.
func (op *Op) NumVisibleOutputs(a Attrs) int { return op.visible(a) }

// DefaultAttrs returns a new attribute value holding the defaults. Required
// attributes are left at their zero value.
func (op *Op) DefaultAttrs() Attrs {
	p := reflect.New(op.attrType)
	p.Elem().Set(op.defaults)
	return p.Interface()
}

// MakeAttrs builds attributes from the defaults and the given Attr values,
// and checks that required attributes are present and the values valid.
func (op *Op) MakeAttrs(given ...Attr) (Attrs, error) {
	p := reflect.New(op.attrType)
	p.Elem().Set(op.defaults)
	set := make(map[string]bool, len(given))
	for _, g := range given {
		if err := op.setNamed(p.Elem(), g.Name, ValueString(g.Value)); err != nil {
			return nil, err
		}
		set[g.Name] = true
	}
	return op.finish(p, set)
}

// ParseAttrs builds attributes from MXNet's string form, as found in model
// files. Keys that start with "__" (variable annotations) are ignored.
func (op *Op) ParseAttrs(m map[string]string) (Attrs, error) {
	p := reflect.New(op.attrType)
	p.Elem().Set(op.defaults)
	set := make(map[string]bool, len(m))
	for _, k := range sortedKeys(m) {
		if strings.HasPrefix(k, "__") {
			continue
		}
		if err := op.setNamed(p.Elem(), k, m[k]); err != nil {
			return nil, err
		}
		set[k] = true
	}
	return op.finish(p, set)
}

func (op *Op) setNamed(v reflect.Value, name, s string) error {
	for _, info := range op.AttrInfos() {
		if info.Name == name {
			if err := setAttr(v.Field(info.index), info, s); err != nil {
				return &Error{Op: op.name, Msg: err.Error(), Err: err}
			}
			return nil
		}
	}
	var names []string
	for _, info := range op.AttrInfos() {
		names = append(names, info.Name)
	}
	msg := fmt.Sprintf("unknown attribute %q", name)
	if len(names) == 0 {
		msg += " (this op takes no attributes)"
	} else {
		msg += " (it takes: " + strings.Join(names, ", ") + ")"
	}
	return &Error{Op: op.name, Msg: msg}
}

func (op *Op) finish(p reflect.Value, set map[string]bool) (Attrs, error) {
	for _, info := range op.AttrInfos() {
		if info.Required && !set[info.Name] {
			return nil, &Error{Op: op.name, Msg: fmt.Sprintf("attribute %s is required", info.Name)}
		}
	}
	a := p.Interface()
	if op.check != nil {
		if err := op.check(a); err != nil {
			return nil, op.wrap(err, a, nil, nil)
		}
	}
	return a, nil
}

// Validate runs the op's attribute check on attributes built by hand (a
// struct literal rather than MakeAttrs or ParseAttrs, which check already).
func (op *Op) Validate(a Attrs) error {
	if op.check == nil {
		return nil
	}
	if err := op.check(a); err != nil {
		return op.wrap(err, a, nil, nil)
	}
	return nil
}

// FormatAttrs prints the attributes in MXNet's string form, leaving out
// those equal to their default (required ones are always printed).
func (op *Op) FormatAttrs(a Attrs) map[string]string {
	v := reflect.ValueOf(a).Elem()
	m := map[string]string{}
	for _, info := range op.AttrInfos() {
		s := formatAttr(v.Field(info.index), info)
		if info.Required || s != formatAttr(op.defaults.Field(info.index), info) {
			m[info.Name] = s
		}
	}
	return m
}

// AttrString prints the non-default attributes as "k=v k=v", sorted.
func (op *Op) AttrString(a Attrs) string {
	if a == nil {
		return ""
	}
	m := op.FormatAttrs(a)
	parts := make([]string, 0, len(m))
	for _, k := range sortedKeys(m) {
		parts = append(parts, k+"="+m[k])
	}
	return strings.Join(parts, " ")
}

// InferShape runs the op's shape rule. The input shapes are copied first;
// the returned inputs hold any dims the rule filled in.
func (op *Op) InferShape(a Attrs, in []Shape) (out, filledIn []Shape, err error) {
	if err := op.checkArity(a, len(in)); err != nil {
		return nil, nil, op.wrap(err, a, in, nil)
	}
	filledIn = make([]Shape, len(in))
	for i, s := range in {
		filledIn[i] = s.Clone()
	}
	out, err = op.shape(a, filledIn)
	if err != nil {
		return nil, nil, op.wrap(err, a, in, nil)
	}
	if len(out) != op.numOutputs(a) {
		return nil, nil, op.wrap(fmt.Errorf("shape rule returned %d shapes for %d outputs", len(out), op.numOutputs(a)), a, in, nil)
	}
	// A rule that built a scalar's shape by appending nothing returns nil,
	// which reads as "unknown": with every input known, it is a scalar.
	allKnown := true
	for _, s := range in {
		allKnown = allKnown && s != nil && (len(s) == 0 || s.Known())
	}
	for i := range out {
		if out[i] == nil && allKnown {
			out[i] = Shape{}
		}
	}
	return out, filledIn, nil
}

// InferDType runs the op's dtype rule.
func (op *Op) InferDType(a Attrs, in []DType) ([]DType, error) {
	if err := op.checkArity(a, len(in)); err != nil {
		return nil, op.wrap(err, a, nil, in)
	}
	if op.dtype != nil {
		out, err := op.dtype(a, in)
		if err != nil {
			return nil, op.wrap(err, a, nil, in)
		}
		if len(out) != op.numOutputs(a) {
			return nil, op.wrap(fmt.Errorf("dtype rule returned %d dtypes for %d outputs", len(out), op.numOutputs(a)), a, nil, in)
		}
		return out, nil
	}
	d, first := Unknown, 0
	for i, t := range in {
		if t == Unknown {
			continue
		}
		if d != Unknown && t != d {
			names := op.inputNames(a)
			return nil, op.wrap(fmt.Errorf("input %s is %v but %s is %v; use Cast to convert one of them", names[i], t, names[first], d), a, nil, in)
		}
		if d == Unknown {
			d, first = t, i
		}
	}
	out := make([]DType, op.numOutputs(a))
	for i := range out {
		out[i] = d
	}
	return out, nil
}

// Forward runs the CPU kernel on inputs and pre-allocated outputs.
func (op *Op) Forward(env *Env, a Attrs, in, out []Value) error {
	if err := op.kernel(env, a, in, out); err != nil {
		shapes := make([]Shape, len(in))
		for i := range in {
			shapes[i] = in[i].Shape
		}
		return op.wrap(err, a, shapes, nil)
	}
	return nil
}

// Gradient applies the op's gradient rule; it returns nil entries for
// inputs that get no gradient, and an error for ops with no rule.
func (op *Op) Gradient(f F, a Attrs, in, out, outGrad []Tensor) ([]Tensor, error) {
	switch {
	case op.grad != nil:
		return op.grad(f, a, in, out, outGrad), nil
	case op.noGrad:
		return make([]Tensor, len(in)), nil
	}
	return nil, &Error{Op: op.name, Msg: "this op has no gradient rule; wrap it in BlockGrad or leave it out of the recorded computation"}
}

func (op *Op) checkArity(a Attrs, n int) error {
	names := op.inputNames(a)
	if len(names) != n {
		return fmt.Errorf("takes %d inputs (%s), got %d", len(names), strings.Join(names, ", "), n)
	}
	return nil
}

// wrap turns err into an *Error naming the op, its inputs and attributes.
func (op *Op) wrap(err error, a Attrs, shapes []Shape, dtypes []DType) error {
	if e, ok := err.(*Error); ok && e.Op != "" {
		return e
	}
	e := &Error{Op: op.name, Msg: err.Error(), Err: err, Attrs: op.AttrString(a)}
	names := op.inputNames(a)
	n := max(len(shapes), len(dtypes))
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("in%d", i)
		if i < len(names) {
			name = names[i]
		}
		desc := name
		if i < len(shapes) {
			desc += " " + shapes[i].String()
		}
		if i < len(dtypes) {
			desc += " " + dtypes[i].String()
		}
		e.Inputs = append(e.Inputs, desc)
	}
	return e
}
