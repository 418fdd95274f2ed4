package nn

import (
	"fmt"
	"reflect"

	"github.com/hybridgo/hybridgo/ops"
)

// traceShapes gives the shapes and dtypes of the inputs of InferShape and
// InferType; a nil input is an error.
func traceShapes(inputs []ops.Tensor) ([]ops.Shape, []ops.DType, error) {
	shapes := make([]ops.Shape, len(inputs))
	dtypes := make([]ops.DType, len(inputs))
	for i, x := range inputs {
		if x == nil || reflect.ValueOf(x).Kind() == reflect.Pointer && reflect.ValueOf(x).IsNil() {
			return nil, nil, fmt.Errorf("input %d is nil: give an NDArray or a Symbol such as graph.Var(\"data\", shape, dtype)", i)
		}
		shapes[i], dtypes[i] = x.Shape(), x.DType()
	}
	return shapes, dtypes, nil
}

// InferShape traces the forward on inputs of the shapes and dtypes of
// inputs (NDArrays, or Symbols such as graph.Var("data", shape, dtype)),
// without running any kernel, and fills in the unknown dims of the
// parameters (Gluon's infer_shape). Parameters waiting for deferred
// initialisation are initialised once their shapes are known.
func (b *HybridBlock) InferShape(inputs ...ops.Tensor) error {
	shapes, dtypes, err := traceShapes(inputs)
	if err == nil {
		_, _, err = b.trace(shapes, dtypes)
	}
	if err != nil {
		return fmt.Errorf("%s: infer shape: %w", b.Name(), err)
	}
	return nil
}

// InferType traces the forward like InferShape and sets the dtype of each
// parameter that has no values yet to the one the inputs' dtypes imply
// (Gluon's infer_type): a Dense layer fed float64 data gets float64
// weights. Parameters with values keep their dtypes.
func (b *HybridBlock) InferType(inputs ...ops.Tensor) error {
	type saved struct {
		p       *Parameter
		dtype   ops.DType
		pending Initializer
	}
	shapes, dtypes, err := traceShapes(inputs)
	if err != nil {
		return fmt.Errorf("%s: infer type: %w", b.Name(), err)
	}
	var open []saved
	for _, p := range b.CollectParams().List() {
		if !p.Initialized() {
			open = append(open, saved{p, p.dtype, p.pending})
			p.dtype, p.pending = ops.Unknown, nil
		}
	}
	_, ts, err := b.trace(shapes, dtypes)
	for _, s := range open {
		s.p.dtype, s.p.pending = s.dtype, s.pending
		if err != nil {
			continue
		}
		if v, ok := ts.vars[s.p]; ok && v.DType() != ops.Unknown {
			s.p.dtype = v.DType()
		}
	}
	if err != nil {
		return fmt.Errorf("%s: infer type: %w", b.Name(), err)
	}
	for _, s := range open {
		if s.p.pending != nil && s.p.shape.Known() {
			if err := s.p.fill(s.p.pending); err != nil {
				return err
			}
		}
	}
	return nil
}
