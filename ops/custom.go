package ops

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// CustomDef defines an operator from outside the package — a Go program
// or a REPL session — for RegisterCustom. It is Def without type
// parameters, so that interpreted code can fill it in too: the attributes
// are declared as a list and read by name through CustomAttrs.
type CustomDef struct {
	Name string // the op's name: F.Call finds it by this name
	Doc  string // one paragraph for `hybridgo ops` and the REPL's help

	Inputs  []string // names of the inputs; nil means one input, "data"
	Outputs int      // number of outputs; 0 means 1

	// Attrs declares the attributes. Each has a Name, a Type ("int",
	// "float", "bool", "string", "tuple", "opt-int", "opt-float",
	// "opt-tuple" or "dtype") and a Default in MXNet's string form, or
	// Required set; Enum and Doc are optional.
	Attrs []AttrInfo

	// Shape infers the output shapes from the input shapes (required).
	Shape func(a CustomAttrs, in []Shape) ([]Shape, error)
	// DType infers the output dtypes; nil means every input has one dtype
	// and every output takes it.
	DType func(a CustomAttrs, in []DType) ([]DType, error)
	// Kernel computes the outputs, allocated with the inferred shapes and
	// dtypes, from the inputs (required).
	Kernel func(a CustomAttrs, in, out []Value) error
	// Grad returns the gradient of each input given the gradients of the
	// outputs, written with f so that it runs eagerly, in graphs, and
	// differentiates again. A nil entry means no gradient for that input.
	Grad func(f F, a CustomAttrs, in, out, outGrad []Tensor) []Tensor
	// NoGrad marks an op whose gradient is zero everywhere; an op with
	// neither Grad nor NoGrad cannot be differentiated.
	NoGrad bool
}

// CustomAttrs are the attributes of an op made by RegisterCustom, read by
// name: a.Float("beta"). Asking for an attribute the op does not declare,
// or with the wrong type, panics with an *Error naming the op.
type CustomAttrs struct {
	op *Op
	v  reflect.Value // the attribute struct
}

// customTypes maps the attribute type names of AttrInfo to Go types.
var customTypes = map[string]reflect.Type{
	"int":       reflect.TypeFor[int](),
	"float":     reflect.TypeFor[float64](),
	"bool":      reflect.TypeFor[bool](),
	"string":    reflect.TypeFor[string](),
	"tuple":     tupleType,
	"opt-int":   optIntType,
	"opt-float": optFloatType,
	"opt-tuple": optTupleType,
	"dtype":     dtypeType,
}

// RegisterCustom adds a user-defined op to the registry and returns it.
// Once registered, the op runs like any other: F.Call(d.Name, …) applies it
// eagerly or while a block is traced, its gradient flows through Record
// and Backward, and a hybridized block that uses it can be exported.
// Symbol files name such an op as MXNet names its Python custom ops:
// "op": "Custom" with the attribute op_type set to d.Name; loading such a
// file needs the op registered first.
//
// Registering a name that a custom op already has replaces that op (so
// that a REPL cell can be run again); the names of built-in ops are
// refused. A malformed definition is an error.
func RegisterCustom(d CustomDef) (*Op, error) {
	op, err := defineCustom(d)
	if err != nil {
		return nil, err
	}
	registryMu.Lock()
	defer registryMu.Unlock()
	if old, ok := registry[d.Name]; ok {
		if !old.custom {
			return nil, &Error{Op: d.Name, Msg: "a built-in op has this name; choose another"}
		}
	} else {
		opNames = append(opNames, d.Name)
	}
	registry[d.Name] = op
	return op, nil
}

// defineCustom checks a CustomDef and builds its op.
func defineCustom(d CustomDef) (*Op, error) {
	bad := func(format string, args ...any) error {
		name := d.Name
		if name == "" {
			name = "RegisterCustom"
		}
		return &Error{Op: name, Msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case d.Name == "":
		return nil, bad("the op needs a Name")
	case d.Name == "Custom" || d.Name == "null" || strings.ContainsAny(d.Name, " \t\n\"'"):
		return nil, bad("%q cannot name an op", d.Name)
	case d.Shape == nil:
		return nil, bad("a Shape rule is required")
	case d.Kernel == nil:
		return nil, bad("a Kernel is required")
	case d.Outputs < 0:
		return nil, bad("Outputs is %d; it must be 0 (one output) or more", d.Outputs)
	}
	inputs := d.Inputs
	if inputs == nil {
		inputs = []string{"data"}
	}
	fields := make([]reflect.StructField, len(d.Attrs))
	seen := map[string]bool{}
	for i, info := range d.Attrs {
		switch {
		case info.Name == "":
			return nil, bad("attribute %d has no Name", i)
		case seen[info.Name]:
			return nil, bad("attribute %s is declared twice", info.Name)
		case info.Name == "op_type" || strings.HasPrefix(info.Name, "__"):
			return nil, bad("%s is reserved and cannot name an attribute", info.Name)
		}
		seen[info.Name] = true
		t, ok := customTypes[info.Type]
		if !ok {
			return nil, bad("attribute %s has type %q; use one of int, float, bool, string, tuple, opt-int, opt-float, opt-tuple, dtype", info.Name, info.Type)
		}
		tag := "attr:" + strconv.Quote(info.Name)
		if !info.Required {
			tag += " default:" + strconv.Quote(info.Default)
		}
		if len(info.Enum) > 0 {
			tag += " enum:" + strconv.Quote(strings.Join(info.Enum, ","))
		}
		if info.Doc != "" {
			tag += " doc:" + strconv.Quote(info.Doc)
		}
		fields[i] = reflect.StructField{Name: fmt.Sprintf("A%d", i), Type: t, Tag: reflect.StructTag(tag)}
	}
	op := &Op{name: d.Name, doc: d.Doc, kind: "other", attrType: reflect.StructOf(fields), noGrad: d.NoGrad, custom: true,
		accum: true} // a user kernel may assume zeroed outputs, as eager ones get
	for _, info := range op.AttrInfos() {
		if info.Required {
			continue
		}
		v := reflect.New(op.attrType).Elem()
		if err := setAttr(v.Field(info.index), info, info.Default); err != nil {
			return nil, bad("bad default: %v", err)
		}
	}
	op.defaults = newDefaults(op)
	wrap := func(a Attrs) CustomAttrs { return CustomAttrs{op: op, v: reflect.ValueOf(a).Elem()} }
	op.inputNames = func(Attrs) []string { return inputs }
	n := max(d.Outputs, 1)
	op.numOutputs = func(Attrs) int { return n }
	op.visible = op.numOutputs
	op.shape = func(a Attrs, in []Shape) ([]Shape, error) { return d.Shape(wrap(a), in) }
	if d.DType != nil {
		op.dtype = func(a Attrs, in []DType) ([]DType, error) { return d.DType(wrap(a), in) }
	}
	op.kernel = func(_ *Env, a Attrs, in, out []Value) error { return d.Kernel(wrap(a), in, out) }
	if d.Grad != nil {
		op.grad = func(f F, a Attrs, in, out, g []Tensor) []Tensor { return d.Grad(f, wrap(a), in, out, g) }
	}
	return op, nil
}

// Custom reports whether the op was made by RegisterCustom. Symbol files
// write such an op as MXNet's "Custom" op with op_type set to its name.
func (op *Op) Custom() bool { return op.custom }

// field returns the attribute field called name, which must have type typ
// ("" for any), and its description.
func (a CustomAttrs) field(name, typ string) (reflect.Value, AttrInfo) {
	if a.op == nil {
		panic(&Error{Msg: "CustomAttrs: the zero value has no attributes"})
	}
	infos := a.op.AttrInfos()
	for _, info := range infos {
		if info.Name == name {
			if typ != "" && info.Type != typ {
				panic(&Error{Op: a.op.name, Msg: fmt.Sprintf("attribute %s is %s, not %s", name, info.Type, typ)})
			}
			return a.v.Field(info.index), info
		}
	}
	msg := fmt.Sprintf("no attribute %q", name)
	if len(infos) > 0 {
		names := make([]string, len(infos))
		for i, info := range infos {
			names[i] = info.Name
		}
		msg += " (it has: " + strings.Join(names, ", ") + ")"
	}
	panic(&Error{Op: a.op.name, Msg: msg})
}

// value returns the attribute field called name, of type typ.
func (a CustomAttrs) value(name, typ string) reflect.Value {
	v, _ := a.field(name, typ)
	return v
}

// Float returns a float attribute.
func (a CustomAttrs) Float(name string) float64 { return a.value(name, "float").Float() }

// Int returns an int attribute.
func (a CustomAttrs) Int(name string) int { return int(a.value(name, "int").Int()) }

// Bool returns a bool attribute.
func (a CustomAttrs) Bool(name string) bool { return a.value(name, "bool").Bool() }

// Text returns a string attribute.
func (a CustomAttrs) Text(name string) string { return a.value(name, "string").String() }

// Tuple returns a tuple attribute.
func (a CustomAttrs) Tuple(name string) Tuple {
	return slices.Clone(a.value(name, "tuple").Interface().(Tuple))
}

// Get returns any attribute in MXNet's string form ("2.5", "True", "(1, 2)").
func (a CustomAttrs) Get(name string) string {
	v, info := a.field(name, "")
	return formatAttr(v, info)
}

// Map returns every attribute in MXNet's string form, defaults included.
func (a CustomAttrs) Map() map[string]string {
	m := map[string]string{}
	if a.op == nil {
		return m
	}
	for _, info := range a.op.AttrInfos() {
		m[info.Name] = formatAttr(a.v.Field(info.index), info)
	}
	return m
}
