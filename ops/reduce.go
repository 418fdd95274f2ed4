package ops

// Reductions over axes: sum and mean here; the other reductions share
// ReduceAttrs and reduceShape.

// ReduceAttrs are the attributes of the reductions (sum, mean, max, …).
type ReduceAttrs struct {
	Axis     Tuple `attr:"axis" default:"None" doc:"the axes to reduce; None or () reduces all"`
	Keepdims bool  `attr:"keepdims" default:"False" doc:"keep reduced axes as dims of size 1"`
	Exclude  bool  `attr:"exclude" default:"False" doc:"reduce every axis except those given"`
}

// reduceAxes returns, for each dim of in, whether it is reduced.
func (a *ReduceAttrs) reduceAxes(ndim int) ([]bool, error) {
	return a.reduceAxesTo(make([]bool, ndim), ndim)
}

// reduceAxesTo is reduceAxes writing into red (ndim long).
func (a *ReduceAttrs) reduceAxesTo(red []bool, ndim int) ([]bool, error) {
	clear(red)
	if len(a.Axis) == 0 {
		for i := range red {
			red[i] = !a.Exclude
		}
		return red, nil
	}
	for _, ax := range a.Axis {
		n, err := NormAxis(ax, ndim)
		if err != nil {
			return nil, err
		}
		if red[n] {
			return nil, Errorf("axis %d is given twice", ax)
		}
		red[n] = true
	}
	if a.Exclude {
		for i := range red {
			red[i] = !red[i]
		}
	}
	return red, nil
}

// reduceShape is the shape rule of every reduction.
func (a *ReduceAttrs) reduceShape(in Shape) (Shape, error) {
	red, err := a.reduceAxes(len(in))
	if err != nil {
		return nil, err
	}
	out := Shape{}
	for i, d := range in {
		switch {
		case !red[i]:
			out = append(out, d)
		case a.Keepdims:
			out = append(out, 1)
		}
	}
	if len(out) == 0 && len(in) > 0 {
		out = Shape{1} // MXNet's legacy reductions return shape (1,), not a scalar
	}
	return out, nil
}

// keptShape is the output shape with reduced dims kept as 1.
func (a *ReduceAttrs) keptShape(in Shape) Shape {
	return a.keptShapeTo(make(Shape, 0, len(in)), in)
}

// keptShapeTo is keptShape appending to dst[:0], so that a kernel can keep
// the shape on the stack.
func (a *ReduceAttrs) keptShapeTo(dst, in Shape) Shape {
	var buf [maxIterDims]bool
	var red []bool
	if len(in) <= len(buf) {
		red = buf[:len(in)]
	} else {
		red = make([]bool, len(in))
	}
	red, _ = a.reduceAxesTo(red, len(in))
	out := append(dst[:0], in...)
	for i := range out {
		if red != nil && red[i] {
			out[i] = 1
		}
	}
	return out
}

// reduceCount is how many input elements fall into each output element.
func (a *ReduceAttrs) reduceCount(in Shape) int {
	return in.Size() / a.keptShape(in).Size()
}

func reduceSamples() []Sample {
	return []Sample{
		{Inputs: []Shape{{2, 3, 4}}},
		{Attrs: map[string]string{"axis": "1"}, Inputs: []Shape{{2, 3, 4}}},
		{Attrs: map[string]string{"axis": "(0, 2)", "keepdims": "True"}, Inputs: []Shape{{2, 3, 4}}},
		{Attrs: map[string]string{"axis": "-1", "exclude": "True"}, Inputs: []Shape{{2, 3, 4}}},
		{Attrs: map[string]string{"axis": "0"}, Inputs: []Shape{{5}}},
	}
}

// reduceGradBroadcast spreads an output gradient back over the reduced axes.
func reduceGradBroadcast(f F, a *ReduceAttrs, x, g Tensor) Tensor {
	return f.BroadcastLike(f.Reshape(g, a.keptShape(x.Shape())...), x)
}

// reduceDef defines a reduction that folds from init with fold, then maps
// each result with finish (when not nil).
func reduceDef(name string, aliases []string, doc string, init float64, fold func(acc, x float64) float64, finish func(float64, int) float64,
	grad func(f F, a *ReduceAttrs, x, y, g Tensor) Tensor) Def[ReduceAttrs] {
	sums := name == "sum" || name == "mean" // fold is acc + x
	return Def[ReduceAttrs]{
		Name: name, Kind: "reduce", Aliases: aliases, Doc: doc, Inputs: []string{"data"},
		Shape: func(a *ReduceAttrs, in []Shape) ([]Shape, error) {
			s, err := a.reduceShape(in[0])
			return []Shape{s}, err
		},
		DType: func(_ *ReduceAttrs, in []DType) ([]DType, error) {
			if in[0] == Bool {
				return nil, Errorf("dtype bool is not supported; Cast the input first")
			}
			return []DType{in[0]}, nil
		},
		Kernel: func(_ *Env, a *ReduceAttrs, in, out []Value) error {
			var buf [maxIterDims]int
			return reduce(in[0], a.keptShapeTo(buf[:0], in[0].Shape), out[0], init, fold, finish, sums)
		},
		Grad: func(f F, a *ReduceAttrs, in, out, g []Tensor) []Tensor {
			return []Tensor{grad(f, a, in[0], out[0], g[0])}
		},
		Samples: reduceSamples(),
	}
}

var opSum, opMean, opSquareSum *Op

func init() {
	opSum = Register(reduceDef("sum", []string{"sum_axis"}, "Sum over the given axes (all by default).", 0,
		func(acc, x float64) float64 { return acc + x }, nil,
		func(f F, a *ReduceAttrs, x, y, g Tensor) Tensor { return reduceGradBroadcast(f, a, x, g) }))
	opMean = Register(reduceDef("mean", nil, "Mean over the given axes (all by default).", 0,
		func(acc, x float64) float64 { return acc + x },
		func(acc float64, n int) float64 { return acc / float64(n) },
		func(f F, a *ReduceAttrs, x, y, g Tensor) Tensor {
			return f.DivScalar(reduceGradBroadcast(f, a, x, g), float64(a.reduceCount(x.Shape())))
		}))
	opSquareSum = Register(reduceDef("_square_sum", nil, "Sum of the squares over the given axes (all by default): sum(square(x)), "+
		"which MXNet keeps for row-sparse gradients; here arrays are dense.", 0,
		func(acc, x float64) float64 { return acc + x*x }, nil,
		func(f F, a *ReduceAttrs, x, y, g Tensor) Tensor {
			return f.Mul(reduceGradBroadcast(f, a, x, g), f.MulScalar(x, 2))
		}))
}

// Sum adds up x over all axes, or over those given: F.Sum(x, ops.Axis(1),
// ops.Keepdims()).
func (f F) Sum(x Tensor, attrs ...Attr) Tensor { return f.call1(opSum, attrs, x) }

// Mean averages x over all axes, or over those given.
func (f F) Mean(x Tensor, attrs ...Attr) Tensor { return f.call1(opMean, attrs, x) }

// SquareSum returns the sum of the squares of x over all axes, or over
// those given.
func (f F) SquareSum(x Tensor, attrs ...Attr) Tensor { return f.call1(opSquareSum, attrs, x) }
