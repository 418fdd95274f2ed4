package nn

import (
	"fmt"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

// deferred stands for a parameter whose shape is not known yet, in a
// forward that runs eagerly. The first op that uses it infers its shape
// (the op's shape rule fills the unknown dims from the other inputs, as
// when tracing), initialises it, and runs on its values.
type deferred struct{ p *Parameter }

func (d *deferred) Shape() ops.Shape { return d.p.shape.Clone() }
func (d *deferred) DType() ops.DType { return d.p.dtype }
func (d *deferred) String() string {
	return fmt.Sprintf("<Parameter %s %v (shape inferred on first use)>", d.p.name, d.p.shape)
}
func (d *deferred) Float32s() []float32 { panic(d.p.notReady()) }
func (d *deferred) Float64s() []float64 { panic(d.p.notReady()) }
func (d *deferred) Scalar() float64     { panic(d.p.notReady()) }
func (d *deferred) At(...int) float64   { panic(d.p.notReady()) }

// deferredInterp is the eager interpreter of blocks: eager.Interpreter,
// with deferred parameters resolved on first use.
type deferredInterp struct{}

func (deferredInterp) Apply(op *ops.Op, attrs ops.Attrs, inputs []ops.Tensor) ([]ops.Tensor, error) {
	if len(inputs) == 0 {
		if c := lazyCreation(op, attrs); c != nil {
			return []ops.Tensor{c}, nil
		}
	}
	var pending []int
	for i, in := range inputs {
		switch in.(type) {
		case *deferred, *created:
			pending = append(pending, i)
		}
	}
	if len(pending) > 0 {
		shapes := make([]ops.Shape, len(inputs))
		for i, in := range inputs {
			shapes[i] = in.Shape()
		}
		_, filled, err := op.InferShape(attrs, shapes)
		if err != nil {
			return nil, err
		}
		in := append([]ops.Tensor(nil), inputs...)
		for _, i := range pending {
			if c, ok := in[i].(*created); ok {
				a, err := c.resolve(filled[i])
				if err != nil {
					return nil, err
				}
				in[i] = a
				continue
			}
			p := in[i].(*deferred).p
			if err := p.inferred(filled[i]); err != nil {
				return nil, err
			}
			if !p.Initialized() {
				if p.pending == nil {
					return nil, p.notReady()
				}
				return nil, fmt.Errorf("parameter %s: %s could not infer its shape from %v", p.name, op.Name(), filled[i])
			}
			in[i] = p.data
		}
		inputs = in
	}
	return eager.Interpreter{}.Apply(op, attrs, inputs)
}

// created stands for an array made from a shape attribute alone (_zeros,
// _ones, _full) whose shape has unknown dims, in a forward that runs
// eagerly: the first op that uses it infers the shape, as for a deferred
// parameter. MXNet's Gluon exports a recurrent layer's initial states so,
// as _zeros of shape (layers, 0, hidden), for the RNN op to fill.
type created struct {
	op    *ops.Op
	attrs ops.Attrs
	shape ops.Shape
	dtype ops.DType
}

// lazyCreation returns a created for an op without inputs whose shape
// has unknown dims, or nil.
func lazyCreation(op *ops.Op, attrs ops.Attrs) *created {
	shapes, _, err := op.InferShape(attrs, nil)
	if err != nil || len(shapes) != 1 || shapes[0].Known() || len(shapes[0]) == 0 {
		return nil
	}
	if _, ok := op.FormatAttrs(attrs)["shape"]; !ok {
		return nil
	}
	dtypes, err := op.InferDType(attrs, nil)
	if err != nil || len(dtypes) != 1 {
		return nil
	}
	return &created{op: op, attrs: attrs, shape: shapes[0], dtype: dtypes[0]}
}

// resolve makes the array with the shape its consumer inferred.
func (c *created) resolve(shape ops.Shape) (*eager.NDArray, error) {
	if !shape.Known() || !c.shape.Fits(shape) {
		return nil, fmt.Errorf("%s of shape %v: its consumer could not infer its unknown dims (it gave %v)", c.op.Name(), c.shape, shape)
	}
	m := c.op.FormatAttrs(c.attrs)
	m["shape"] = shape.Tuple()
	a, err := c.op.ParseAttrs(m)
	if err != nil {
		return nil, err
	}
	out, err := eager.Run(c.op, a)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

func (c *created) Shape() ops.Shape { return c.shape.Clone() }
func (c *created) DType() ops.DType { return c.dtype }
func (c *created) String() string {
	return fmt.Sprintf("<%s %v (shape inferred on first use)>", c.op.Name(), c.shape)
}
func (c *created) unknown() error {
	return fmt.Errorf("%s has shape %v with unknown dims: they are inferred by the op that uses it", c.op.Name(), c.shape)
}
func (c *created) Float32s() []float32 { panic(c.unknown()) }
func (c *created) Float64s() []float64 { panic(c.unknown()) }
func (c *created) Scalar() float64     { panic(c.unknown()) }
func (c *created) At(...int) float64   { panic(c.unknown()) }
