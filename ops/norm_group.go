package ops

import "math"

// Per-sample normalisations: InstanceNorm (each channel of each sample),
// GroupNorm (each group of channels of each sample) and L2Normalization
// (scaling to unit L2 norm). InstanceNorm and GroupNorm share one kernel
// on the data seen as (N, G, M): statistics over M for each (n, g), and
// the learned scale and shift per g.

// InstanceNormAttrs are the attributes of InstanceNorm.
type InstanceNormAttrs struct {
	Eps float64 `attr:"eps" default:"0.001" doc:"added to the variance before the square root"`
}

// GroupNormAttrs are the attributes of GroupNorm.
type GroupNormAttrs struct {
	NumGroups     int     `attr:"num_groups" default:"1" doc:"the groups the channels (axis 1) are split into; gamma and beta hold one value per group"`
	Eps           float64 `attr:"eps" default:"1e-05" doc:"added to the variance before the square root"`
	OutputMeanVar bool    `attr:"output_mean_var" default:"False" doc:"also output the mean and the standard deviation of each group, (N, num_groups)"`
}

// L2NormalizationAttrs are the attributes of L2Normalization.
type L2NormalizationAttrs struct {
	Eps  float64 `attr:"eps" default:"1e-10" doc:"added to the sum of squares before the square root"`
	Mode string  `attr:"mode" default:"instance" enum:"instance,channel,spatial" doc:"instance: normalise each sample; channel: each position across the channels (axis 1); spatial: each channel across its positions (axes 2…)"`
}

var opInstanceNorm, opGroupNorm, opL2Normalization *Op

func init() {
	opInstanceNorm = Register(Def[InstanceNormAttrs]{
		Name: "InstanceNorm", Kind: "norm",
		Doc: "Normalises each channel of each sample of data (N, C, …) over its positions to mean 0 and variance 1, " +
			"then scales by gamma (C,) and shifts by beta (C,). The mean and variance, (N, C), are hidden outputs.",
		Inputs:         []string{"data", "gamma", "beta"},
		Outputs:        3,
		VisibleOutputs: func(*InstanceNormAttrs) int { return 1 },
		Shape: func(_ *InstanceNormAttrs, in []Shape) ([]Shape, error) {
			d := in[0]
			if len(d) < 3 {
				return nil, Errorf("data %v must have at least 3 dims (N, C, …)", d)
			}
			if err := paramShape(in, 1, d[1], "gamma", "channels (axis 1)"); err != nil {
				return nil, err
			}
			if err := paramShape(in, 2, d[1], "beta", "channels (axis 1)"); err != nil {
				return nil, err
			}
			return []Shape{d.Clone(), {d[0], d[1]}, {d[0], d[1]}}, nil
		},
		Kernel: func(_ *Env, a *InstanceNormAttrs, in, out []Value) error {
			d := in[0].Shape
			return groupNormKernel(in, out, d[0], d[1], d[2:].Size(), a.Eps, false)
		},
		Grad: func(f F, a *InstanceNormAttrs, in, _, g []Tensor) []Tensor {
			d := in[0].Shape()
			return groupNormGrad(f, in, g[0], d[0], d[1], d[2:].Size(), a.Eps)
		},
		Samples: []Sample{
			{Inputs: []Shape{{2, 3, 4}, {3}, {3}}},
			{Attrs: map[string]string{"eps": "0.01"}, Inputs: []Shape{{2, 2, 3, 2}, {2}, {2}}},
		},
	})

	opGroupNorm = Register(Def[GroupNormAttrs]{
		Name: "GroupNorm", Kind: "norm",
		Doc: "Normalises each group of num_groups groups of the channels of each sample of data (N, C, …) to mean 0 and " +
			"variance 1, then scales by gamma and shifts by beta, one value per group (num_groups,) as in MXNet 1.x. " +
			"The mean and standard deviation, (N, num_groups), are outputs too when output_mean_var.",
		Inputs:  []string{"data", "gamma", "beta"},
		Outputs: 3,
		VisibleOutputs: func(a *GroupNormAttrs) int {
			if a.OutputMeanVar {
				return 3
			}
			return 1
		},
		Check: func(a *GroupNormAttrs) error {
			if a.NumGroups < 1 {
				return Errorf("num_groups=%d must be at least 1", a.NumGroups)
			}
			return nil
		},
		Shape: func(a *GroupNormAttrs, in []Shape) ([]Shape, error) {
			d := in[0]
			if len(d) < 3 {
				return nil, Errorf("data %v must have at least 3 dims (N, C, …)", d)
			}
			if d[1] != 0 && d[1]%a.NumGroups != 0 {
				return nil, Errorf("the %d channels of data %v do not split into num_groups=%d groups", d[1], d, a.NumGroups)
			}
			if err := paramShape(in, 1, a.NumGroups, "gamma", "groups (num_groups)"); err != nil {
				return nil, err
			}
			if err := paramShape(in, 2, a.NumGroups, "beta", "groups (num_groups)"); err != nil {
				return nil, err
			}
			return []Shape{d.Clone(), {d[0], a.NumGroups}, {d[0], a.NumGroups}}, nil
		},
		Kernel: func(_ *Env, a *GroupNormAttrs, in, out []Value) error {
			d := in[0].Shape
			return groupNormKernel(in, out, d[0], a.NumGroups, d[1:].Size()/a.NumGroups, a.Eps, true)
		},
		Grad: func(f F, a *GroupNormAttrs, in, _, g []Tensor) []Tensor {
			d := in[0].Shape()
			return groupNormGrad(f, in, g[0], d[0], a.NumGroups, d[1:].Size()/a.NumGroups, a.Eps)
		},
		Samples: []Sample{
			{Inputs: []Shape{{2, 4, 3}, {1}, {1}}},
			{Attrs: map[string]string{"num_groups": "2"}, Inputs: []Shape{{2, 4, 3}, {2}, {2}}},
			{Attrs: map[string]string{"num_groups": "3", "eps": "0.001"}, Inputs: []Shape{{1, 6, 2, 2}, {3}, {3}}},
			// The mean and deviation outputs are not differentiated through.
			{Attrs: map[string]string{"num_groups": "2", "output_mean_var": "True"}, Inputs: []Shape{{2, 4, 3}, {2}, {2}}, NoGradCheck: true},
		},
	})

	opL2Normalization = Register(Def[L2NormalizationAttrs]{
		Name: "L2Normalization", Kind: "norm",
		Doc: "Divides data by its L2 norm, sqrt(Σx² + eps): over each sample (mode instance), across the channels at each " +
			"position (channel) or over the positions of each channel (spatial). The norm is a hidden output.",
		Inputs:         []string{"data"},
		Outputs:        2,
		VisibleOutputs: func(*L2NormalizationAttrs) int { return 1 },
		Shape: func(a *L2NormalizationAttrs, in []Shape) ([]Shape, error) {
			d := in[0]
			if len(d) < 2 || (a.Mode != "instance" && len(d) < 3) {
				return nil, Errorf("data %v has too few dims for mode %s (instance needs 2, channel and spatial 3)", d, a.Mode)
			}
			var norm Shape
			switch a.Mode {
			case "instance":
				norm = Shape{d[0]}
			case "channel":
				norm = d.Clone()
				norm[1] = 1
			default:
				norm = Shape{d[0], d[1]}
			}
			return []Shape{d.Clone(), norm}, nil
		},
		Kernel: func(_ *Env, a *L2NormalizationAttrs, in, out []Value) error {
			if err := requireFloat(in[0]); err != nil {
				return err
			}
			d := in[0].Shape
			n, c, s := d[0], d[1], d[2:].Size()
			x := in[0].Float64s()
			y := make([]float64, len(x))
			var norms []float64
			switch a.Mode {
			case "instance":
				norms = l2Rows(x, y, n, 1, c*s, a.Eps)
			case "spatial":
				norms = l2Rows(x, y, n*c, 1, s, a.Eps)
			default: // channel: rows of c elements s apart
				norms = make([]float64, n*s)
				for i := range n {
					part := l2Rows(x[i*c*s:(i+1)*c*s], y[i*c*s:(i+1)*c*s], s, s, c, a.Eps)
					copy(norms[i*s:], part)
				}
			}
			CopyData(out[0].Data, FromFloat64s(out[0].DType, y))
			CopyData(out[1].Data, FromFloat64s(out[1].DType, norms))
			return nil
		},
		Grad: func(f F, a *L2NormalizationAttrs, in, out, g []Tensor) []Tensor {
			x, y := in[0], out[0]
			var axes []int
			switch a.Mode {
			case "instance":
				for d := 1; d < len(x.Shape()); d++ {
					axes = append(axes, d)
				}
			case "channel":
				axes = []int{1}
			default:
				for d := 2; d < len(x.Shape()); d++ {
					axes = append(axes, d)
				}
			}
			norm := f.Sqrt(f.PlusScalar(f.Sum(f.Square(x), Axis(axes...), Keepdims()), a.Eps))
			proj := f.Sum(f.Mul(g[0], y), Axis(axes...), Keepdims())
			return []Tensor{f.Div(f.Sub(g[0], f.Mul(y, proj)), norm)}
		},
		Samples: []Sample{
			{Inputs: []Shape{{2, 3}}},
			{Inputs: []Shape{{2, 3, 2}}},
			{Attrs: map[string]string{"mode": "channel"}, Inputs: []Shape{{2, 3, 2, 2}}},
			{Attrs: map[string]string{"mode": "spatial", "eps": "0.001"}, Inputs: []Shape{{2, 2, 3}}},
		},
	})
}

// paramShape fills or checks the per-channel (or per-group) parameter
// input i: it must be (n,).
func paramShape(in []Shape, i, n int, name, what string) error {
	p := in[i]
	if len(p) == 0 || (len(p) == 1 && p[0] == 0) {
		in[i] = Shape{n}
		return nil
	}
	if len(p) != 1 || (n != 0 && p[0] != n) {
		return Errorf("%s %v should be (%d,): one value per %s of data %v", name, p, n, what, in[0])
	}
	return nil
}

// groupNormKernel normalises data seen as (n, g, m) over m, scales and
// shifts it by gamma[g] and beta[g], and writes the mean and the
// variance (the standard deviation when std) of each (n, g).
func groupNormKernel(in, out []Value, n, g, m int, eps float64, std bool) error {
	if err := requireFloat(in...); err != nil {
		return err
	}
	x, gamma, beta := in[0].Float64s(), in[1].Float64s(), in[2].Float64s()
	y := make([]float64, len(x))
	means, vars := make([]float64, n*g), make([]float64, n*g)
	for r := range n * g {
		row := x[r*m : (r+1)*m]
		mean := 0.0
		for _, v := range row {
			mean += v
		}
		mean /= float64(m)
		variance := 0.0
		for _, v := range row {
			variance += (v - mean) * (v - mean)
		}
		variance /= float64(m)
		inv := 1 / math.Sqrt(variance+eps)
		j := r % g
		for k, v := range row {
			y[r*m+k] = (v-mean)*inv*gamma[j] + beta[j]
		}
		means[r], vars[r] = mean, variance
		if std {
			vars[r] = math.Sqrt(variance + eps)
		}
	}
	CopyData(out[0].Data, FromFloat64s(out[0].DType, y))
	CopyData(out[1].Data, FromFloat64s(out[1].DType, means))
	CopyData(out[2].Data, FromFloat64s(out[2].DType, vars))
	return nil
}

// groupNormGrad is the gradient of groupNormKernel's output with respect
// to the data, gamma and beta, written with F on the (n, g, m) view.
func groupNormGrad(f F, in []Tensor, gy Tensor, n, g, m int, eps float64) []Tensor {
	x := f.Reshape(in[0], n, g, m)
	gamma := f.Reshape(in[1], 1, g, 1)
	gy3 := f.Reshape(gy, n, g, m)
	mean := f.Mean(x, Axis(2), Keepdims())
	xc := f.Sub(x, mean)
	inv := f.Rsqrt(f.PlusScalar(f.Mean(f.Square(xc), Axis(2), Keepdims()), eps))
	xhat := f.Mul(xc, inv)
	dxhat := f.Mul(gy3, gamma)
	dx := f.Mul(inv, f.Sub(f.Sub(dxhat, f.Mean(dxhat, Axis(2), Keepdims())),
		f.Mul(xhat, f.Mean(f.Mul(dxhat, xhat), Axis(2), Keepdims()))))
	dgamma := f.Sum(f.Mul(gy3, xhat), Axis(0, 2))
	dbeta := f.Sum(gy3, Axis(0, 2))
	return []Tensor{f.Reshape(dx, in[0].Shape()...), f.Reshape(dgamma, in[1].Shape()...), f.Reshape(dbeta, in[2].Shape()...)}
}

// l2Rows divides each of rows rows of x (m elements stride apart; row r
// starts at r, or at r*m when stride is 1) by its norm sqrt(Σx² + eps),
// into y, and returns the norms.
func l2Rows(x, y []float64, rows, stride, m int, eps float64) []float64 {
	norms := make([]float64, rows)
	for r := range rows {
		start := r * m
		if stride != 1 {
			start = r
		}
		sum := 0.0
		for k := range m {
			v := x[start+k*stride]
			sum += v * v
		}
		norm := math.Sqrt(sum + eps)
		for k := range m {
			y[start+k*stride] = x[start+k*stride] / norm
		}
		norms[r] = norm
	}
	return norms
}

// InstanceNorm normalises each channel of each sample of x (N, C, …),
// then scales by gamma (C,) and shifts by beta (C,); ops.Attr{"eps", …}
// changes eps (0.001).
func (f F) InstanceNorm(x, gamma, beta Tensor, attrs ...Attr) Tensor {
	return f.call1(opInstanceNorm, attrs, x, gamma, beta)
}

// GroupNorm normalises each of numGroups groups of channels of each
// sample of x (N, C, …), then scales by gamma and shifts by beta, one
// value per group (numGroups,).
func (f F) GroupNorm(x, gamma, beta Tensor, numGroups int, attrs ...Attr) Tensor {
	return f.call1(opGroupNorm, append([]Attr{{"num_groups", numGroups}}, attrs...), x, gamma, beta)
}

// L2Normalization divides x by its L2 norm over each sample (mode
// "instance"), across channels ("channel") or over positions ("spatial").
func (f F) L2Normalization(x Tensor, mode string, attrs ...Attr) Tensor {
	return f.call1(opL2Normalization, append([]Attr{{"mode", mode}}, attrs...), x)
}
