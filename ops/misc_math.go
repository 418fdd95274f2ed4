package ops

import (
	"fmt"
	"math"

	"github.com/hybridgo/hybridgo/accel"
)

// clip bounds values to an interval; add_n adds any number of arrays of
// one shape.

// ClipAttrs are the attributes of clip.
type ClipAttrs struct {
	AMin float64 `attr:"a_min" doc:"the lower bound"`
	AMax float64 `attr:"a_max" doc:"the upper bound"`
}

// AddNAttrs are the attributes of add_n.
type AddNAttrs struct {
	NumArgs int `attr:"num_args" doc:"the number of inputs"`
}

var opClip, opAddN, opDivSqrtDim *Op

// clip bounds x to [a_min, a_max].
func (a *ClipAttrs) clip(x float64) float64 {
	switch {
	case x > a.AMax:
		return a.AMax
	case x < a.AMin:
		return a.AMin
	}
	return x
}

func init() {
	opClip = Register(Def[ClipAttrs]{
		Name: "clip",
		Kind: "elementwise",
		Doc: "Bounds each element to [a_min, a_max]: a_max above it, a_min below it. " +
			"The gradient passes where a_min <= x <= a_max (bounds included, as in MXNet) and is 0 elsewhere.",
		Inputs: []string{"data"},
		Shape:  func(_ *ClipAttrs, in []Shape) ([]Shape, error) { return []Shape{in[0].Clone()}, nil },
		DType: func(_ *ClipAttrs, in []DType) ([]DType, error) {
			if in[0] == Bool {
				return nil, Errorf("dtype bool is not supported; Cast the input first")
			}
			return []DType{in[0]}, nil
		},
		Kernel: func(_ *Env, a *ClipAttrs, in, out []Value) error {
			// Floats take accel's loop; the bounds rounded to the dtype
			// bound alike, as the only value of the dtype between a bound
			// and its rounding is the rounding itself.
			switch x := in[0].Data.(type) {
			case []float32:
				accel.Clamp(x, out[0].Data.([]float32), float32(a.AMin), float32(a.AMax))
				return nil
			case []float64:
				accel.Clamp(x, out[0].Data.([]float64), a.AMin, a.AMax)
				return nil
			}
			return mapUnary(in[0], out[0], a.clip)
		},
		Elementwise: func(a *ClipAttrs) func([]float64) float64 {
			c := *a // a copy: the function outlives the attributes' owner
			return func(x []float64) float64 { return c.clip(x[0]) }
		},
		InPlace: true,
		Grad: func(f F, a *ClipAttrs, in, _, g []Tensor) []Tensor {
			x := in[0]
			inside := f.Mul(f.GreaterEqualScalar(x, a.AMin), f.LesserEqualScalar(x, a.AMax))
			return []Tensor{f.Mul(g[0], inside)}
		},
		Samples: []Sample{
			{Attrs: map[string]string{"a_min": "-0.5", "a_max": "0.5"}, Inputs: []Shape{{2, 3}}},
			{Attrs: map[string]string{"a_min": "0", "a_max": "2"}, Inputs: []Shape{{7}}, Low: -3, High: 3},
		},
	})

	opDivSqrtDim = Register(Def[NoAttrs]{
		Name: "_contrib_div_sqrt_dim", Kind: "elementwise",
		Doc:    "data / sqrt(d), d the size of data's last axis: the scaling of attention scores.",
		Inputs: []string{"data"},
		Shape: func(_ *NoAttrs, in []Shape) ([]Shape, error) {
			if len(in[0]) == 0 {
				return nil, Errorf("data must have at least 1 dim")
			}
			return []Shape{in[0].Clone()}, nil
		},
		DType: func(_ *NoAttrs, in []DType) ([]DType, error) { return floatData(in[0]) },
		Kernel: func(_ *Env, _ *NoAttrs, in, out []Value) error {
			s := 1 / math.Sqrt(float64(in[0].Shape[len(in[0].Shape)-1]))
			return mapUnary(in[0], out[0], func(x float64) float64 { return x * s })
		},
		InPlace: true,
		Grad: func(f F, _ *NoAttrs, in, _, g []Tensor) []Tensor {
			s := in[0].Shape()
			return []Tensor{f.MulScalar(g[0], 1/math.Sqrt(float64(s[len(s)-1])))}
		},
		Samples: []Sample{{Inputs: []Shape{{2, 4}}}, {Inputs: []Shape{{2, 3, 5}}}},
	})

	opAddN = Register(Def[AddNAttrs]{
		Name: "add_n", Kind: "elementwise", Aliases: []string{"ElementWiseSum", "_sparse_add_n", "_sparse_ElementWiseSum"},
		Doc: "Adds all inputs, which must have one shape, element by element: arg0 + arg1 + ... .",
		InputNames: func(a *AddNAttrs) []string {
			names := make([]string, max(a.NumArgs, 0))
			for i := range names {
				names[i] = fmt.Sprintf("arg%d", i)
			}
			return names
		},
		Check: func(a *AddNAttrs) error {
			if a.NumArgs < 1 {
				return Errorf("num_args=%d: at least one input is needed", a.NumArgs)
			}
			return nil
		},
		Shape: func(_ *AddNAttrs, in []Shape) ([]Shape, error) {
			if len(in) == 0 {
				return nil, Errorf("at least one input is needed")
			}
			s := in[0].Clone()
			for i := 1; i < len(in); i++ {
				m, ok := mergeShapes(s, in[i])
				if !ok {
					return nil, Errorf("arg%d %v differs from arg0 %v: add_n does not broadcast", i, in[i], in[0])
				}
				s = m
			}
			for i := range in { // every input learns the dims the others know
				copy(in[i], s)
			}
			return []Shape{s}, nil
		},
		DType: func(_ *AddNAttrs, in []DType) ([]DType, error) {
			d := Unknown
			for i, t := range in {
				switch {
				case t == Bool:
					return nil, Errorf("arg%d is bool; Cast it first", i)
				case t == Unknown:
				case d != Unknown && t != d:
					return nil, Errorf("arg%d is %v but an earlier input is %v; use Cast to convert one of them", i, t, d)
				default:
					d = t
				}
			}
			return []DType{d}, nil
		},
		Kernel: func(_ *Env, _ *AddNAttrs, in, out []Value) error {
			switch y := out[0].Data.(type) {
			case []float32:
				addNLoop(y, in)
			case []float64:
				addNLoop(y, in)
			case []uint8:
				addNLoop(y, in)
			case []int8:
				addNLoop(y, in)
			case []int32:
				addNLoop(y, in)
			case []int64:
				addNLoop(y, in)
			default:
				return fmt.Errorf("dtype %v is not supported", out[0].DType)
			}
			return nil
		},
		Grad: func(_ F, _ *AddNAttrs, in, _, g []Tensor) []Tensor {
			gs := make([]Tensor, len(in))
			for i := range gs {
				gs[i] = g[0]
			}
			return gs
		},
		Samples: []Sample{
			{Attrs: map[string]string{"num_args": "3"}, Inputs: []Shape{{2, 3}, {2, 3}, {2, 3}}},
			{Attrs: map[string]string{"num_args": "1"}, Inputs: []Shape{{4}}},
		},
	})
}

func addNLoop[T Number](y []T, in []Value) {
	copy(y, in[0].Data.([]T))
	for _, v := range in[1:] {
		for i, x := range v.Data.([]T) {
			y[i] += x
		}
	}
}

// Clip bounds x to [min, max] element by element.
func (f F) Clip(x Tensor, min, max float64) Tensor {
	return f.callA(opClip, &ClipAttrs{AMin: min, AMax: max}, x)
}

// AddN adds xs, which must all have one shape (add_n with num_args set).
func (f F) AddN(xs ...Tensor) Tensor {
	if len(xs) == 0 {
		panic(&Error{Op: opAddN.name, Msg: "no inputs to add"})
	}
	return f.callA(opAddN, &AddNAttrs{NumArgs: len(xs)}, xs...)
}

// DivSqrtDim returns x / sqrt(d), d the size of x's last axis.
func (f F) DivSqrtDim(x Tensor) Tensor { return f.callA(opDivSqrtDim, &NoAttrs{}, x) }
