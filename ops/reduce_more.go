package ops

import (
	"math"

	"github.com/hybridgo/hybridgo/accel"
)

// More reductions: max, min, prod, nansum and nanprod share ReduceAttrs
// with sum and mean; argmax and argmin return positions along one axis (or
// in the flattened array); norm is the L1 or L2 norm over axes.
//
// Gradients follow MXNet. max and min send the output gradient to every
// element equal to the result, so tied elements all receive the full
// gradient (not a share of it). prod's gradient is g*y/x, exact for inputs
// without zeros. nansum and nanprod give NaN elements a zero gradient.

// ArgReduceAttrs are the attributes of argmax and argmin.
type ArgReduceAttrs struct {
	Axis     OptInt `attr:"axis" default:"None" doc:"the axis to search; None searches the flattened array"`
	Keepdims bool   `attr:"keepdims" default:"False" doc:"keep the searched axis as a dim of size 1"`
}

// NormAttrs are the attributes of norm.
type NormAttrs struct {
	Ord      int   `attr:"ord" default:"2" doc:"1 for the sum of absolute values, 2 for the Euclidean norm"`
	Axis     Tuple `attr:"axis" default:"None" doc:"the axes to reduce; None reduces all"`
	OutDType DType `attr:"out_dtype" default:"None" doc:"the dtype of the result; None keeps the input's"`
	Keepdims bool  `attr:"keepdims" default:"False" doc:"keep reduced axes as dims of size 1"`
}

// reduceAttrs is the plain reduction norm performs.
func (a *NormAttrs) reduceAttrs() *ReduceAttrs {
	return &ReduceAttrs{Axis: a.Axis, Keepdims: a.Keepdims}
}

// foldMax keeps the larger value; a NaN, once met, stays (as in MXNet).
func foldMax(acc, x float64) float64 {
	if math.IsNaN(acc) || acc >= x {
		return acc
	}
	return x
}

// foldMin keeps the smaller value; a NaN, once met, stays.
func foldMin(acc, x float64) float64 {
	if math.IsNaN(acc) || acc <= x {
		return acc
	}
	return x
}

// extremumGrad sends g to the elements of x equal to the reduced y.
func extremumGrad(f F, a *ReduceAttrs, x, y, g Tensor) Tensor {
	mask := f.Equal(x, f.Reshape(y, a.keptShape(x.Shape())...))
	return f.Mul(reduceGradBroadcast(f, a, x, g), mask)
}

var opMax, opMin, opProd, opNansum, opNanprod, opNanprodBackward, opArgmax, opArgmin, opArgmaxChannel, opNorm *Op

func init() {
	opMax = Register(reduceDef("max", []string{"max_axis"},
		"Maximum over the given axes (all by default). The gradient goes to every element equal to the maximum.",
		math.Inf(-1), foldMax, nil, extremumGrad))
	opMin = Register(reduceDef("min", []string{"min_axis"},
		"Minimum over the given axes (all by default). The gradient goes to every element equal to the minimum.",
		math.Inf(1), foldMin, nil, extremumGrad))

	prod := reduceDef("prod", nil, "Product over the given axes (all by default).", 1,
		func(acc, x float64) float64 { return acc * x }, nil,
		func(f F, a *ReduceAttrs, x, y, g Tensor) Tensor {
			ratio := f.Div(f.Reshape(y, a.keptShape(x.Shape())...), x)
			return f.Mul(reduceGradBroadcast(f, a, x, g), ratio)
		})
	prod.Samples = rangeSamples(reduceSamples(), 0.5, 1.5)
	opProd = Register(prod)

	opNansum = Register(reduceDef("nansum", nil, "Sum over the given axes (all by default), counting NaN as 0.", 0,
		func(acc, x float64) float64 {
			if math.IsNaN(x) {
				return acc
			}
			return acc + x
		}, nil,
		func(f F, a *ReduceAttrs, x, y, g Tensor) Tensor {
			return f.Mul(reduceGradBroadcast(f, a, x, g), f.Equal(x, x)) // 0 at NaN
		}))

	nanprod := reduceDef("nanprod", nil, "Product over the given axes (all by default), counting NaN as 1.", 1,
		func(acc, x float64) float64 {
			if math.IsNaN(x) {
				return acc
			}
			return acc * x
		}, nil,
		func(f F, a *ReduceAttrs, x, y, g Tensor) Tensor {
			kept := a.keptShape(x.Shape())
			return f.nanprodBackward(x, f.Reshape(y, kept...), f.Reshape(g, kept...))
		})
	nanprod.Samples = rangeSamples(reduceSamples(), 0.5, 1.5)
	opNanprod = Register(nanprod)

	opNanprodBackward = Register(Def[NoAttrs]{
		Name:   "_backward_nanprod",
		Kind:   "reduce",
		Doc:    "The gradient of nanprod: out_grad*out/data where data is not NaN, 0 where it is; out and out_grad have data's shape with reduced dims of size 1.",
		Inputs: []string{"data", "out", "out_grad"},
		Shape: func(_ *NoAttrs, in []Shape) ([]Shape, error) {
			for i, name := range []string{"out", "out_grad"} {
				b, err := BroadcastShapes(in[0], in[i+1])
				if err != nil || (in[0].Known() && !b.Equal(in[0])) {
					return nil, Errorf("%s %v does not broadcast to data %v", name, in[i+1], in[0])
				}
			}
			return []Shape{in[0].Clone()}, nil
		},
		Kernel: func(_ *Env, _ *NoAttrs, in, out []Value) error {
			if err := requireFloat(in[0]); err != nil {
				return err
			}
			xs, ys, gs := in[0].Float64s(), in[1].Float64s(), in[2].Float64s()
			res := make([]float64, len(xs))
			it := newBroadcastIter(in[0].Shape, in[0].Shape, in[1].Shape)
			it.run(func(o, _, ik, n, _, sk int) {
				for j := 0; j < n; j++ {
					if x := xs[o+j]; !math.IsNaN(x) {
						res[o+j] = gs[ik+j*sk] * ys[ik+j*sk] / x
					}
				}
			})
			CopyData(out[0].Data, FromFloat64s(out[0].DType, res))
			return nil
		},
		Samples: []Sample{{Inputs: []Shape{{2, 3, 4}, {2, 1, 4}, {2, 1, 4}}, Low: 0.5, High: 1.5}},
	})

	opArgmax = Register(argDef("argmax", "Index of the maximum along an axis, or in the flattened array when axis is None; the result has the input's dtype. Ties give the first index.",
		func(x, best float64) bool { return x > best }))
	opArgmin = Register(argDef("argmin", "Index of the minimum along an axis, or in the flattened array when axis is None; the result has the input's dtype. Ties give the first index.",
		func(x, best float64) bool { return x < best }))

	// argmax_channel is argmax along axis 1, the attributes fixed.
	channel := argDef("argmax", "", func(x, best float64) bool { return x > best })
	axis1 := &ArgReduceAttrs{Axis: Some(1)}
	opArgmaxChannel = Register(Def[NoAttrs]{
		Name: "argmax_channel", Kind: "reduce",
		Doc:     "Index of the maximum along axis 1 (MXNet's older argmax): data (n, c) gives (n,). The result has the input's dtype. Ties give the first index.",
		Inputs:  []string{"data"},
		Shape:   func(_ *NoAttrs, in []Shape) ([]Shape, error) { return channel.Shape(axis1, in) },
		DType:   func(_ *NoAttrs, in []DType) ([]DType, error) { return channel.DType(axis1, in) },
		Kernel:  func(env *Env, _ *NoAttrs, in, out []Value) error { return channel.Kernel(env, axis1, in, out) },
		NoGrad:  true,
		Samples: []Sample{{Inputs: []Shape{{2, 3}}}, {Inputs: []Shape{{2, 4, 3}}}},
	})

	opNorm = Register(Def[NormAttrs]{
		Name:   "norm",
		Kind:   "reduce",
		Doc:    "The L1 (ord=1) or L2 (ord=2) norm over the given axes (all by default). The L2 gradient g*x/norm is NaN where the norm is 0, as in MXNet.",
		Inputs: []string{"data"},
		Check: func(a *NormAttrs) error {
			if a.Ord != 1 && a.Ord != 2 {
				return Errorf("ord=%d is not supported (1 or 2)", a.Ord)
			}
			if a.OutDType != Unknown && !a.OutDType.Supported() {
				return Errorf("out_dtype %v has no kernels", a.OutDType)
			}
			return nil
		},
		Shape: func(a *NormAttrs, in []Shape) ([]Shape, error) {
			s, err := a.reduceAttrs().reduceShape(in[0])
			if err != nil {
				return nil, Errorf("%v (data %v)", err, in[0])
			}
			return []Shape{s}, nil
		},
		DType: func(a *NormAttrs, in []DType) ([]DType, error) {
			if in[0] == Bool {
				return nil, Errorf("dtype bool is not supported; Cast the input first")
			}
			if a.OutDType != Unknown {
				return []DType{a.OutDType}, nil
			}
			return []DType{in[0]}, nil
		},
		Kernel: func(_ *Env, a *NormAttrs, in, out []Value) error {
			kept := a.reduceAttrs().keptShape(in[0].Shape)
			if a.Ord == 1 {
				return Reduce(in[0], kept, out[0], 0, func(acc, x float64) float64 { return acc + math.Abs(x) }, nil)
			}
			return Reduce(in[0], kept, out[0], 0, func(acc, x float64) float64 { return acc + x*x },
				func(acc float64, _ int) float64 { return math.Sqrt(acc) })
		},
		Grad: func(f F, a *NormAttrs, in, out, g []Tensor) []Tensor {
			x, y, gy := in[0], out[0], g[0]
			if y.DType() != x.DType() {
				y, gy = f.Cast(y, x.DType()), f.Cast(gy, x.DType())
			}
			r := a.reduceAttrs()
			gx := reduceGradBroadcast(f, r, x, gy)
			if a.Ord == 1 {
				return []Tensor{f.Mul(gx, f.Sign(x))}
			}
			return []Tensor{f.Mul(gx, f.Div(x, f.Reshape(y, r.keptShape(x.Shape())...)))}
		},
		Samples: []Sample{
			{Inputs: []Shape{{2, 3, 4}}},
			{Attrs: map[string]string{"ord": "1"}, Inputs: []Shape{{2, 3, 4}}},
			{Attrs: map[string]string{"axis": "1"}, Inputs: []Shape{{2, 3, 4}}},
			{Attrs: map[string]string{"axis": "(0, 2)", "keepdims": "True", "ord": "1"}, Inputs: []Shape{{2, 3, 4}}},
			{Attrs: map[string]string{"axis": "-1", "out_dtype": "float64"}, Inputs: []Shape{{3, 4}}},
		},
	})
}

// rangeSamples returns the samples with inputs drawn from [low, high).
func rangeSamples(s []Sample, low, high float64) []Sample {
	for i := range s {
		s[i].Low, s[i].High = low, high
	}
	return s
}

// argShape is the shape rule of argmax and argmin.
func (a *ArgReduceAttrs) argShape(in Shape) (Shape, error) {
	if !a.Axis.Valid {
		if a.Keepdims {
			out := make(Shape, len(in))
			for i := range out {
				out[i] = 1
			}
			return out, nil
		}
		return Shape{1}, nil
	}
	ax, err := NormAxis(a.Axis.Value, len(in))
	if err != nil {
		return nil, Errorf("axis %d is out of range for data of shape %v (%d dims)", a.Axis.Value, in, len(in))
	}
	out := Shape{}
	for i, d := range in {
		switch {
		case i != ax:
			out = append(out, d)
		case a.Keepdims:
			out = append(out, 1)
		}
	}
	if len(out) == 0 {
		out = Shape{1}
	}
	return out, nil
}

func argDef(name, doc string, better func(x, best float64) bool) Def[ArgReduceAttrs] {
	return Def[ArgReduceAttrs]{
		Name: name, Kind: "reduce", Doc: doc, Inputs: []string{"data"},
		Shape: func(a *ArgReduceAttrs, in []Shape) ([]Shape, error) {
			s, err := a.argShape(in[0])
			return []Shape{s}, err
		},
		DType: func(_ *ArgReduceAttrs, in []DType) ([]DType, error) {
			if in[0] == Bool {
				return nil, Errorf("dtype bool is not supported; Cast the input first")
			}
			return []DType{in[0]}, nil
		},
		Kernel: func(_ *Env, a *ArgReduceAttrs, in, out []Value) error {
			xs := in[0].Float64s()
			var outer, n, inner int
			if a.Axis.Valid {
				ax, err := NormAxis(a.Axis.Value, len(in[0].Shape))
				if err != nil {
					return err
				}
				outer, n, inner = axisSplit(in[0].Shape, ax)
			} else {
				outer, n, inner = 1, len(xs), 1
			}
			res := make([]float64, outer*inner)
			accel.ParallelFor(outer*inner, 1024, func(lo, hi int) {
				for r := lo; r < hi; r++ {
					base := (r/inner)*n*inner + r%inner
					best, at := xs[base], 0
					for k := 1; k < n; k++ {
						if x := xs[base+k*inner]; better(x, best) {
							best, at = x, k
						}
					}
					res[r] = float64(at)
				}
			})
			CopyData(out[0].Data, FromFloat64s(out[0].DType, res))
			return nil
		},
		NoGrad: true,
		Samples: []Sample{
			{Inputs: []Shape{{2, 3, 4}}},
			{Attrs: map[string]string{"axis": "1"}, Inputs: []Shape{{2, 3, 4}}},
			{Attrs: map[string]string{"axis": "-1", "keepdims": "True"}, Inputs: []Shape{{2, 3, 4}}},
			{Attrs: map[string]string{"keepdims": "True"}, Inputs: []Shape{{3, 4}}},
			{Attrs: map[string]string{"axis": "0"}, Inputs: []Shape{{5}}},
		},
	}
}

// Max is the maximum of x over all axes, or over those given:
// F.Max(x, ops.Axis(1), ops.Keepdims()). Its gradient goes to every element
// equal to the maximum (all of them when there are ties, as in MXNet).
func (f F) Max(x Tensor, attrs ...Attr) Tensor { return f.call1(opMax, attrs, x) }

// Min is the minimum of x over all axes, or over those given; ties share
// the gradient as in Max.
func (f F) Min(x Tensor, attrs ...Attr) Tensor { return f.call1(opMin, attrs, x) }

// Prod multiplies x over all axes, or over those given.
func (f F) Prod(x Tensor, attrs ...Attr) Tensor { return f.call1(opProd, attrs, x) }

// Nansum adds up x over all axes, or over those given, counting NaN as 0.
func (f F) Nansum(x Tensor, attrs ...Attr) Tensor { return f.call1(opNansum, attrs, x) }

// Nanprod multiplies x over all axes, or over those given, counting NaN as 1.
func (f F) Nanprod(x Tensor, attrs ...Attr) Tensor { return f.call1(opNanprod, attrs, x) }

// nanprodBackward is the gradient of nanprod (_backward_nanprod).
func (f F) nanprodBackward(x, y, g Tensor) Tensor {
	return f.callA(opNanprodBackward, &NoAttrs{}, x, y, g)
}

// Argmax returns the index of the maximum of x along axis (negative counts
// from the end), in x's dtype; ops.Keepdims() keeps the axis as size 1.
func (f F) Argmax(x Tensor, axis int, attrs ...Attr) Tensor {
	return f.call1(opArgmax, append([]Attr{{"axis", axis}}, attrs...), x)
}

// ArgmaxFlat returns the index of the maximum of the flattened x, with shape (1,).
func (f F) ArgmaxFlat(x Tensor, attrs ...Attr) Tensor { return f.call1(opArgmax, attrs, x) }

// Argmin returns the index of the minimum of x along axis, in x's dtype.
func (f F) Argmin(x Tensor, axis int, attrs ...Attr) Tensor {
	return f.call1(opArgmin, append([]Attr{{"axis", axis}}, attrs...), x)
}

// ArgminFlat returns the index of the minimum of the flattened x, with shape (1,).
func (f F) ArgminFlat(x Tensor, attrs ...Attr) Tensor { return f.call1(opArgmin, attrs, x) }

// Norm is the L2 norm of x over all axes, or over those given; set
// ops.Attr{"ord", 1} for the L1 norm: F.Norm(x, ops.Axis(1), ops.Attr{"ord", 1}).
func (f F) Norm(x Tensor, attrs ...Attr) Tensor { return f.call1(opNorm, attrs, x) }

// ArgmaxChannel returns the index of the maximum along axis 1.
func (f F) ArgmaxChannel(x Tensor) Tensor { return f.callA(opArgmaxChannel, &NoAttrs{}, x) }
