package ops

// moments: the mean and the (population) variance over axes, as two
// outputs.

// MomentsAttrs are the attributes of moments.
type MomentsAttrs struct {
	Axes     Tuple `attr:"axes" default:"None" doc:"the axes the mean and variance are taken over; they must be given"`
	Keepdims bool  `attr:"keepdims" default:"False" doc:"keep the reduced axes as dims of size 1"`
}

// reduce is the reduction over the same axes.
func (a *MomentsAttrs) reduce() *ReduceAttrs { return &ReduceAttrs{Axis: a.Axes, Keepdims: a.Keepdims} }

var opMoments *Op

func init() {
	opMoments = Register(Def[MomentsAttrs]{
		Name: "moments", Kind: "reduce",
		Doc: "The mean and the variance of data over axes, two outputs of one shape: mean(x) and mean((x - mean(x))²), " +
			"the variance divided by the count, not the count less one.",
		Inputs:  []string{"data"},
		Outputs: 2,
		Check: func(a *MomentsAttrs) error {
			if len(a.Axes) == 0 {
				return Errorf("axes must be given; for moments over all of the data pass every axis")
			}
			return nil
		},
		Shape: func(a *MomentsAttrs, in []Shape) ([]Shape, error) {
			s, err := a.reduce().reduceShape(in[0])
			if err != nil {
				return nil, err
			}
			return []Shape{s, s.Clone()}, nil
		},
		DType: func(_ *MomentsAttrs, in []DType) ([]DType, error) {
			d, err := floatData(in[0])
			if err != nil {
				return nil, err
			}
			return []DType{d[0], d[0]}, nil
		},
		Kernel: func(_ *Env, a *MomentsAttrs, in, out []Value) error {
			if err := requireFloat(in[0]); err != nil {
				return err
			}
			ra := a.reduce()
			kept := ra.keptShape(in[0].Shape)
			mean := func(acc float64, n int) float64 { return acc / float64(max(n, 1)) }
			add := func(acc, x float64) float64 { return acc + x }
			if err := reduce(in[0], kept, out[0], 0, add, mean, true); err != nil {
				return err
			}
			m := Value{Shape: kept, DType: out[0].DType, Data: out[0].Data}
			dev := NewValue(in[0].Shape, in[0].DType)
			if err := mapBinary(in[0], m, dev, func(x, m float64) float64 { return (x - m) * (x - m) }); err != nil {
				return err
			}
			return reduce(dev, kept, out[1], 0, add, mean, true)
		},
		Grad: func(f F, a *MomentsAttrs, in, out, g []Tensor) []Tensor {
			ra, x := a.reduce(), in[0]
			n := float64(ra.reduceCount(x.Shape()))
			dx := f.DivScalar(reduceGradBroadcast(f, ra, x, g[0]), n)
			xc := f.Sub(x, reduceGradBroadcast(f, ra, x, out[0]))
			dx = f.Add(dx, f.Mul(f.MulScalar(reduceGradBroadcast(f, ra, x, g[1]), 2/n), xc))
			return []Tensor{dx}
		},
		Samples: []Sample{
			{Attrs: map[string]string{"axes": "(1,)"}, Inputs: []Shape{{2, 3, 4}}},
			{Attrs: map[string]string{"axes": "(0, 2)", "keepdims": "True"}, Inputs: []Shape{{2, 3, 4}}},
			{Attrs: map[string]string{"axes": "(0, -1)"}, Inputs: []Shape{{3, 5}}},
		},
	})
}

// Moments returns the mean and the variance of x over axes (ops.Keepdims()
// keeps them as dims of size 1).
func (f F) Moments(x Tensor, axes []int, attrs ...Attr) (mean, variance Tensor) {
	out := f.Invoke(opMoments, mustAttrs(opMoments, append([]Attr{{"axes", Tuple(axes)}}, attrs...)), x)
	return out[0], out[1]
}
