package eager

import (
	"fmt"

	"github.com/hybridgo/hybridgo/ops"
)

// F is the eager op namespace: every op runs at once on NDArrays.
//
//	y := eager.F.Relu(x)
var F = ops.NewF(Interpreter{})

// Interpreter runs ops at once: infer the output dtypes and shapes,
// allocate the outputs, run the CPU kernel, and record the op on the
// autograd tape when recording.
type Interpreter struct{}

// Apply runs op on inputs, which must all be *NDArray.
func (Interpreter) Apply(op *ops.Op, attrs ops.Attrs, inputs []ops.Tensor) ([]ops.Tensor, error) {
	in := make([]*NDArray, len(inputs))
	for i, t := range inputs {
		a, ok := t.(*NDArray)
		if !ok {
			return nil, &ops.Error{Op: op.Name(), Msg: fmt.Sprintf("input %d is a %T, not an NDArray: eager ops take NDArrays (inside HybridForward use the F you are given)", i, t)}
		}
		in[i] = a
	}
	out, err := Run(op, attrs, in...)
	if err != nil {
		return nil, err
	}
	res := make([]ops.Tensor, len(out))
	for i, o := range out {
		res[i] = o
	}
	return res, nil
}

// Run runs op on NDArrays and returns every output (hidden ones
// included), in the current training mode, and records it on the
// autograd tape when recording.
func Run(op *ops.Op, attrs ops.Attrs, in ...*NDArray) ([]*NDArray, error) {
	if attrs == nil {
		attrs = op.DefaultAttrs() // the tape keeps them for the gradient
	}
	out, err := Exec(op, attrs, IsTraining(), in...)
	if err != nil {
		return nil, err
	}
	if IsRecording() {
		record(op, attrs, in, out)
	}
	return out, nil
}

// Exec runs one op on NDArrays, outside the autograd tape: it infers the
// output dtypes and shapes with the op's rules, allocates the outputs,
// and runs the kernel in the given training mode (nil attrs are the
// op's defaults). It is the one node runner of eager ops and of graph
// evaluation (graph.Eval).
func Exec(op *ops.Op, attrs ops.Attrs, training bool, in ...*NDArray) ([]*NDArray, error) {
	prof := ActiveProfiler()
	var start int64
	if prof != nil {
		start = ProfileClock()
	}
	if attrs == nil {
		attrs = op.DefaultAttrs()
	}
	shapes := make([]ops.Shape, len(in))
	dtypes := make([]ops.DType, len(in))
	vals := make([]ops.Value, len(in))
	for i, a := range in {
		shapes[i], dtypes[i], vals[i] = a.shape, a.dtype, a.Value()
	}
	outTypes, err := op.InferDType(attrs, dtypes)
	if err != nil {
		return nil, err
	}
	outShapes, _, err := op.InferShape(attrs, shapes)
	if err != nil {
		return nil, err
	}
	out := make([]*NDArray, len(outShapes))
	outVals := make([]ops.Value, len(outShapes))
	for i, s := range outShapes {
		if !s.Known() {
			return nil, &ops.Error{Op: op.Name(), Msg: fmt.Sprintf("output %d has an unknown shape %v", i, s)}
		}
		if !outTypes[i].Supported() {
			return nil, &ops.Error{Op: op.Name(), Msg: fmt.Sprintf("output %d has dtype %v, which has no kernels", i, outTypes[i])}
		}
		out[i] = newArray(s, outTypes[i])
		outVals[i] = out[i].Value()
	}
	env := ops.Env{Training: training}
	if op.Random() {
		r, unlock := LockRand()
		defer unlock()
		env.Rand = r
	}
	if err := op.Forward(&env, attrs, vals, outVals); err != nil {
		return nil, err
	}
	if prof != nil {
		prof.Op(&OpCall{Op: op.Name(), Inputs: vals, Start: start, End: ProfileClock(), Bytes: ValueBytes(outVals...)})
	}
	return out, nil
}
