package ops

import "fmt"

// Convolution and Deconvolution over 1-D (NCW) and 2-D (NCHW) data, with
// strides, padding, dilation and groups. Both are lowered to accel.Im2col or
// accel.Col2im and a matrix product per image and group; the two are
// adjoint, so each is the other's data gradient. The Convolution forward
// also has kernels without a column matrix (1x1 and depthwise 3x3 ones
// among them): convAlgoFor (conv_loops.go) chooses among them per shape. The weight gradient of
// both is _backward_Convolution_weight.

// ConvolutionAttrs are the attributes of Convolution (MXNet's ConvolutionParam).
type ConvolutionAttrs struct {
	Kernel    Tuple  `attr:"kernel" doc:"window size: (w,) for 1-D, (h, w) for 2-D"`
	Stride    Tuple  `attr:"stride" default:"()" doc:"step between windows; () means 1 in every dim"`
	Dilate    Tuple  `attr:"dilate" default:"()" doc:"spacing between kernel taps; () means 1 in every dim"`
	Pad       Tuple  `attr:"pad" default:"()" doc:"zeros added on both sides of each spatial dim; () means 0"`
	NumFilter int    `attr:"num_filter" doc:"number of output channels"`
	NumGroup  int    `attr:"num_group" default:"1" doc:"split the channels into this many groups, convolved separately"`
	Workspace int    `attr:"workspace" default:"1024" doc:"scratch space for cuDNN in MB; ignored"`
	NoBias    bool   `attr:"no_bias" default:"False" doc:"leave out the bias input"`
	CudnnTune string `attr:"cudnn_tune" default:"None" enum:"None,off,limited_workspace,fastest" doc:"cuDNN algorithm choice; ignored"`
	CudnnOff  bool   `attr:"cudnn_off" default:"False" doc:"turn cuDNN off; ignored"`
	Layout    string `attr:"layout" default:"None" enum:"None,NCW,NCHW,NCDHW,NWC,NHWC,NDHWC" doc:"data layout; only channels-first NCW and NCHW are supported"`
}

// DeconvolutionAttrs are the attributes of Deconvolution (MXNet's DeconvolutionParam).
type DeconvolutionAttrs struct {
	Kernel      Tuple  `attr:"kernel" doc:"window size: (w,) for 1-D, (h, w) for 2-D"`
	Stride      Tuple  `attr:"stride" default:"()" doc:"step between windows; () means 1 in every dim"`
	Dilate      Tuple  `attr:"dilate" default:"()" doc:"spacing between kernel taps; () means 1 in every dim"`
	Pad         Tuple  `attr:"pad" default:"()" doc:"padding removed from both sides of each output dim; () means 0"`
	Adj         Tuple  `attr:"adj" default:"()" doc:"extra rows/columns added at the end of each output dim (each below the stride)"`
	TargetShape Tuple  `attr:"target_shape" default:"()" doc:"the output's spatial size; when given, pad and adj are computed from it"`
	NumFilter   int    `attr:"num_filter" doc:"number of output channels"`
	NumGroup    int    `attr:"num_group" default:"1" doc:"split the channels into this many groups, deconvolved separately"`
	Workspace   int    `attr:"workspace" default:"512" doc:"scratch space for cuDNN in MB; ignored"`
	NoBias      bool   `attr:"no_bias" default:"True" doc:"leave out the bias input"`
	CudnnTune   string `attr:"cudnn_tune" default:"None" enum:"None,off,limited_workspace,fastest" doc:"cuDNN algorithm choice; ignored"`
	CudnnOff    bool   `attr:"cudnn_off" default:"False" doc:"turn cuDNN off; ignored"`
	Layout      string `attr:"layout" default:"None" enum:"None,NCW,NCHW,NCDHW,NWC,NHWC,NDHWC" doc:"data layout; only channels-first NCW and NCHW are supported"`
}

func (a *ConvolutionAttrs) win() convWindow   { return newWindow(a.Kernel, a.Stride, a.Dilate, a.Pad) }
func (a *DeconvolutionAttrs) win() convWindow { return newWindow(a.Kernel, a.Stride, a.Dilate, a.Pad) }

var opConvolution, opDeconvolution, opConvWeightGrad *Op

func init() {
	opConvolution = Register(Def[ConvolutionAttrs]{
		Name: "Convolution",
		Kind: "conv",
		Doc: "Convolves 1-D (NCW) or 2-D (NCHW) data with num_filter filters of size kernel, with stride, pad, dilate and num_group; " +
			"weight is (num_filter, channels/num_group, kernel...), bias (num_filter). Unknown weight and bias dims are inferred from the data.",
		InputNames: func(a *ConvolutionAttrs) []string {
			if a.NoBias {
				return []string{"data", "weight"}
			}
			return []string{"data", "weight", "bias"}
		},
		Check: func(a *ConvolutionAttrs) error { return a.win().check(a.NumFilter, a.NumGroup, a.Layout) },
		Shape: func(a *ConvolutionAttrs, in []Shape) ([]Shape, error) {
			out, err := convShape(a, in)
			return []Shape{out}, err
		},
		Kernel: func(env *Env, a *ConvolutionAttrs, in, out []Value) error {
			return convolutionKernel(a, in, out[0], false, outsideTraining(env))
		},
		Grad: func(f F, a *ConvolutionAttrs, in, _, g []Tensor) []Tensor {
			x, w, gy := in[0], in[1], g[0]
			grads := []Tensor{
				f.deconvolutionA(a.dataGradAttrs(x.Shape()), gy, w),
				f.convWeightGrad(a, gy, x),
			}
			if !a.NoBias {
				grads = append(grads, f.Sum(gy, biasAxes(len(a.Kernel))))
			}
			return grads
		},
		Samples: []Sample{
			{Attrs: map[string]string{"kernel": "(3, 3)", "num_filter": "4"},
				Inputs: []Shape{{2, 3, 5, 5}, {4, 3, 3, 3}, {4}}},
			{Attrs: map[string]string{"kernel": "(3, 3)", "num_filter": "3", "stride": "(2, 2)", "pad": "(1, 1)", "no_bias": "True"},
				Inputs: []Shape{{1, 2, 5, 6}, {3, 2, 3, 3}}},
			{Attrs: map[string]string{"kernel": "(2, 2)", "num_filter": "2", "dilate": "(2, 2)"},
				Inputs: []Shape{{1, 2, 6, 6}, {2, 2, 2, 2}, {2}}},
			{Attrs: map[string]string{"kernel": "(3, 3)", "num_filter": "6", "num_group": "2", "pad": "(1, 1)"},
				Inputs: []Shape{{2, 4, 4, 4}, {6, 2, 3, 3}, {6}}},
			{Attrs: map[string]string{"kernel": "(2, 3)", "num_filter": "2", "stride": "(1, 2)", "dilate": "(2, 1)", "pad": "(0, 1)", "layout": "NCHW"},
				Inputs: []Shape{{1, 2, 5, 6}, {2, 2, 2, 3}, {2}}},
			{Attrs: map[string]string{"kernel": "(1, 1)", "num_filter": "3"},
				Inputs: []Shape{{2, 2, 3, 3}, {3, 2, 1, 1}, {3}}},
			{Attrs: map[string]string{"kernel": "(3,)", "num_filter": "4", "stride": "(2,)", "pad": "(1,)"},
				Inputs: []Shape{{2, 3, 7}, {4, 3, 3}, {4}}},
			{Attrs: map[string]string{"kernel": "(2,)", "num_filter": "4", "num_group": "2", "dilate": "(2,)", "no_bias": "True", "layout": "NCW"},
				Inputs: []Shape{{2, 2, 6}, {4, 1, 2}}},
		},
	})

	opDeconvolution = Register(Def[DeconvolutionAttrs]{
		Name: "Deconvolution",
		Kind: "conv",
		Doc: "Transposed convolution of 1-D (NCW) or 2-D (NCHW) data: the data gradient of Convolution with the same geometry. " +
			"weight is (channels, num_filter/num_group, kernel...); each output dim is (in-1)*stride - 2*pad + dilate*(kernel-1) + 1 + adj, or target_shape.",
		InputNames: func(a *DeconvolutionAttrs) []string {
			if a.NoBias {
				return []string{"data", "weight"}
			}
			return []string{"data", "weight", "bias"}
		},
		Check: func(a *DeconvolutionAttrs) error {
			w := a.win()
			if err := w.check(a.NumFilter, a.NumGroup, a.Layout); err != nil {
				return err
			}
			if len(a.Adj) != 0 && len(a.Adj) != len(a.Kernel) {
				return Errorf("adj %v must have %d values like kernel %v, or be ()", a.Adj, len(a.Kernel), a.Kernel)
			}
			for i, v := range a.Adj {
				if v < 0 || v >= w.stride[i] {
					return Errorf("adj %v must be at least 0 and below stride %v in every dim", a.Adj, Tuple(w.stride))
				}
			}
			if len(a.TargetShape) != 0 && len(a.TargetShape) != len(a.Kernel) {
				return Errorf("target_shape %v must have %d values like kernel %v, or be ()", a.TargetShape, len(a.Kernel), a.Kernel)
			}
			return nil
		},
		Shape: func(a *DeconvolutionAttrs, in []Shape) ([]Shape, error) {
			out, err := deconvShape(a, in)
			return []Shape{out}, err
		},
		Kernel: func(_ *Env, a *DeconvolutionAttrs, in, out []Value) error {
			if err := requireFloat(in...); err != nil {
				return err
			}
			p, err := a.plan(in[0].Shape)
			if err != nil {
				return err
			}
			var bias Value
			if !a.NoBias {
				bias = in[2]
			}
			switch x := in[0].Data.(type) {
			case []float32:
				deconvForward(p, x, in[1].Data.([]float32), optionalFloats[float32](bias), out[0].Data.([]float32))
			case []float64:
				deconvForward(p, x, in[1].Data.([]float64), optionalFloats[float64](bias), out[0].Data.([]float64))
			}
			return nil
		},
		Grad: func(f F, a *DeconvolutionAttrs, in, _, g []Tensor) []Tensor {
			x, w, gy := in[0], in[1], g[0]
			ca := a.adjointAttrs(x.Shape())
			grads := []Tensor{
				f.convolutionA(ca, gy, w),
				f.convWeightGrad(ca, x, gy),
			}
			if !a.NoBias {
				grads = append(grads, f.Sum(gy, biasAxes(len(a.Kernel))))
			}
			return grads
		},
		Samples: []Sample{
			{Attrs: map[string]string{"kernel": "(3, 3)", "num_filter": "2"},
				Inputs: []Shape{{2, 3, 3, 3}, {3, 2, 3, 3}}},
			{Attrs: map[string]string{"kernel": "(3, 3)", "num_filter": "4", "stride": "(2, 2)", "pad": "(1, 1)", "adj": "(1, 0)", "no_bias": "False"},
				Inputs: []Shape{{1, 2, 3, 3}, {2, 4, 3, 3}, {4}}},
			{Attrs: map[string]string{"kernel": "(2, 2)", "num_filter": "6", "num_group": "2", "stride": "(2, 2)"},
				Inputs: []Shape{{1, 4, 3, 3}, {4, 3, 2, 2}}},
			{Attrs: map[string]string{"kernel": "(2, 3)", "num_filter": "2", "dilate": "(2, 2)", "pad": "(1, 2)", "no_bias": "False"},
				Inputs: []Shape{{1, 2, 3, 4}, {2, 2, 2, 3}, {2}}},
			{Attrs: map[string]string{"kernel": "(3, 3)", "num_filter": "2", "stride": "(2, 2)", "target_shape": "(6, 7)"},
				Inputs: []Shape{{1, 2, 3, 3}, {2, 2, 3, 3}}},
			{Attrs: map[string]string{"kernel": "(3,)", "num_filter": "2", "stride": "(2,)", "no_bias": "False"},
				Inputs: []Shape{{2, 3, 4}, {3, 2, 3}, {2}}},
		},
	})

	opConvWeightGrad = Register(Def[ConvolutionAttrs]{
		Name: "_backward_Convolution_weight",
		Kind: "conv",
		Doc: "The weight gradient of Convolution: for each group, the sum over the batch of ograd times the im2col of data, transposed. " +
			"Its output has the weight's shape, (num_filter, channels/num_group, kernel...).",
		Inputs: []string{"ograd", "data"},
		Check:  func(a *ConvolutionAttrs) error { return a.win().check(a.NumFilter, a.NumGroup, a.Layout) },
		Shape: func(a *ConvolutionAttrs, in []Shape) ([]Shape, error) {
			nb := *a
			nb.NoBias = true
			x := in[1]
			shapes := []Shape{x, {}}
			y, err := convShape(&nb, shapes)
			if err != nil {
				return nil, err
			}
			if _, err := sameShape(in[0], y); err != nil {
				return nil, Errorf("ograd %v does not match the convolution's output %v for data %v", in[0], y, x)
			}
			return []Shape{shapes[1]}, nil
		},
		Kernel: func(_ *Env, a *ConvolutionAttrs, in, out []Value) error {
			if err := requireFloat(in...); err != nil {
				return err
			}
			p := a.plan(in[1].Shape)
			switch gy := in[0].Data.(type) {
			case []float32:
				convWeightGrad(p, gy, in[1].Data.([]float32), out[0].Data.([]float32))
			case []float64:
				convWeightGrad(p, gy, in[1].Data.([]float64), out[0].Data.([]float64))
			}
			return nil
		},
		// The output is bilinear in ograd and data: <gw, dW(gy, x)> equals
		// <gy, Convolution(x, gw)>, which gives both gradients.
		Grad: func(f F, a *ConvolutionAttrs, in, _, g []Tensor) []Tensor {
			gy, x, gw := in[0], in[1], g[0]
			nb := *a
			nb.NoBias = true
			return []Tensor{
				f.convolutionA(&nb, x, gw),
				f.deconvolutionA(a.dataGradAttrs(x.Shape()), gy, gw),
			}
		},
		Samples: []Sample{
			{Attrs: map[string]string{"kernel": "(3, 3)", "num_filter": "4"},
				Inputs: []Shape{{2, 4, 3, 3}, {2, 3, 5, 5}}},
			{Attrs: map[string]string{"kernel": "(3, 3)", "num_filter": "4", "num_group": "2", "stride": "(2, 2)", "pad": "(1, 1)", "dilate": "(1, 2)"},
				Inputs: []Shape{{1, 4, 3, 2}, {1, 2, 5, 5}}},
			{Attrs: map[string]string{"kernel": "(3,)", "num_filter": "2", "stride": "(2,)"},
				Inputs: []Shape{{2, 2, 3}, {2, 3, 7}}},
		},
	})
}

// fillParam merges a parameter's shape with the one expected: unknown (0)
// dims, or a shape of no dims, take the expected value (where known).
// mismatch reports the first dim that differs from a known expected one.
func fillParam(s *Shape, want Shape) (mismatch int) {
	if len(*s) == 0 {
		*s = want.Clone()
		return -1
	}
	if len(*s) != len(want) {
		return 0
	}
	for i := range want {
		switch {
		case (*s)[i] == 0:
			(*s)[i] = want[i]
		case want[i] != 0 && (*s)[i] != want[i]:
			return i
		}
	}
	return -1
}

// convShape is Convolution's shape rule; it fills unknown dims of weight
// and bias (and the data's channels from the weight).
func convShape(a *ConvolutionAttrs, in []Shape) (Shape, error) {
	w, data := a.win(), in[0]
	if err := checkData("data", data, a.Kernel); err != nil {
		return nil, err
	}
	g := a.NumGroup
	c := data[1]
	if c > 0 && c%g != 0 {
		return nil, Errorf("data %v has %d channels, which num_group=%d does not divide", data, c, g)
	}
	weight := in[1]
	if len(weight) != 0 && len(weight) != len(data) {
		return nil, Errorf("weight %v must have %d dims: (num_filter, channels/num_group, %s)", weight, len(data), dims(w.kernel))
	}
	if c == 0 && len(weight) > 1 && weight[1] > 0 {
		c = weight[1] * g
		data[1] = c
	}
	want := append(Shape{a.NumFilter, c / g}, w.kernel...)
	given := weight.Clone()
	switch bad := fillParam(&in[1], want); {
	case bad == 0:
		return nil, Errorf("weight %v has %d filters, num_filter=%d", given, given[0], a.NumFilter)
	case bad == 1:
		return nil, Errorf("data %v has %d channels, weight %v expects %d (num_group=%d)", data, c, given, given[1]*g, g)
	case bad > 1:
		return nil, Errorf("weight %v has a %s kernel, kernel=%v", given, dims(given[2:]), a.Kernel)
	}
	if !a.NoBias {
		if err := fillBias(in, a.NumFilter); err != nil {
			return nil, err
		}
	}
	sp, err := w.convOutput(data)
	if err != nil {
		return nil, err
	}
	return append(Shape{data[0], a.NumFilter}, sp...), nil
}

// fillBias fills or checks in[2], the bias of numFilter outputs.
func fillBias(in []Shape, numFilter int) error {
	given := in[2].Clone()
	if fillParam(&in[2], Shape{numFilter}) >= 0 {
		return Errorf("bias %v does not match num_filter=%d", given, numFilter)
	}
	return nil
}

// deconvPadAdj returns the padding and output adjustment of each spatial
// dim: pad and adj as given, or, with target_shape, computed from it as
// MXNet does (total = stride*(in-1) + span - target; pad = ceil(total/2),
// adj = total mod 2). Dims of unknown size get zeros. The slices may be
// shared with the attributes: callers must not write to them.
func (a *DeconvolutionAttrs) deconvPadAdj(data Shape) (pad, adj []int, err error) {
	w := a.win()
	nd := len(w.kernel)
	pad, adj = w.pad, orFill(a.Adj, nd, 0)
	if !a.hasTarget() {
		return pad, adj, nil // shared with the attributes: read only
	}
	pad, adj = append([]int(nil), pad...), append([]int(nil), adj...) // written below
	for i := range nd {
		in := data[2+i]
		if in == 0 {
			pad[i], adj[i] = 0, 0
			continue
		}
		total := w.stride[i]*(in-1) + w.span(i) - a.TargetShape[i]
		if total < 0 {
			return nil, nil, Errorf("target_shape %v is larger than data %v can give with kernel %v and stride %v (at most %d in dim %d)",
				a.TargetShape, data, a.Kernel, Tuple(w.stride), w.stride[i]*(in-1)+w.span(i), i)
		}
		pad[i], adj[i] = (total+1)/2, total%2
		if adj[i] >= w.stride[i] {
			return nil, nil, Errorf("target_shape %v needs an odd amount of padding in dim %d, which stride %v cannot take up; use pad and adj instead",
				a.TargetShape, i, Tuple(w.stride))
		}
	}
	return pad, adj, nil
}

func (a *DeconvolutionAttrs) hasTarget() bool {
	for _, t := range a.TargetShape {
		if t != 0 {
			return true
		}
	}
	return false
}

// deconvShape is Deconvolution's shape rule.
func deconvShape(a *DeconvolutionAttrs, in []Shape) (Shape, error) {
	w, data := a.win(), in[0]
	if err := checkData("data", data, a.Kernel); err != nil {
		return nil, err
	}
	g := a.NumGroup
	weight := in[1]
	if len(weight) != 0 && len(weight) != len(data) {
		return nil, Errorf("weight %v must have %d dims: (channels, num_filter/num_group, %s)", weight, len(data), dims(w.kernel))
	}
	c := data[1]
	if c == 0 && len(weight) > 0 && weight[0] > 0 {
		c = weight[0]
		data[1] = c
	}
	if c > 0 && c%g != 0 {
		return nil, Errorf("data %v has %d channels, which num_group=%d does not divide", data, c, g)
	}
	want := append(Shape{c, a.NumFilter / g}, w.kernel...)
	given := weight.Clone()
	switch bad := fillParam(&in[1], want); {
	case bad == 0:
		return nil, Errorf("data %v has %d channels, weight %v expects %d (num_group=%d)", data, c, given, given[0], g)
	case bad == 1:
		return nil, Errorf("weight %v gives %d filters per group, num_filter=%d with num_group=%d needs %d", given, given[1], a.NumFilter, g, a.NumFilter/g)
	case bad > 1:
		return nil, Errorf("weight %v has a %s kernel, kernel=%v", given, dims(given[2:]), a.Kernel)
	}
	if !a.NoBias {
		if err := fillBias(in, a.NumFilter); err != nil {
			return nil, err
		}
	}
	pad, adj, err := a.deconvPadAdj(data)
	if err != nil {
		return nil, err
	}
	out := Shape{data[0], a.NumFilter}
	for i := range w.kernel {
		in := data[2+i]
		if in == 0 {
			if a.hasTarget() {
				out = append(out, a.TargetShape[i])
			} else {
				out = append(out, 0)
			}
			continue
		}
		o := w.stride[i]*(in-1) + w.span(i) - 2*pad[i] + adj[i]
		if o <= 0 {
			return nil, Errorf("data %v with kernel %v, stride %v and pad %v gives no output (size %d in dim %d)",
				data, a.Kernel, Tuple(w.stride), Tuple(pad), o, i)
		}
		out = append(out, o)
	}
	return out, nil
}

// dataGradAttrs are the attributes of the Deconvolution that gives the
// data gradient of this Convolution for data of the given shape: the same
// window, with adj restoring the rows and columns the strides skipped.
func (a *ConvolutionAttrs) dataGradAttrs(data Shape) *DeconvolutionAttrs {
	mustKnowShape("Convolution", data)
	w := a.win()
	adj := make(Tuple, len(w.kernel))
	for i := range adj {
		adj[i] = (data[2+i] + 2*w.pad[i] - w.span(i)) % w.stride[i]
	}
	d := opDeconvolution.DefaultAttrs().(*DeconvolutionAttrs)
	d.Kernel, d.Stride, d.Dilate, d.Pad, d.Adj = a.Kernel, a.Stride, a.Dilate, a.Pad, adj
	d.NumFilter, d.NumGroup, d.NoBias, d.Layout = data[1], a.NumGroup, true, a.Layout
	return d
}

// adjointAttrs are the attributes of the Convolution whose data gradient
// this Deconvolution is, for data of the given shape: it maps the
// Deconvolution's output back to data's shape, and its weight gradient
// (with ograd and data swapped) is the Deconvolution's.
func (a *DeconvolutionAttrs) adjointAttrs(data Shape) *ConvolutionAttrs {
	mustKnowShape("Deconvolution", data)
	pad, _, _ := a.deconvPadAdj(data)
	c := opConvolution.DefaultAttrs().(*ConvolutionAttrs)
	c.Kernel, c.Stride, c.Dilate, c.Pad = a.Kernel, a.Stride, a.Dilate, Tuple(append([]int(nil), pad...))
	c.NumFilter, c.NumGroup, c.NoBias, c.Layout = data[1], a.NumGroup, true, a.Layout
	return c
}

// mustKnowShape panics (F's way to fail) when the channels or spatial dims
// of data, which a gradient rule needs to build its attributes, are unknown.
func mustKnowShape(op string, data Shape) {
	if len(data) < 3 || !data[1:].Known() {
		panic(&Error{Op: op, Msg: fmt.Sprintf("the gradient needs the data's channels and spatial size, but its shape is %v", data)})
	}
}

// biasAxes are the axes a bias gradient sums over: batch and spatial.
func biasAxes(nd int) Attr {
	if nd == 1 {
		return Axis(0, 2)
	}
	return Axis(0, 2, 3)
}

// convolutionKernel is Convolution's kernel, with relu applied to the
// output when relu is set (the fused op's); cache lets it keep the
// filters' transforms (outside training).
func convolutionKernel(a *ConvolutionAttrs, in []Value, out Value, relu, cache bool) error {
	if err := requireFloat(in...); err != nil {
		return err
	}
	var bias Value
	if !a.NoBias {
		bias = in[2]
	}
	convKernel(a.plan(in[0].Shape), in[0], in[1], bias, out, relu, cache)
	return nil
}

// outsideTraining reports whether a kernel runs outside training, where
// a convolution may keep its filters' transforms in the filter cache.
func outsideTraining(env *Env) bool { return env == nil || !env.Training }

// convolutionA runs Convolution with ready-made attributes.
func (f F) convolutionA(a *ConvolutionAttrs, in ...Tensor) Tensor {
	return f.callA(opConvolution, a, in...)
}

// deconvolutionA runs Deconvolution with ready-made attributes.
func (f F) deconvolutionA(a *DeconvolutionAttrs, in ...Tensor) Tensor {
	return f.callA(opDeconvolution, a, in...)
}

// convWeightGrad runs _backward_Convolution_weight.
func (f F) convWeightGrad(a *ConvolutionAttrs, ograd, data Tensor) Tensor {
	return f.callA(opConvWeightGrad, a, ograd, data)
}

// Convolution convolves x (NCW or NCHW) with weight, of shape (numFilter,
// channels/num_group, kernel...), and adds bias (numFilter); a nil bias
// means no_bias. Other attributes (stride, pad, dilate, num_group, …) go in
// attrs:
//
//	y := F.Convolution(x, w, b, []int{3, 3}, 16, ops.Attr{"pad", []int{1, 1}})
func (f F) Convolution(x, weight, bias Tensor, kernel []int, numFilter int, attrs ...Attr) Tensor {
	all := append([]Attr{{"kernel", Tuple(kernel)}, {"num_filter", numFilter}}, attrs...)
	if bias == nil {
		return f.call1(opConvolution, append(all, Attr{"no_bias", true}), x, weight)
	}
	return f.call1(opConvolution, append(all, Attr{"no_bias", false}), x, weight, bias)
}

// Deconvolution is the transposed convolution of x (NCW or NCHW) with
// weight, of shape (channels, numFilter/num_group, kernel...), plus bias
// (numFilter) unless bias is nil. Other attributes (stride, pad, adj,
// target_shape, dilate, num_group, …) go in attrs.
func (f F) Deconvolution(x, weight, bias Tensor, kernel []int, numFilter int, attrs ...Attr) Tensor {
	all := append([]Attr{{"kernel", Tuple(kernel)}, {"num_filter", numFilter}}, attrs...)
	if bias == nil {
		return f.call1(opDeconvolution, append(all, Attr{"no_bias", true}), x, weight)
	}
	return f.call1(opDeconvolution, append(all, Attr{"no_bias", false}), x, weight, bias)
}
