package ops

// Older and contrib spellings of the layers, as model files exported by
// earlier MXNet versions and by Gluon's contrib blocks name them:
// BatchNorm_v1, Convolution_v1 and Pooling_v1 (MXNet's first versions of
// the layers), _contrib_SyncBatchNorm (batch normalisation whose
// statistics span the devices of a data-parallel step) and
// _contrib_BatchNormWithReLU (BatchNorm and relu in one). Each takes its
// own attributes, as MXNet spells them, and runs as the layer it is a
// version of: its shape rule, kernel and gradient are that layer's, under
// the attributes it maps to. Where the older layer's arithmetic differs
// (Pooling_v1's max pooling pads with zeros) the difference is refused.

// BatchNormV1Attrs are the attributes of BatchNorm_v1.
type BatchNormV1Attrs struct {
	Eps            float64 `attr:"eps" default:"0.001" doc:"added to the variance before the square root"`
	Momentum       float64 `attr:"momentum" default:"0.9" doc:"moving = moving*momentum + batch*(1-momentum)"`
	FixGamma       bool    `attr:"fix_gamma" default:"True" doc:"treat gamma as 1 (and give it no gradient)"`
	UseGlobalStats bool    `attr:"use_global_stats" default:"False" doc:"normalise with the moving statistics even when training"`
	OutputMeanVar  bool    `attr:"output_mean_var" default:"False" doc:"also output the mean and the variance used"`
}

// SyncBatchNormAttrs are the attributes of _contrib_SyncBatchNorm.
type SyncBatchNormAttrs struct {
	Eps            float64 `attr:"eps" default:"0.001" doc:"added to the variance before the square root"`
	Momentum       float64 `attr:"momentum" default:"0.9" doc:"moving = moving*momentum + batch*(1-momentum)"`
	FixGamma       bool    `attr:"fix_gamma" default:"True" doc:"treat gamma as 1 (and give it no gradient)"`
	UseGlobalStats bool    `attr:"use_global_stats" default:"False" doc:"normalise with the moving statistics even when training"`
	OutputMeanVar  bool    `attr:"output_mean_var" default:"False" doc:"also output the mean and the variance used"`
	NDev           int     `attr:"ndev" default:"1" doc:"the number of devices whose batches share the statistics; one process computes on one device, so the statistics are this batch's"`
	Key            string  `attr:"key" doc:"the name that ties the layer's copies on the devices together; accepted and unused"`
}

// ConvolutionV1Attrs are the attributes of Convolution_v1.
type ConvolutionV1Attrs struct {
	Kernel    Tuple  `attr:"kernel" doc:"window size (h, w)"`
	Stride    Tuple  `attr:"stride" default:"()" doc:"step between windows; () means 1 in every dim"`
	Dilate    Tuple  `attr:"dilate" default:"()" doc:"spacing between kernel taps; () means 1 in every dim"`
	Pad       Tuple  `attr:"pad" default:"()" doc:"zeros added on both sides of each spatial dim; () means 0"`
	NumFilter int    `attr:"num_filter" doc:"number of output channels"`
	NumGroup  int    `attr:"num_group" default:"1" doc:"split the channels into this many groups, convolved separately"`
	Workspace int    `attr:"workspace" default:"1024" doc:"scratch space for cuDNN in MB; ignored"`
	NoBias    bool   `attr:"no_bias" default:"False" doc:"leave out the bias input"`
	CudnnTune string `attr:"cudnn_tune" default:"None" enum:"None,off,limited_workspace,fastest" doc:"cuDNN algorithm choice; ignored"`
	CudnnOff  bool   `attr:"cudnn_off" default:"False" doc:"turn cuDNN off; ignored"`
	Layout    string `attr:"layout" default:"None" enum:"None,NCHW,NHWC,NCDHW,NDHWC" doc:"data layout; only NCHW is supported"`
}

// PoolingV1Attrs are the attributes of Pooling_v1.
type PoolingV1Attrs struct {
	Kernel            Tuple  `attr:"kernel" default:"()" doc:"window size (h, w); ignored with global_pool"`
	PoolType          string `attr:"pool_type" default:"max" enum:"max,avg,sum" doc:"max, avg or sum"`
	GlobalPool        bool   `attr:"global_pool" default:"False" doc:"pool over the whole of each plane, ignoring kernel, stride and pad"`
	PoolingConvention string `attr:"pooling_convention" default:"valid" enum:"full,valid" doc:"valid rounds the output size down, full rounds it up"`
	Stride            Tuple  `attr:"stride" default:"()" doc:"step between windows; () means 1 in every dim"`
	Pad               Tuple  `attr:"pad" default:"()" doc:"zeros added on both sides of each spatial dim; () means 0"`
}

// bn maps BatchNorm_v1's attributes onto BatchNorm's (channel axis 1).
func (a *BatchNormV1Attrs) bn() *BatchNormAttrs {
	return &BatchNormAttrs{Eps: a.Eps, Momentum: a.Momentum, FixGamma: a.FixGamma, UseGlobalStats: a.UseGlobalStats,
		OutputMeanVar: a.OutputMeanVar, Axis: 1}
}

// bn maps _contrib_SyncBatchNorm's attributes onto BatchNorm's.
func (a *SyncBatchNormAttrs) bn() *BatchNormAttrs {
	return &BatchNormAttrs{Eps: a.Eps, Momentum: a.Momentum, FixGamma: a.FixGamma, UseGlobalStats: a.UseGlobalStats,
		OutputMeanVar: a.OutputMeanVar, Axis: 1}
}

// conv maps Convolution_v1's attributes onto Convolution's.
func (a *ConvolutionV1Attrs) conv() *ConvolutionAttrs {
	return &ConvolutionAttrs{Kernel: a.Kernel, Stride: a.Stride, Dilate: a.Dilate, Pad: a.Pad, NumFilter: a.NumFilter,
		NumGroup: a.NumGroup, Workspace: a.Workspace, NoBias: a.NoBias, CudnnTune: a.CudnnTune, CudnnOff: a.CudnnOff, Layout: "None"}
}

// pool maps Pooling_v1's attributes onto Pooling's: avg pooling is sum
// pooling scaled by 1/area afterwards, since Pooling_v1 divides every
// window, clipped at the border or not, by the kernel's area.
func (a *PoolingV1Attrs) pool() *PoolingAttrs {
	p := &PoolingAttrs{Kernel: a.Kernel, PoolType: a.PoolType, GlobalPool: a.GlobalPool, PoolingConvention: a.PoolingConvention,
		Stride: a.Stride, Pad: a.Pad, CountIncludePad: true, Layout: "None"}
	if p.PoolType == "avg" {
		p.PoolType = "sum"
	}
	if a.GlobalPool {
		p.Pad = nil
	}
	return p
}

// scale is the factor Pooling_v1 multiplies the pooled sums of data by:
// 1/area for avg pooling, 1 otherwise.
func (a *PoolingV1Attrs) scale(data Shape) float64 {
	switch {
	case a.PoolType != "avg":
		return 1
	case a.GlobalPool:
		return 1 / float64(data[2]*data[3])
	}
	return 1 / float64(a.Kernel[0]*a.Kernel[1])
}

func init() {
	bnInputs := []string{"data", "gamma", "beta", "moving_mean", "moving_var"}
	bnSamples := []Sample{
		{Inputs: []Shape{{2, 3, 2, 2}, {3}, {3}, {3}, {3}}, Low: 0.2, High: 1.5},
		{Attrs: map[string]string{"fix_gamma": "False", "output_mean_var": "True"}, Inputs: []Shape{{4, 3}, {3}, {3}, {3}, {3}}, Low: 0.2, High: 1.5},
		{Attrs: map[string]string{"fix_gamma": "False", "use_global_stats": "True", "eps": "0.01"}, Inputs: []Shape{{2, 2, 3}, {2}, {2}, {2}, {2}}, Low: 0.2, High: 1.5},
	}
	Register(Def[BatchNormV1Attrs]{
		Name: "BatchNorm_v1", Kind: "norm",
		Doc: "MXNet's first BatchNorm, kept for model files that name it: BatchNorm over axis 1, the same arithmetic, " +
			"moving statistics updated in place when training.",
		Inputs: bnInputs, Aux: []int{3, 4}, Outputs: 3,
		VisibleOutputs: func(a *BatchNormV1Attrs) int { return visibleMeanVar(a.OutputMeanVar) },
		Shape:          func(a *BatchNormV1Attrs, in []Shape) ([]Shape, error) { return opBatchNorm.shape(a.bn(), in) },
		Kernel: func(env *Env, a *BatchNormV1Attrs, in, out []Value) error {
			return opBatchNorm.kernel(env, a.bn(), in, out)
		},
		Grad: func(f F, a *BatchNormV1Attrs, in, out, g []Tensor) []Tensor {
			return batchNormGrad(f, a.bn(), in, out, g)
		},
		Samples: bnSamples,
	})

	syncSamples := make([]Sample, len(bnSamples))
	for i, s := range bnSamples {
		s.Attrs = map[string]string{"key": "bn0", "ndev": "2"}
		for k, v := range bnSamples[i].Attrs {
			s.Attrs[k] = v
		}
		syncSamples[i] = s
	}
	Register(Def[SyncBatchNormAttrs]{
		Name: "_contrib_SyncBatchNorm", Kind: "norm",
		Doc: "Batch normalisation whose statistics span the batches of every device of a data-parallel step (Gluon's " +
			"contrib SyncBatchNorm). One process computes on one device, so this is BatchNorm over axis 1 with the " +
			"batch's statistics; ndev and key are accepted for model files.",
		Inputs: bnInputs, Aux: []int{3, 4}, Outputs: 3,
		VisibleOutputs: func(a *SyncBatchNormAttrs) int { return visibleMeanVar(a.OutputMeanVar) },
		Check: func(a *SyncBatchNormAttrs) error {
			if a.NDev < 1 {
				return Errorf("ndev=%d must be at least 1", a.NDev)
			}
			return nil
		},
		Shape: func(a *SyncBatchNormAttrs, in []Shape) ([]Shape, error) { return opBatchNorm.shape(a.bn(), in) },
		Kernel: func(env *Env, a *SyncBatchNormAttrs, in, out []Value) error {
			return opBatchNorm.kernel(env, a.bn(), in, out)
		},
		Grad: func(f F, a *SyncBatchNormAttrs, in, out, g []Tensor) []Tensor {
			return batchNormGrad(f, a.bn(), in, out, g)
		},
		Samples: syncSamples,
	})

	Register(Def[BatchNormAttrs]{
		Name: "_contrib_BatchNormWithReLU", Kind: "norm",
		Doc: "BatchNorm followed by relu, in one op: relu(BatchNorm(data, ...)) with BatchNorm's attributes; the hidden " +
			"mean and variance outputs are BatchNorm's. The gradient passes where the output is positive.",
		Inputs: bnInputs, Aux: []int{3, 4}, Outputs: 3,
		VisibleOutputs: func(a *BatchNormAttrs) int { return visibleMeanVar(a.OutputMeanVar) },
		Shape:          func(a *BatchNormAttrs, in []Shape) ([]Shape, error) { return opBatchNorm.shape(a, in) },
		Kernel: func(env *Env, a *BatchNormAttrs, in, out []Value) error {
			if err := opBatchNorm.kernel(env, a, in, out); err != nil {
				return err
			}
			return mapUnary(out[0], out[0], func(x float64) float64 { return max(x, 0) })
		},
		Grad: func(f F, a *BatchNormAttrs, in, out, g []Tensor) []Tensor {
			g2 := append([]Tensor{f.Mul(g[0], f.GreaterScalar(out[0], 0))}, g[1:]...)
			return batchNormGrad(f, a, in, out, g2)
		},
		Samples: []Sample{
			{Inputs: []Shape{{2, 3, 2, 2}, {3}, {3}, {3}, {3}}, Low: 0.2, High: 1.5},
			{Attrs: map[string]string{"fix_gamma": "False", "axis": "-1"}, Inputs: []Shape{{3, 2, 2}, {2}, {2}, {2}, {2}}, Low: 0.2, High: 1.5},
			{Attrs: map[string]string{"fix_gamma": "False", "use_global_stats": "True", "eps": "0.01"}, Inputs: []Shape{{2, 2, 3}, {2}, {2}, {2}, {2}}, Low: 0.2, High: 1.5},
		},
	})

	Register(Def[ConvolutionV1Attrs]{
		Name: "Convolution_v1", Kind: "conv",
		Doc: "MXNet's first Convolution, kept for model files that name it: 2-D (NCHW) convolution with Convolution's " +
			"arithmetic and attributes; weight is (num_filter, channels/num_group, kh, kw), bias (num_filter).",
		InputNames: func(a *ConvolutionV1Attrs) []string { return opConvolution.InputNames(a.conv()) },
		Check: func(a *ConvolutionV1Attrs) error {
			if len(a.Kernel) != 2 {
				return Errorf("kernel %v: only 2-D kernels (h, w) are supported", a.Kernel)
			}
			if a.Layout != "None" && a.Layout != "NCHW" {
				return Errorf("layout %s is not supported (NCHW is)", a.Layout)
			}
			return opConvolution.check(a.conv())
		},
		Shape: func(a *ConvolutionV1Attrs, in []Shape) ([]Shape, error) {
			if len(in[0]) != 0 && len(in[0]) != 4 {
				return nil, Errorf("data %v must be NCHW", in[0])
			}
			return opConvolution.shape(a.conv(), in)
		},
		Kernel: func(env *Env, a *ConvolutionV1Attrs, in, out []Value) error {
			return opConvolution.kernel(env, a.conv(), in, out)
		},
		Grad: func(f F, a *ConvolutionV1Attrs, in, out, g []Tensor) []Tensor {
			return opConvolution.grad(f, a.conv(), in, out, g)
		},
		Samples: []Sample{
			{Attrs: map[string]string{"kernel": "(3, 3)", "num_filter": "4"}, Inputs: []Shape{{2, 3, 5, 5}, {4, 3, 3, 3}, {4}}},
			{Attrs: map[string]string{"kernel": "(3, 3)", "num_filter": "6", "num_group": "2", "stride": "(2, 2)", "pad": "(1, 1)", "no_bias": "True"},
				Inputs: []Shape{{1, 4, 5, 6}, {6, 2, 3, 3}}},
		},
	})

	Register(Def[PoolingV1Attrs]{
		Name: "Pooling_v1", Kind: "pool",
		Doc: "MXNet's first Pooling, kept for model files that name it: max, avg or sum pooling of NCHW data. avg " +
			"divides each window's sum by the kernel's area, however much of the window lies in the data; max pooling " +
			"with padding (zeros, in Pooling_v1) is refused.",
		Inputs: []string{"data"},
		Check: func(a *PoolingV1Attrs) error {
			if !a.GlobalPool && len(a.Kernel) != 2 {
				return Errorf("kernel %v: only 2-D kernels (h, w) are supported", a.Kernel)
			}
			if !a.GlobalPool && a.PoolType == "max" && hasNonzero(a.Pad) {
				return Errorf("pad %v: Pooling_v1's max pooling takes the padding's zeros into each maximum, which is not supported; use Pooling", a.Pad)
			}
			return opPooling.check(a.pool())
		},
		Shape: func(a *PoolingV1Attrs, in []Shape) ([]Shape, error) {
			if len(in[0]) != 4 {
				return nil, Errorf("data %v must be NCHW", in[0])
			}
			return opPooling.shape(a.pool(), in)
		},
		Kernel: func(env *Env, a *PoolingV1Attrs, in, out []Value) error {
			if err := opPooling.kernel(env, a.pool(), in, out); err != nil {
				return err
			}
			if s := a.scale(in[0].Shape); s != 1 {
				return mapUnary(out[0], out[0], func(x float64) float64 { return x * s })
			}
			return nil
		},
		Grad: func(f F, a *PoolingV1Attrs, in, _, g []Tensor) []Tensor {
			dx := f.poolingGrad(a.pool(), g[0], in[0])
			if s := a.scale(in[0].Shape()); s != 1 {
				dx = f.MulScalar(dx, s)
			}
			return []Tensor{dx}
		},
		Samples: []Sample{
			{Attrs: map[string]string{"kernel": "(2, 2)", "stride": "(2, 2)"}, Inputs: []Shape{{2, 3, 4, 4}}},
			{Attrs: map[string]string{"kernel": "(3, 3)", "stride": "(2, 2)", "pad": "(1, 1)", "pool_type": "avg"}, Inputs: []Shape{{1, 2, 5, 5}}},
			{Attrs: map[string]string{"kernel": "(3, 3)", "stride": "(2, 2)", "pool_type": "avg", "pooling_convention": "full"}, Inputs: []Shape{{1, 2, 6, 6}}},
			{Attrs: map[string]string{"kernel": "(2, 2)", "stride": "(2, 2)", "pool_type": "sum", "pooling_convention": "full"}, Inputs: []Shape{{1, 2, 5, 5}}},
			{Attrs: map[string]string{"pool_type": "avg", "global_pool": "True"}, Inputs: []Shape{{2, 3, 4, 5}}},
		},
	})
}

// hasNonzero reports whether t holds a value other than 0.
func hasNonzero(t Tuple) bool {
	for _, v := range t {
		if v != 0 {
			return true
		}
	}
	return false
}
