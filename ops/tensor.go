package ops

import "fmt"

// Tensor is what an op takes and returns: an *eager.NDArray when ops run
// at once, a *graph.Symbol when a block is being traced. Shape and DType
// work on both. Reading values works on NDArrays; on a Symbol it panics
// with a hybridization error, because a traced tensor has no values yet.
type Tensor interface {
	Shape() Shape
	DType() DType
	// String prints the tensor MXNet-style: values then "<NDArray 2x3 @cpu(0)>",
	// or "<Symbol name 2x3 float32>".
	String() string
	// Float32s and Float64s return a copy of the values, converted.
	Float32s() []float32
	Float64s() []float64
	// Scalar returns the only value of a one-element tensor.
	Scalar() float64
	// At returns the value at a full index.
	At(index ...int) float64
}

// Interpreter gives ops their meaning: the eager interpreter runs the
// kernel at once; the tracer records a node in a graph. Apply returns every
// output of the op (NumOutputs), including hidden ones.
type Interpreter interface {
	Apply(op *Op, attrs Attrs, inputs []Tensor) ([]Tensor, error)
}

// F is the op namespace handed to HybridForward: F.Relu(x), F.Dot(a, b,
// ops.TransposeB()), F.Sum(x, ops.Axis(1)). Each method dispatches through
// one Interpreter, so the same code runs eagerly or is traced.
//
// Methods panic with *Error on bad input (shape mismatch, bad attribute):
// they are called in chains inside a forward, and the REPL, the kernel and
// the block machinery turn that panic into a readable message. Use
// F.Apply for an error instead of a panic.
type F struct {
	interp Interpreter
}

// NewF returns the op namespace that runs every op through interp.
func NewF(interp Interpreter) F { return F{interp: interp} }

// Interpreter returns the interpreter behind f.
func (f F) Interpreter() Interpreter { return f.interp }

// Apply runs op with attrs on inputs and returns every output, or an error.
func (f F) Apply(op *Op, attrs Attrs, inputs ...Tensor) ([]Tensor, error) {
	if f.interp == nil {
		return nil, &Error{Op: op.name, Msg: "this F has no interpreter: use eager.F, or the F a block's HybridForward receives"}
	}
	for i, t := range inputs {
		if t == nil {
			return nil, &Error{Op: op.name, Msg: fmt.Sprintf("input %d is nil", i)}
		}
	}
	if attrs == nil {
		attrs = op.DefaultAttrs()
	} else if err := op.Validate(attrs); err != nil {
		return nil, err
	}
	return f.interp.Apply(op, attrs, inputs)
}

// Invoke is Apply that panics on error and returns only the visible outputs.
func (f F) Invoke(op *Op, attrs Attrs, inputs ...Tensor) []Tensor {
	out, err := f.Apply(op, attrs, inputs...)
	if err != nil {
		panic(err)
	}
	return out[:op.NumVisibleOutputs(attrs)]
}

// Call runs the op with the given MXNet name; attributes are given by name.
// It is the way to reach an op that has no F method of its own.
func (f F) Call(name string, inputs []Tensor, attrs ...Attr) []Tensor {
	op, ok := Lookup(name)
	if !ok {
		panic(&Error{Op: name, Msg: "no such op (see `hybridgo ops` for the list)"})
	}
	return f.Invoke(op, mustAttrs(op, attrs), inputs...)
}

// call1 runs an op that has one visible output.
func (f F) call1(op *Op, attrs []Attr, inputs ...Tensor) Tensor {
	return f.Invoke(op, mustAttrs(op, attrs), inputs...)[0]
}

// callA runs an op with ready-made attributes.
func (f F) callA(op *Op, a Attrs, inputs ...Tensor) Tensor {
	return f.Invoke(op, a, inputs...)[0]
}

func mustAttrs(op *Op, given []Attr) Attrs {
	a, err := op.MakeAttrs(given...)
	if err != nil {
		panic(err)
	}
	return a
}
