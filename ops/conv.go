package ops

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hybridgo/hybridgo/accel"
)

// Convolution and Deconvolution over 1-D (NCW) and 2-D (NCHW) data, with
// strides, padding, dilation and groups. Both are lowered to accel.Im2col or
// accel.Col2im and a matrix product per image and group; the two are
// adjoint, so each is the other's data gradient. The weight gradient of
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
		Kernel: func(_ *Env, a *ConvolutionAttrs, in, out []Value) error {
			return convolutionKernel(a, in, out[0], false)
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

// convWindow is the sizes of a 1-D or 2-D window op, one entry per spatial dim,
// with the defaults of empty tuples applied.
type convWindow struct {
	kernel, stride, dilate, pad []int
}

func newWindow(kernel, stride, dilate, pad Tuple) convWindow {
	n := len(kernel)
	return convWindow{kernel: []int(kernel), stride: orFill(stride, n, 1), dilate: orFill(dilate, n, 1), pad: orFill(pad, n, 0)}
}

// fillZeros and fillOnes are the common defaults of orFill, shared so that
// kernels working out their window on every call allocate nothing.
var (
	fillZeros = []int{0, 0, 0, 0}
	fillOnes  = []int{1, 1, 1, 1}
)

// orFill returns t, or n copies of v when t is empty. The result may be
// shared: callers must not write to it.
func orFill(t Tuple, n, v int) []int {
	if len(t) > 0 {
		return []int(t)
	}
	switch {
	case v == 0 && n <= len(fillZeros):
		return fillZeros[:n:n]
	case v == 1 && n <= len(fillOnes):
		return fillOnes[:n:n]
	}
	s := make([]int, n)
	for i := range s {
		s[i] = v
	}
	return s
}

func (a *ConvolutionAttrs) win() convWindow   { return newWindow(a.Kernel, a.Stride, a.Dilate, a.Pad) }
func (a *DeconvolutionAttrs) win() convWindow { return newWindow(a.Kernel, a.Stride, a.Dilate, a.Pad) }

// checkKernelDims rejects kernels that are not 1-D or 2-D.
func checkKernelDims(kernel Tuple) error {
	switch len(kernel) {
	case 1, 2:
		return nil
	case 0:
		return Errorf("kernel is required: (w,) for 1-D or (h, w) for 2-D")
	}
	return Errorf("kernel %v is %d-D; only 1-D (NCW) and 2-D (NCHW) windows are supported", kernel, len(kernel))
}

// check validates the window and the filter counts of a (de)convolution.
func (w convWindow) check(numFilter, numGroup int, layout string) error {
	k := Tuple(w.kernel)
	if err := checkKernelDims(k); err != nil {
		return err
	}
	for i, t := range [][]int{w.stride, w.dilate, w.pad} {
		if len(t) != len(k) {
			name := []string{"stride", "dilate", "pad"}[i]
			return Errorf("%s %v must have %d values like kernel %v, or be ()", name, Tuple(t), len(k), k)
		}
	}
	for i := range k {
		switch {
		case k[i] <= 0:
			return Errorf("kernel %v must be positive", k)
		case w.stride[i] <= 0:
			return Errorf("stride %v must be positive", Tuple(w.stride))
		case w.dilate[i] <= 0:
			return Errorf("dilate %v must be positive", Tuple(w.dilate))
		case w.pad[i] < 0:
			return Errorf("pad %v must not be negative", Tuple(w.pad))
		}
	}
	switch {
	case numFilter <= 0:
		return Errorf("num_filter=%d must be positive", numFilter)
	case numGroup <= 0:
		return Errorf("num_group=%d must be positive", numGroup)
	case numFilter%numGroup != 0:
		return Errorf("num_filter=%d is not divisible by num_group=%d", numFilter, numGroup)
	}
	return checkLayout(layout, len(k))
}

// checkLayout accepts "None" and the channels-first layout of nd spatial dims.
func checkLayout(layout string, nd int) error {
	want := channelsFirst(nd)
	switch {
	case layout == "None" || layout == "" || layout == want:
		return nil
	case strings.HasPrefix(layout, "NC"):
		return Errorf("layout %s does not match a %d-D window (want %s)", layout, nd, want)
	}
	return Errorf("layout %s is not supported: data must be channels-first (NCW or NCHW); transpose it first", layout)
}

// channelsFirst names the channels-first layout of nd spatial dims.
func channelsFirst(nd int) string {
	switch nd {
	case 1:
		return "NCW"
	case 2:
		return "NCHW"
	}
	return "NCDHW"
}

// span is the extent of dim i of the dilated kernel.
func (w convWindow) span(i int) int { return w.dilate[i]*(w.kernel[i]-1) + 1 }

// dims prints sizes as "5x5" (or "5" for one dim).
func dims(v []int) string {
	parts := make([]string, len(v))
	for i, d := range v {
		parts[i] = strconv.Itoa(d)
	}
	return strings.Join(parts, "x")
}

// convOutput gives the output spatial size of a convolution over spatial
// (0 = unknown, giving 0), or an error when the dilated kernel does not fit
// in the padded data.
func (w convWindow) convOutput(data Shape) ([]int, error) {
	nd := len(w.kernel)
	spatial := data[2:]
	out := make([]int, nd)
	spans, padded := make([]int, nd), make([]int, nd)
	fits := true
	for i, in := range spatial {
		spans[i], padded[i] = w.span(i), in+2*w.pad[i]
		if in > 0 && padded[i] < spans[i] {
			fits = false
		}
	}
	if !fits {
		return nil, Errorf("kernel %v with dilate %v spans %s, larger than data %v padded to %s (pad %v)",
			Tuple(w.kernel), Tuple(w.dilate), dims(spans), data, dims(padded), Tuple(w.pad))
	}
	for i, in := range spatial {
		if in > 0 {
			out[i] = (padded[i]-spans[i])/w.stride[i] + 1
		}
	}
	return out, nil
}

// checkData checks that data has the rank of the window.
func checkData(name string, data Shape, kernel Tuple) error {
	nd := len(kernel)
	if len(data) != nd+2 {
		return Errorf("%s %v must be %s (%d dims) for kernel %v", name, data, channelsFirst(nd), nd+2, kernel)
	}
	return nil
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

// convPlan is the per-image, per-group work of a (de)convolution. The image
// side (the data of a Convolution, the output of a Deconvolution) is what
// Im2col reads and Col2im writes; the maps side (the output of a
// Convolution, the data of a Deconvolution) holds maps feature maps per
// group of geom.OutH x geom.OutW. The weight is, per group, a maps x
// colRows matrix, the groups stacked: (groups*maps) x colRows.
type convPlan struct {
	batch, groups, maps int
	geom                accel.ConvGeom // Channels is per group
}

func (p convPlan) colRows() int   { return p.geom.Channels * p.geom.KernelH * p.geom.KernelW }
func (p convPlan) colCols() int   { return p.geom.OutH() * p.geom.OutW() }
func (p convPlan) imageSize() int { return p.geom.Channels * p.geom.InH * p.geom.InW } // per group
func (p convPlan) mapsSize() int  { return p.maps * p.colCols() }                      // per group

// direct reports whether the column matrix is the image itself (a 1x1
// kernel with unit stride and no padding), so Im2col can be skipped.
func (p convPlan) direct() bool {
	g := p.geom
	return g.KernelH == 1 && g.KernelW == 1 && g.StrideH == 1 && g.StrideW == 1 && g.PadH == 0 && g.PadW == 0
}

// newPlan builds the plan of a window over an image of channels x spatial
// (per image, all groups), 1-D windows becoming 2-D ones of height 1.
func newPlan(w convWindow, pad []int, batch, channels, groups, maps int, spatial []int) convPlan {
	g := accel.ConvGeom{Channels: channels / groups, InH: 1, KernelH: 1, StrideH: 1, DilateH: 1}
	last := len(w.kernel) - 1
	g.InW, g.KernelW, g.StrideW, g.PadW, g.DilateW = spatial[last], w.kernel[last], w.stride[last], pad[last], w.dilate[last]
	if last == 1 {
		g.InH, g.KernelH, g.StrideH, g.PadH, g.DilateH = spatial[0], w.kernel[0], w.stride[0], pad[0], w.dilate[0]
	}
	return convPlan{batch: batch, groups: groups, maps: maps / groups, geom: g}
}

// plan is the work of a Convolution of data (or its weight gradient).
func (a *ConvolutionAttrs) plan(data Shape) convPlan {
	w := a.win()
	return newPlan(w, w.pad, data[0], data[1], a.NumGroup, a.NumFilter, data[2:])
}

// plan is the work of a Deconvolution of data: the image is its output.
//
// It runs on every call, so it works out the output's spatial size (as
// deconvShape does) without allocating.
func (a *DeconvolutionAttrs) plan(data Shape) (convPlan, error) {
	if err := checkData("data", data, a.Kernel); err != nil {
		return convPlan{}, err
	}
	pad, adj, err := a.deconvPadAdj(data)
	if err != nil {
		return convPlan{}, err
	}
	w := a.win()
	var spatial [2]int
	for i := range w.kernel {
		o := w.stride[i]*(data[2+i]-1) + w.span(i) - 2*pad[i] + adj[i]
		if o <= 0 {
			return convPlan{}, Errorf("data %v with kernel %v, stride %v and pad %v gives no output (size %d in dim %d)",
				data, a.Kernel, Tuple(w.stride), Tuple(pad), o, i)
		}
		spatial[i] = o
	}
	out := spatial[:len(w.kernel)]
	p := newPlan(w, pad, data[0], a.NumFilter, a.NumGroup, data[1], out)
	if p.colCols() != data[2:].Size() {
		return convPlan{}, fmt.Errorf("internal: deconvolution of data %v to %s does not invert (%dx%d)", data, dims(out), p.geom.OutH(), p.geom.OutW())
	}
	return p, nil
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

// optionalFloats returns the elements of an optional float input (nil when absent).
func optionalFloats[T accel.Float](v Value) []T {
	if v.Data == nil {
		return nil
	}
	return v.Data.([]T)
}

// getScratch returns a buffer of n elements with unspecified contents from
// accel's size-classed pools (the column matrices of the (de)convolution
// kernels), so that steady-state calls do not allocate them; hand it back
// with putScratch.
func getScratch[T accel.Float](n int) *[]T { return accel.GetScratch[T](n) }

func putScratch[T accel.Float](bp *[]T) { accel.PutScratch(bp) }

// colScratch returns the column buffer of a plan, or nil when the plan
// needs none; release it with putCol.
func colScratch[T accel.Float](p convPlan) *[]T {
	if p.direct() {
		return nil
	}
	return getScratch[T](p.colRows() * p.colCols())
}

// colOf is the column buffer bp holds, or nil for none.
func colOf[T accel.Float](bp *[]T) []T {
	if bp == nil {
		return nil
	}
	return *bp
}

func putCol[T accel.Float](bp *[]T) {
	if bp != nil {
		putScratch(bp)
	}
}

// convolutionKernel is Convolution's kernel, with relu applied to the
// output when relu is set (the fused op's).
func convolutionKernel(a *ConvolutionAttrs, in []Value, out Value, relu bool) error {
	if err := requireFloat(in...); err != nil {
		return err
	}
	var bias Value
	if !a.NoBias {
		bias = in[2]
	}
	convKernel(a.plan(in[0].Shape), in[0], in[1], bias, out, relu)
	return nil
}

// convKernel runs a convolution forward on float values (checked by the
// caller), with relu applied to the output when relu is set.
func convKernel(p convPlan, x, w, bias, y Value, relu bool) {
	switch xd := x.Data.(type) {
	case []float32:
		convForward(p, xd, w.Data.([]float32), optionalFloats[float32](bias), y.Data.([]float32), relu)
	case []float64:
		convForward(p, xd, w.Data.([]float64), optionalFloats[float64](bias), y.Data.([]float64), relu)
	}
}

// packedConvMax is the largest column matrix, in elements, that a
// convolution writes straight into Gemm's packed layout (convPacked);
// larger ones keep the blocked im2col + Gemm path, whose packing works in
// cache-sized blocks. (A variable so that tests can compare the paths.)
var packedConvMax = 1 << 18

// convForward computes, per image and group, maps = W * im2col(image),
// then adds the bias (and applies relu when asked). Images are spread over
// the workers. Small column matrices take convPacked.
func convForward[T accel.Float](p convPlan, image, weight, bias, maps []T, relu bool) {
	k, cols := p.colRows(), p.colCols()
	if accel.PackedBLen[T](k, cols) <= packedConvMax {
		if accel.ConvDirectApplies[T](p.geom, p.maps) {
			accel.ParallelRange(p.batch, 1, convDirectLoop[T]{p, image, weight, bias, maps, relu})
			return
		}
		convPacked(p, image, weight, bias, maps, relu)
		return
	}
	convBlocked(p, image, weight, bias, maps, relu)
}

// convDirectLoop is convForward's loop over images with the direct kernel
// (accel.ConvForwardDirect), which needs no column matrix.
type convDirectLoop[T accel.Float] struct {
	p                         convPlan
	image, weight, bias, maps []T
	relu                      bool
}

func (l *convDirectLoop[T]) Range(lo, hi int) {
	p, k := l.p, l.p.colRows()
	for g := range p.groups {
		var bias []T
		if l.bias != nil {
			bias = l.bias[g*p.maps:][:p.maps]
		}
		accel.ConvForwardDirect(p.geom, p.maps, hi-lo, l.image[(lo*p.groups+g)*p.imageSize():], p.groups*p.imageSize(),
			l.weight[g*p.maps*k:][:p.maps*k], bias, l.relu, l.maps[(lo*p.groups+g)*p.mapsSize():], p.groups*p.mapsSize())
	}
}

// convBlocked is convForward through accel.Im2col and accel.Gemm, whose
// packing works in cache-sized blocks: the path of large images.
func convBlocked[T accel.Float](p convPlan, image, weight, bias, maps []T, relu bool) {
	accel.ParallelRange(p.batch, 1, convForwardLoop[T]{p, image, weight, bias, maps, relu})
}

// convForwardLoop is convBlocked's loop over images.
type convForwardLoop[T accel.Float] struct {
	p                         convPlan
	image, weight, bias, maps []T
	relu                      bool
}

func (l *convForwardLoop[T]) Range(lo, hi int) {
	p, image, weight, bias, maps, relu := l.p, l.image, l.weight, l.bias, l.maps, l.relu
	k, cols := p.colRows(), p.colCols()
	bp := colScratch[T](p)
	defer putCol(bp)
	col := colOf(bp)
	for n := lo; n < hi; n++ {
		for g := range p.groups {
			img := image[(n*p.groups+g)*p.imageSize():][:p.imageSize()]
			src := img
			if col != nil {
				accel.Im2col(p.geom, img, col)
				src = col
			}
			out := maps[(n*p.groups+g)*p.mapsSize():][:p.mapsSize()]
			accel.Gemm(false, false, p.maps, cols, k, 1, weight[g*p.maps*k:], k, src, cols, 0, out, cols)
		}
		out := maps[n*p.groups*p.mapsSize():][:p.groups*p.mapsSize()]
		if bias != nil {
			addBias(out, bias, cols)
		}
		if relu {
			reluInPlace(out)
		}
	}
}

// convPacked is convForward for small images: the column matrix is
// written directly in the packed panel layout of accel.GemmPackedB (one
// copy instead of im2col's plus Gemm's packing), and the bias and relu are
// applied to each output tile while it is in cache.
func convPacked[T accel.Float](p convPlan, image, weight, bias, maps []T, relu bool) {
	k, cols := p.colRows(), p.colCols()
	plen := accel.PackedBLen[T](k, cols)
	// The filters are packed once for all images.
	ap, alen := packFilters(p, weight, false)
	defer putScratch(ap)
	l := accel.GetRecycled[convPackedLoop[T]]()
	*l = convPackedLoop[T]{p: p, image: image, bias: bias, maps: maps, filters: *ap, alen: alen, plen: plen, relu: relu}
	accel.ParallelLoop(p.batch, 1, l)
	accel.Recycle(l)
}

// convPackedLoop is convPacked's loop over images.
type convPackedLoop[T accel.Float] struct {
	p                          convPlan
	image, bias, maps, filters []T // filters: packed, alen per group
	alen, plen                 int
	relu                       bool
}

func (l *convPackedLoop[T]) Range(lo, hi int) {
	p, image, bias, maps := l.p, l.image, l.bias, l.maps
	k, cols := p.colRows(), p.colCols()
	bp := getScratch[T](l.plen)
	defer putScratch(bp)
	ep := accel.GetRecycled[accel.Epilogue[T]]() // recycled: it escapes into the product
	*ep = accel.Epilogue[T]{Relu: l.relu}
	defer accel.Recycle(ep)
	for n := lo; n < hi; n++ {
		for g := range p.groups {
			img := image[(n*p.groups+g)*p.imageSize():][:p.imageSize()]
			accel.Im2colPacked(p.geom, img, *bp)
			out := maps[(n*p.groups+g)*p.mapsSize():][:p.mapsSize()]
			if bias != nil {
				ep.RowBias = bias[g*p.maps : (g+1)*p.maps]
			}
			accel.GemmPacked(p.maps, cols, k, l.filters[g*l.alen:], *bp, 0, out, cols, ep)
		}
	}
}

// reluInPlace sets the negative elements of x to 0 (NaN stays NaN).
func reluInPlace[T accel.Float](x []T) {
	for i, v := range x {
		if v < 0 {
			x[i] = 0
		}
	}
}

// packFilters packs each group's filters (maps x colRows, or its
// transpose) with accel.PackA into a scratch buffer, alen elements per
// group, for products with every image; hand it back with putScratch.
func packFilters[T accel.Float](p convPlan, weight []T, transposed bool) (ap *[]T, alen int) {
	k, m := p.colRows(), p.maps
	if transposed {
		k, m = m, k
	}
	alen = accel.PackedALen[T](m, k)
	ap = getScratch[T](p.groups * alen)
	for g := range p.groups {
		accel.PackA(transposed, m, k, weight[g*p.maps*p.colRows():], p.colRows(), (*ap)[g*alen:])
	}
	return ap, alen
}

// deconvForward computes, per image and group, image = col2im(W^T * maps),
// then adds the bias. The transposed filters are packed once for all
// images.
func deconvForward[T accel.Float](p convPlan, maps, weight, bias, image []T) {
	ap, alen := packFilters(p, weight, true)
	defer putScratch(ap)
	accel.ParallelRange(p.batch, 1, deconvForwardLoop[T]{p, maps, *ap, bias, image, alen})
}

// deconvForwardLoop is deconvForward's loop over images.
type deconvForwardLoop[T accel.Float] struct {
	p                          convPlan
	maps, filters, bias, image []T // filters: packed, alen per group
	alen                       int
}

func (l *deconvForwardLoop[T]) Range(lo, hi int) {
	p, maps, bias, image := l.p, l.maps, l.bias, l.image
	k, cols := p.colRows(), p.colCols()
	bp := colScratch[T](p)
	defer putCol(bp)
	col := colOf(bp)
	for n := lo; n < hi; n++ {
		for g := range p.groups {
			src := maps[(n*p.groups+g)*p.mapsSize():][:p.mapsSize()]
			img := image[(n*p.groups+g)*p.imageSize():][:p.imageSize()]
			filters := l.filters[g*l.alen:]
			if col == nil {
				accel.GemmPackedA(false, k, cols, p.maps, filters, src, cols, 0, img, cols)
				continue
			}
			accel.GemmPackedA(false, k, cols, p.maps, filters, src, cols, 0, col, cols)
			accel.Col2imSet(p.geom, col, img)
		}
		if bias != nil {
			addBias(image[n*p.groups*p.imageSize():][:p.groups*p.imageSize()], bias, p.geom.InH*p.geom.InW)
		}
	}
}

// addBias adds bias[c] to each of the len(bias) planes of size plane in x.
func addBias[T accel.Float](x, bias []T, plane int) {
	for c, b := range bias {
		row := x[c*plane : (c+1)*plane]
		for i := range row {
			row[i] += b
		}
	}
}

// convWeightGrad computes, per group, dW = sum over images of
// maps * im2col(image)^T. Each worker sums a contiguous run of images into
// its own buffer; the buffers are then added in order, so the result does
// not depend on scheduling. Small column matrices are written transposed
// straight into Gemm's packed layout (accel.Im2colPackedT), which skips
// Gemm's own packing of them.
func convWeightGrad[T accel.Float](p convPlan, maps, image, dw []T) {
	chunks := max(1, min(p.batch, accel.Workers(), maxWeightGradChunks))
	l := accel.GetRecycled[convWeightGradLoop[T]]()
	*l = convWeightGradLoop[T]{p: p, maps: maps, image: image, chunks: chunks}
	l.partial[0] = dw
	for c := 1; c < chunks; c++ {
		l.scratch[c] = getScratch[T](len(dw))
		l.partial[c] = *l.scratch[c]
	}
	accel.ParallelLoop(chunks, 1, l)
	for c := 1; c < chunks; c++ {
		accel.Axpy(1, l.partial[c], dw)
		putScratch(l.scratch[c])
	}
	accel.Recycle(l)
}

// maxWeightGradChunks bounds the per-worker buffers of convWeightGrad.
const maxWeightGradChunks = 16

// convWeightGradLoop is convWeightGrad's loop over runs of images: run c
// sums into partial[c] (dw itself for c = 0, else a scratch buffer).
type convWeightGradLoop[T accel.Float] struct {
	p           convPlan
	maps, image []T
	chunks      int
	partial     [maxWeightGradChunks][]T
	scratch     [maxWeightGradChunks]*[]T
}

func (l *convWeightGradLoop[T]) Range(lo, hi int) {
	p, maps, image, chunks, partial := l.p, l.maps, l.image, l.chunks, l.partial[:]
	k, cols := p.colRows(), p.colCols()
	packed := accel.PackedBLen[T](cols, k) <= packedConvMax
	// Small products without a column matrix where the CPU has the kernel.
	direct := packed && accel.ConvDirectApplies[T](p.geom, p.maps)
	var bp *[]T
	switch {
	case direct:
	case packed:
		bp = getScratch[T](accel.PackedBLen[T](cols, k))
	default:
		bp = colScratch[T](p)
	}
	defer putCol(bp)
	col := colOf(bp)
	for c := lo; c < hi; c++ {
		acc := partial[c]
		n0, n1 := c*p.batch/chunks, (c+1)*p.batch/chunks
		if n0 == n1 { // no images in this chunk
			clear(acc)
			continue
		}
		for g := range p.groups {
			dw := acc[g*p.maps*k:][:p.maps*k]
			if direct {
				accel.ConvWeightGradDirect(p.geom, p.maps, n1-n0, image[(n0*p.groups+g)*p.imageSize():], p.groups*p.imageSize(),
					maps[(n0*p.groups+g)*p.mapsSize():], p.groups*p.mapsSize(), dw)
				continue
			}
			var beta T
			for n := n0; n < n1; n++ {
				img := image[(n*p.groups+g)*p.imageSize():][:p.imageSize()]
				gy := maps[(n*p.groups+g)*p.mapsSize():][:p.mapsSize()]
				if packed {
					accel.Im2colPackedT(p.geom, img, col)
					accel.GemmPackedB(false, p.maps, k, cols, gy, cols, col, beta, dw, k, nil)
				} else {
					src := img
					if col != nil {
						accel.Im2col(p.geom, img, col)
						src = col
					}
					accel.Gemm(false, true, p.maps, k, cols, 1, gy, cols, src, cols, beta, dw, k)
				}
				beta = 1
			}
		}
	}
}

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
