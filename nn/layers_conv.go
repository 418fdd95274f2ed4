package nn

import (
	"fmt"

	"github.com/hybridgo/hybridgo/ops"
)

// Convolution and pooling layers beyond Conv2D and MaxPool2D: Conv1D,
// Conv2DTranspose, MaxPool1D, AvgPool1D, AvgPool2D, GlobalAvgPool2D and
// GlobalMaxPool2D. As in Gluon, convolutions are named "conv" and pools
// "pool" (conv0, pool0, …).

// convAttrs are the geometry attributes shared by Convolution and
// Deconvolution; nil sizes are left to the op's defaults.
func convAttrs(groups int, strides, padding, dilation []int) []ops.Attr {
	attrs := []ops.Attr{{Name: "num_group", Value: groups}}
	if strides != nil {
		attrs = append(attrs, ops.Attr{Name: "stride", Value: strides})
	}
	if padding != nil {
		attrs = append(attrs, ops.Attr{Name: "pad", Value: padding})
	}
	if dilation != nil {
		attrs = append(attrs, ops.Attr{Name: "dilate", Value: dilation})
	}
	return attrs
}

// checkSizes panics when a size option has neither one value nor n.
func checkSizes(layer string, n int, sizes map[string][]int) {
	for name, s := range sizes {
		if s != nil && len(s) != n {
			panic(fmt.Errorf("%s: %s %v must have 1 or %d values", layer, name, s, n))
		}
	}
}

// Conv1D is a 1-D convolution layer over NCW data. Its weight is
// (channels, in_channels/groups, kernel).
type Conv1D struct {
	HybridBlock
	Weight, Bias *Parameter
	Channels     int
	Kernel       []int
	Strides      []int
	Padding      []int
	Dilation     []int
	Groups       int
	Act          string
}

// NewConv1D makes a 1-D convolution with channels filters of width
// kernel[0]; opts set strides, padding, dilation, groups, in_channels (0:
// inferred from the data), an activation, no bias and initializers.
func NewConv1D(channels int, kernel []int, opts ...ConvOptions) *Conv1D {
	var o ConvOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	checkSizes("Conv1D", 1, map[string][]int{"kernel": kernel, "strides": o.Strides, "padding": o.Padding, "dilation": o.Dilation})
	if len(kernel) != 1 {
		panic(fmt.Errorf("Conv1D: kernel %v must have 1 value", kernel))
	}
	groups := max(o.Groups, 1)
	c := &Conv1D{Channels: channels, Kernel: kernel, Strides: o.Strides, Padding: o.Padding,
		Dilation: o.Dilation, Groups: groups, Act: o.Act}
	inPer := 0
	if o.InChannels > 0 {
		inPer = o.InChannels / groups
	}
	c.Weight = NewParameter("weight", ops.Shape{channels, inPer, kernel[0]})
	c.Weight.Init = o.WeightInit
	if !o.NoBias {
		c.Bias = NewParameter("bias", ops.Shape{channels})
		c.Bias.Init = o.BiasInit
	}
	c.Bind(c, "conv")
	return c
}

// HybridForward convolves x.
func (c *Conv1D) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	var bias ops.Tensor
	if c.Bias != nil {
		bias = Param(F, c.Bias)
	}
	attrs := append(convAttrs(c.Groups, c.Strides, c.Padding, c.Dilation), ops.Attr{Name: "layout", Value: "NCW"})
	nameOutput(F)
	return activate(F, F.Convolution(x, Param(F, c.Weight), bias, c.Kernel, c.Channels, attrs...), c.Act)
}

// ConvTransposeOptions are the options of Conv2DTranspose.
type ConvTransposeOptions struct {
	Strides, Padding, Dilation []int
	// OutputPadding adds rows and columns at the end of each output dim
	// (each below the stride), to choose between the sizes a strided
	// convolution maps to the same input size.
	OutputPadding        []int
	Groups               int // default 1
	InChannels           int // 0: inferred from the data
	Act                  string
	NoBias               bool
	WeightInit, BiasInit Initializer
}

// Conv2DTranspose is a transposed 2-D convolution (Deconvolution) over
// NCHW data. Each output dim is (in-1)*stride - 2*pad +
// dilation*(kernel-1) + 1 + output_padding. Its weight is (in_channels,
// channels/groups, kh, kw).
type Conv2DTranspose struct {
	HybridBlock
	Weight, Bias  *Parameter
	Channels      int
	Kernel        []int
	Strides       []int
	Padding       []int
	OutputPadding []int
	Dilation      []int
	Groups        int
	Act           string
}

// NewConv2DTranspose makes a transposed 2-D convolution with channels
// output channels and a kernel of one size (square) or two.
func NewConv2DTranspose(channels int, kernel []int, opts ...ConvTransposeOptions) *Conv2DTranspose {
	var o ConvTransposeOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	k := expand(kernel, 2)
	c := &Conv2DTranspose{Channels: channels, Kernel: k, Strides: expand(o.Strides, 2), Padding: expand(o.Padding, 2),
		OutputPadding: expand(o.OutputPadding, 2), Dilation: expand(o.Dilation, 2), Groups: max(o.Groups, 1), Act: o.Act}
	checkSizes("Conv2DTranspose", 2, map[string][]int{"kernel": c.Kernel, "strides": c.Strides, "padding": c.Padding,
		"output_padding": c.OutputPadding, "dilation": c.Dilation})
	if len(k) != 2 {
		panic(fmt.Errorf("Conv2DTranspose: kernel %v must have 1 or 2 values", kernel))
	}
	if channels%c.Groups != 0 {
		panic(fmt.Errorf("Conv2DTranspose: groups=%d does not divide channels=%d", c.Groups, channels))
	}
	c.Weight = NewParameter("weight", ops.Shape{o.InChannels, channels / c.Groups, k[0], k[1]})
	c.Weight.Init = o.WeightInit
	if !o.NoBias {
		c.Bias = NewParameter("bias", ops.Shape{channels})
		c.Bias.Init = o.BiasInit
	}
	c.Bind(c, "conv")
	return c
}

// HybridForward applies the transposed convolution to x.
func (c *Conv2DTranspose) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	var bias ops.Tensor
	if c.Bias != nil {
		bias = Param(F, c.Bias)
	}
	attrs := convAttrs(c.Groups, c.Strides, c.Padding, c.Dilation)
	if c.OutputPadding != nil {
		attrs = append(attrs, ops.Attr{Name: "adj", Value: c.OutputPadding})
	}
	nameOutput(F)
	return activate(F, F.Deconvolution(x, Param(F, c.Weight), bias, c.Kernel, c.Channels, attrs...), c.Act)
}

// PoolOptions are the options of the pooling layers.
type PoolOptions struct {
	Strides []int // default: the pool size
	Padding []int // zeros on both sides of each spatial dim
	// CeilMode rounds the output size up instead of down.
	CeilMode bool
	// ExcludePad leaves the padding out of each average's divisor
	// (Gluon's count_include_pad=False); average pools only.
	ExcludePad bool
}

// Pool is a max or average pooling layer over NCW or NCHW windows:
// MaxPool1D, AvgPool1D and AvgPool2D make one. Each output dim is
// (in + 2*pad - size)/stride + 1, rounded down, or up with CeilMode.
type Pool struct {
	HybridBlock
	PoolType                   string // "max" or "avg"
	PoolSize, Strides, Padding []int
	CeilMode                   bool
	CountIncludePad            bool // avg: count the padding in the divisor
}

func newPool(layer string, ndim int, poolType string, poolSize []int, opts []PoolOptions) *Pool {
	var o PoolOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	p := &Pool{PoolType: poolType, PoolSize: expand(poolSize, ndim), Strides: expand(o.Strides, ndim),
		Padding: expand(o.Padding, ndim), CeilMode: o.CeilMode, CountIncludePad: !o.ExcludePad}
	if p.Strides == nil {
		p.Strides = p.PoolSize
	}
	checkSizes(layer, ndim, map[string][]int{"pool size": p.PoolSize, "strides": p.Strides, "padding": p.Padding})
	if len(p.PoolSize) != ndim {
		panic(fmt.Errorf("%s: pool size %v must have 1 or %d values", layer, poolSize, ndim))
	}
	if o.ExcludePad && poolType != "avg" {
		panic(fmt.Errorf("%s: ExcludePad applies to average pooling only", layer))
	}
	p.Bind(p, "pool")
	return p
}

// NewMaxPool1D makes a max pooling layer over NCW data with windows of
// poolSize[0].
func NewMaxPool1D(poolSize []int, opts ...PoolOptions) *Pool {
	return newPool("MaxPool1D", 1, "max", poolSize, opts)
}

// NewAvgPool1D makes an average pooling layer over NCW data with windows
// of poolSize[0].
func NewAvgPool1D(poolSize []int, opts ...PoolOptions) *Pool {
	return newPool("AvgPool1D", 1, "avg", poolSize, opts)
}

// NewAvgPool2D makes an average pooling layer over NCHW data with windows
// of one size (square) or two.
func NewAvgPool2D(poolSize []int, opts ...PoolOptions) *Pool {
	return newPool("AvgPool2D", 2, "avg", poolSize, opts)
}

// HybridForward pools x.
func (p *Pool) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	attrs := []ops.Attr{{Name: "stride", Value: p.Strides}}
	if p.Padding != nil {
		attrs = append(attrs, ops.Attr{Name: "pad", Value: p.Padding})
	}
	if p.CeilMode {
		attrs = append(attrs, ops.Attr{Name: "pooling_convention", Value: "full"})
	}
	if p.PoolType == "avg" {
		attrs = append(attrs, ops.Attr{Name: "count_include_pad", Value: p.CountIncludePad})
	}
	nameOutput(F)
	return F.Pooling(x, p.PoolSize, p.PoolType, attrs...)
}

// GlobalPool takes the maximum or the average of each whole plane: NCHW
// data gives (N, C, 1, 1).
type GlobalPool struct {
	HybridBlock
	PoolType string // "max" or "avg"
}

func newGlobalPool(poolType string) *GlobalPool {
	p := &GlobalPool{PoolType: poolType}
	p.Bind(p, "pool")
	return p
}

// NewGlobalAvgPool2D makes a layer that averages each channel of NCHW data.
func NewGlobalAvgPool2D() *GlobalPool { return newGlobalPool("avg") }

// NewGlobalMaxPool2D makes a layer that takes the maximum of each channel
// of NCHW data.
func NewGlobalMaxPool2D() *GlobalPool { return newGlobalPool("max") }

// HybridForward pools each plane of x.
func (p *GlobalPool) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	nameOutput(F)
	return F.Pooling(x, []int{1, 1}, p.PoolType, ops.Attr{Name: "global_pool", Value: true},
		ops.Attr{Name: "pooling_convention", Value: "full"})
}
