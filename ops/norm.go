package ops

// Normalisation layers: BatchNorm (statistics per channel, over the batch)
// and LayerNorm (statistics per sample, over one axis).

// BatchNormAttrs are the attributes of BatchNorm.
type BatchNormAttrs struct {
	Eps            float64  `attr:"eps" default:"0.001" doc:"added to the variance before the square root"`
	Momentum       float64  `attr:"momentum" default:"0.9" doc:"moving = moving*momentum + batch*(1-momentum)"`
	FixGamma       bool     `attr:"fix_gamma" default:"True" doc:"treat gamma as 1 (and give it no gradient)"`
	UseGlobalStats bool     `attr:"use_global_stats" default:"False" doc:"normalise with the moving statistics even when training"`
	OutputMeanVar  bool     `attr:"output_mean_var" default:"False" doc:"also output the mean and the variance used"`
	Axis           int      `attr:"axis" default:"1" doc:"the channel axis"`
	CudnnOff       bool     `attr:"cudnn_off" default:"False" doc:"ignored: there is no cuDNN"`
	MinCalibRange  OptFloat `attr:"min_calib_range" default:"None" doc:"quantisation calibration; ignored"`
	MaxCalibRange  OptFloat `attr:"max_calib_range" default:"None" doc:"quantisation calibration; ignored"`
}

// LayerNormAttrs are the attributes of LayerNorm.
type LayerNormAttrs struct {
	Axis          int     `attr:"axis" default:"-1" doc:"the axis to normalise over"`
	Eps           float64 `attr:"eps" default:"1e-05" doc:"added to the variance before the square root"`
	OutputMeanVar bool    `attr:"output_mean_var" default:"False" doc:"also output the mean and the standard deviation"`
}

// channelLayout splits a shape around axis: outer dims, the axis, inner dims.
func channelLayout(s Shape, axis int) (outer, c, inner int) {
	return prodDims(s[:axis]), s[axis], prodDims(s[axis+1:])
}

// channelShape is a shape of len(s) ones with c at axis, for broadcasting
// per-channel values against data.
func channelShape(ndim, axis, c int) Shape {
	s := make(Shape, ndim)
	for i := range s {
		s[i] = 1
	}
	s[axis] = c
	return s
}

// fillChannelParam checks a per-channel input (gamma, beta, moving stats)
// against the channel count c and fills its unknown shape; it returns the
// channel count, which the parameter may supply when c is unknown.
func fillChannelParam(in []Shape, i int, name string, c int, data Shape, axis int) (int, error) {
	p := in[i]
	switch {
	case len(p) == 0:
		in[i] = Shape{c}
		return c, nil
	case len(p) != 1:
		return 0, Errorf("%s %v must be 1-D with one value per channel: data %v has %d channels on axis %d", name, p, data, c, axis)
	case p[0] == 0:
		p[0] = c
		return c, nil
	case c == 0:
		return p[0], nil
	case p[0] != c:
		return 0, Errorf("%s %v does not match data %v, which has %d channels on axis %d", name, p, data, c, axis)
	}
	return c, nil
}

var opBatchNorm, opBatchNormGrad, opLayerNorm *Op

func init() {
	opBatchNorm = Register(Def[BatchNormAttrs]{
		Name: "BatchNorm", Kind: "norm", Doc: "Batch normalisation over the channel axis: out = gamma*(data-mean)/sqrt(var+eps) + beta. " +
			"When training (and not use_global_stats) mean and var are the batch's, and moving_mean and moving_var are updated in place " +
			"(moving = moving*momentum + batch*(1-momentum)); otherwise the moving statistics are used. The hidden outputs are the mean and the (biased) variance used.",
		Inputs:         []string{"data", "gamma", "beta", "moving_mean", "moving_var"},
		Aux:            []int{3, 4},
		Outputs:        3,
		VisibleOutputs: func(a *BatchNormAttrs) int { return visibleMeanVar(a.OutputMeanVar) },
		Shape: func(a *BatchNormAttrs, in []Shape) ([]Shape, error) {
			data := in[0]
			ax, err := NormAxis(a.Axis, len(data))
			if err != nil {
				return nil, Errorf("data %v has no axis %d (axis=%d)", data, a.Axis, a.Axis)
			}
			c := data[ax]
			names := []string{"", "gamma", "beta", "moving_mean", "moving_var"}
			for i := 1; i < 5; i++ {
				if c, err = fillChannelParam(in, i, names[i], c, data, a.Axis); err != nil {
					return nil, err
				}
			}
			if c != 0 {
				data[ax] = c
				for i := 1; i < 5; i++ {
					in[i][0] = c
				}
			}
			return []Shape{data.Clone(), {c}, {c}}, nil
		},
		Kernel: func(env *Env, a *BatchNormAttrs, in, out []Value) error {
			if err := requireFloat(in...); err != nil {
				return err
			}
			ax, err := NormAxis(a.Axis, len(in[0].Shape))
			if err != nil {
				return err
			}
			train := env.Training && !a.UseGlobalStats
			switch in[0].Data.(type) {
			case []float32:
				batchNormKernel[float32](a, train, ax, in, out)
			case []float64:
				batchNormKernel[float64](a, train, ax, in, out)
			}
			return nil
		},
		Grad: batchNormGrad,
		Samples: []Sample{
			{Inputs: []Shape{{2, 3, 2, 2}, {3}, {3}, {3}, {3}}, Low: 0.2, High: 1.5},
			{Attrs: map[string]string{"fix_gamma": "False"}, Inputs: []Shape{{4, 3}, {3}, {3}, {3}, {3}}, Low: 0.2, High: 1.5},
			{Attrs: map[string]string{"fix_gamma": "False", "axis": "-1", "output_mean_var": "True"}, Inputs: []Shape{{3, 2, 2}, {2}, {2}, {2}, {2}}, Low: 0.2, High: 1.5},
			{Attrs: map[string]string{"fix_gamma": "False", "use_global_stats": "True", "eps": "0.01", "momentum": "0.5"}, Inputs: []Shape{{2, 2, 3}, {2}, {2}, {2}, {2}}, Low: 0.2, High: 1.5},
		},
	})

	opBatchNormGrad = Register(Def[BatchNormAttrs]{
		Name: "_backward_BatchNorm", Kind: "norm",
		Doc: "The gradient of BatchNorm with the batch's statistics: from ograd, data, gamma and the mean and variance " +
			"the forward used, the gradients of data, gamma (zero with fix_gamma) and beta, in two passes over each channel.",
		Inputs:  []string{"ograd", "data", "gamma", "mean", "var"},
		Outputs: 3,
		Shape: func(a *BatchNormAttrs, in []Shape) ([]Shape, error) {
			data := in[1]
			ax, err := NormAxis(a.Axis, len(data))
			if err != nil {
				return nil, Errorf("data %v has no axis %d (axis=%d)", data, a.Axis, a.Axis)
			}
			if _, err := sameShape(in[0], data); err != nil {
				return nil, Errorf("ograd %v does not match data %v", in[0], data)
			}
			c := data[ax]
			for i, name := range []string{"gamma", "mean", "var"} {
				if !in[2+i].Equal(Shape{c}) {
					return nil, Errorf("%s %v is not one value per channel (%d)", name, in[2+i], c)
				}
			}
			return []Shape{data.Clone(), {c}, {c}}, nil
		},
		Kernel: func(_ *Env, a *BatchNormAttrs, in, out []Value) error {
			if err := requireFloat(in...); err != nil {
				return err
			}
			ax, err := NormAxis(a.Axis, len(in[1].Shape))
			if err != nil {
				return err
			}
			switch in[0].Data.(type) {
			case []float32:
				batchNormGradKernel[float32](a, ax, in, out)
			case []float64:
				batchNormGradKernel[float64](a, ax, in, out)
			}
			return nil
		},
		Grad: func(F, *BatchNormAttrs, []Tensor, []Tensor, []Tensor) []Tensor {
			panic(&Error{Op: "_backward_BatchNorm", Msg: "the second-order gradient of BatchNorm with the batch's statistics is not supported"})
		},
		Samples: []Sample{
			// No second-order rule (see Grad above).
			{Inputs: []Shape{{2, 3, 2, 2}, {2, 3, 2, 2}, {3}, {3}, {3}}, Low: 0.2, High: 1.5, NoGradCheck: true},
			{Attrs: map[string]string{"fix_gamma": "False", "axis": "-1"}, Inputs: []Shape{{3, 5, 2}, {3, 5, 2}, {2}, {2}, {2}}, Low: 0.2, High: 1.5, NoGradCheck: true},
		},
	})

	opLayerNorm = Register(Def[LayerNormAttrs]{
		Name: "LayerNorm", Kind: "norm", Doc: "Layer normalisation over one axis: out = gamma*(data-mean)/std + beta with std = sqrt(var+eps), " +
			"the statistics taken per position along the other axes. The hidden outputs are the mean and std (with the normalised axis kept as 1).",
		Inputs:         []string{"data", "gamma", "beta"},
		Outputs:        3,
		VisibleOutputs: func(a *LayerNormAttrs) int { return visibleMeanVar(a.OutputMeanVar) },
		Shape: func(a *LayerNormAttrs, in []Shape) ([]Shape, error) {
			data := in[0]
			ax, err := NormAxis(a.Axis, len(data))
			if err != nil {
				return nil, Errorf("data %v has no axis %d (axis=%d)", data, a.Axis, a.Axis)
			}
			c := data[ax]
			names := []string{"", "gamma", "beta"}
			for i := 1; i < 3; i++ {
				if c, err = fillChannelParam(in, i, names[i], c, data, a.Axis); err != nil {
					return nil, err
				}
			}
			if c != 0 {
				data[ax] = c
				in[1][0], in[2][0] = c, c
			}
			stat := data.Clone()
			stat[ax] = 1
			return []Shape{data.Clone(), stat, stat.Clone()}, nil
		},
		Kernel: func(_ *Env, a *LayerNormAttrs, in, out []Value) error {
			if err := requireFloat(in...); err != nil {
				return err
			}
			ax, err := NormAxis(a.Axis, len(in[0].Shape))
			if err != nil {
				return err
			}
			switch in[0].Data.(type) {
			case []float32:
				layerNormKernel[float32](a, ax, in, out)
			case []float64:
				layerNormKernel[float64](a, ax, in, out)
			}
			return nil
		},
		Grad: layerNormGrad,
		Samples: []Sample{
			{Inputs: []Shape{{2, 3, 4}, {4}, {4}}},
			{Attrs: map[string]string{"axis": "1", "eps": "0.01"}, Inputs: []Shape{{2, 3, 2}, {3}, {3}}},
			{Attrs: map[string]string{"output_mean_var": "True"}, Inputs: []Shape{{3, 5}, {5}, {5}}},
		},
	})
}

func visibleMeanVar(on bool) int {
	if on {
		return 3
	}
	return 1
}

// batchNormGrad is BatchNorm's gradient. With batch statistics (training
// without use_global_stats) the mean and variance depend on data; with the
// moving statistics they are constants. As in MXNet, the rule follows the
// attributes, not the mode the forward ran in: a forward recorded in
// prediction mode without use_global_stats is differentiated as if the
// statistics it used were the batch's.
func batchNormGrad(f F, a *BatchNormAttrs, in, out, g []Tensor) []Tensor {
	x, gamma := in[0], in[1]
	gy := g[0]
	if !a.UseGlobalStats && !a.OutputMeanVar {
		// One op, two passes over each channel: in ResNet-18's training
		// step the composition below took 4.3 times as long.
		r := f.Invoke(opBatchNormGrad, a, gy, x, gamma, out[1], out[2])
		return []Tensor{r[0], r[1], r[2], nil, nil}
	}
	xs := x.Shape()
	ax, _ := NormAxis(a.Axis, len(xs))
	c := xs[ax]
	bshape := channelShape(len(xs), ax, c)
	perChannel := []Attr{Axis(ax), {"exclude", true}}
	keep := append([]Attr{Keepdims()}, perChannel...)

	mean := f.Reshape(out[1], bshape...)
	invstd := f.Rsqrt(f.PlusScalar(f.Reshape(out[2], bshape...), a.Eps))
	xc := f.Sub(x, mean)
	xhat := f.Mul(xc, invstd)

	dbeta := f.Sum(gy, perChannel...)
	var dgamma Tensor
	scale := invstd
	if a.FixGamma {
		dgamma = f.ZerosLike(gamma)
	} else {
		dgamma = f.Sum(f.Mul(gy, xhat), perChannel...)
		scale = f.Mul(invstd, f.Reshape(gamma, bshape...))
	}
	if a.UseGlobalStats {
		return []Tensor{f.Mul(gy, scale), dgamma, dbeta, nil, nil}
	}
	// With output_mean_var the visible mean and variance outputs depend
	// on data too.
	inner := f.Sub(f.Sub(gy, f.Mean(gy, keep...)), f.Mul(xhat, f.Mean(f.Mul(gy, xhat), keep...)))
	dx := f.Mul(inner, scale)
	n := float64(xs.Size() / c)
	dx = f.Add(dx, f.DivScalar(f.Reshape(g[1], bshape...), n))
	dx = f.Add(dx, f.Mul(f.MulScalar(f.Reshape(g[2], bshape...), 2/n), xc))
	return []Tensor{dx, dgamma, dbeta, nil, nil}
}

// layerNormGrad is LayerNorm's gradient, through the mean and std too.
func layerNormGrad(f F, a *LayerNormAttrs, in, out, g []Tensor) []Tensor {
	x, gamma := in[0], in[1]
	xs := x.Shape()
	ax, _ := NormAxis(a.Axis, len(xs))
	c := xs[ax]
	bshape := channelShape(len(xs), ax, c)
	along := []Attr{Axis(ax), Keepdims()}
	others := []Attr{Axis(ax), {"exclude", true}}

	std := out[2]
	xhat := f.Div(f.Sub(x, out[1]), std)
	gy := g[0]
	gg := f.Mul(gy, f.Reshape(gamma, bshape...))
	inner := f.Sub(f.Sub(gg, f.Mean(gg, along...)), f.Mul(xhat, f.Mean(f.Mul(gg, xhat), along...)))
	dx := f.Div(inner, std)
	if a.OutputMeanVar {
		n := float64(c)
		dx = f.Add(dx, f.DivScalar(g[1], n))
		dx = f.Add(dx, f.DivScalar(f.Mul(g[2], xhat), n))
	}
	return []Tensor{dx, f.Sum(f.Mul(gy, xhat), others...), f.Sum(gy, others...)}
}

// BatchNorm normalises x per channel (axis 1 unless ops.Axis says
// otherwise). In training mode it uses the batch statistics and updates
// movingMean and movingVar in place; otherwise it uses them. gamma is
// ignored unless ops.Attr{"fix_gamma", false} is given, as in MXNet.
func (f F) BatchNorm(x, gamma, beta, movingMean, movingVar Tensor, attrs ...Attr) Tensor {
	return f.call1(opBatchNorm, attrs, x, gamma, beta, movingMean, movingVar)
}

// LayerNorm normalises x along the last axis (or ops.Axis) and applies
// gamma and beta, one value each per position on that axis.
func (f F) LayerNorm(x, gamma, beta Tensor, attrs ...Attr) Tensor {
	return f.call1(opLayerNorm, attrs, x, gamma, beta)
}
