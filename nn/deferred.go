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
	var pending []int
	for i, in := range inputs {
		if _, ok := in.(*deferred); ok {
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
