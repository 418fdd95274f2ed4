package ops

import "github.com/hybridgo/hybridgo/accel"

// _backward_relu is relu's gradient as one op: ograd where relu's output
// is positive, else 0 (ograd * (out > 0), so a NaN or infinite ograd
// still gives NaN where out <= 0, as the product does). Written as
// broadcast_mul of _greater_scalar it would become an element-wise fusion
// group, whose general loop costs far more than this one.

var opBackwardRelu *Op

func init() {
	opBackwardRelu = Register(Def[NoAttrs]{
		Name:   "_backward_relu",
		Kind:   "activation",
		Doc:    "The gradient of relu, from relu's output: ograd * (out > 0). Both inputs have one shape.",
		Inputs: []string{"ograd", "out"},
		Shape: func(_ *NoAttrs, in []Shape) ([]Shape, error) {
			s, err := sameShape(in[0], in[1])
			return []Shape{s}, err
		},
		DType: func(_ *NoAttrs, in []DType) ([]DType, error) {
			if in[0] != Unknown && in[1] != Unknown && in[0] != in[1] {
				return nil, Errorf("ograd is %v but out is %v", in[0], in[1])
			}
			if in[0] == Unknown {
				return floatData(in[1])
			}
			return floatData(in[0])
		},
		Kernel: func(_ *Env, _ *NoAttrs, in, out []Value) error {
			if err := requireFloat(in...); err != nil {
				return err
			}
			switch g := in[0].Data.(type) {
			case []float32:
				accel.ReluGrad(g, in[1].Data.([]float32), out[0].Data.([]float32))
			case []float64:
				accel.ReluGrad(g, in[1].Data.([]float64), out[0].Data.([]float64))
			}
			return nil
		},
		// Linear in ograd; the mask is flat almost everywhere in out.
		Grad: func(f F, _ *NoAttrs, in, _, g []Tensor) []Tensor {
			return []Tensor{f.backwardRelu(g[0], in[1]), nil}
		},
		Samples: []Sample{{Inputs: []Shape{{2, 3}, {2, 3}}}, {Inputs: []Shape{{7}, {7}}}},
	})
}

// backwardRelu runs _backward_relu: the gradient of relu whose output is y.
func (f F) backwardRelu(g, y Tensor) Tensor { return f.callA(opBackwardRelu, &NoAttrs{}, g, y) }
