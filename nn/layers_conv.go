package nn

import (
	"fmt"

	"github.com/hybridgo/hybridgo/ops"
)

// The convolution layers: Conv1D and Conv2D, and their transposes
// Conv1DTranspose and Conv2DTranspose. They share one options type,
// ConvOptions, and one set of fields, Conv. As in Gluon, they are named
// "conv" (conv0, conv1, …). The kernels support 1-D (NCW) and 2-D (NCHW)
// data only, so there is no Conv3D.

// ConvOptions are the options of the convolution layers, Gluon's keyword
// arguments. Sizes hold one value, used in every spatial dim, or one per
// dim; nil keeps the default.
type ConvOptions struct {
	Strides  []int // step between windows; default 1
	Padding  []int // zeros added on both sides of each spatial dim; default 0
	Dilation []int // spacing between kernel taps; default 1
	// OutputPadding adds rows and columns at the end of each output dim
	// (each below the stride), to choose between the sizes a strided
	// convolution maps to the same input size. Transposed convolutions
	// only; default 0.
	OutputPadding []int
	Groups        int    // split the channels into this many groups; 0 means 1
	Layout        string // "" or the channels-first layout (NCW, NCHW), the only one supported
	InChannels    int    // 0: inferred from the data
	Act           string // activation applied to the output ("relu", …); "" for none
	NoBias        bool   // no bias (Gluon's use_bias=False)
	WeightInit    Initializer
	BiasInit      Initializer
}

// Conv holds the fields of the convolution layers, which the forward
// reads (a hybridized block when it traces). Sizes have one value per
// spatial dim; nil ones are the op's defaults.
type Conv struct {
	HybridBlock
	Weight, Bias  *Parameter // Bias is nil with NoBias
	Channels      int
	Kernel        []int
	Strides       []int
	Padding       []int
	OutputPadding []int // transposed convolutions only
	Dilation      []int
	Groups        int
	Layout        string
	Act           string
}

// Conv1D is a 1-D convolution over NCW data. Its weight is (channels,
// in_channels/groups, w).
type Conv1D Conv

// Conv2D is a 2-D convolution over NCHW data. Its weight is (channels,
// in_channels/groups, h, w).
type Conv2D Conv

// Conv1DTranspose is a transposed 1-D convolution (Deconvolution) over
// NCW data: each output dim is (in-1)*stride - 2*pad +
// dilation*(kernel-1) + 1 + output_padding. Its weight is (in_channels,
// channels/groups, w).
type Conv1DTranspose Conv

// Conv2DTranspose is a transposed 2-D convolution (Deconvolution) over
// NCHW data, with Conv1DTranspose's output size in each dim. Its weight
// is (in_channels, channels/groups, h, w).
type Conv2DTranspose Conv

// NewConv1D makes a 1-D convolution with channels filters of width
// kernel[0].
func NewConv1D(channels int, kernel []int, opts ...ConvOptions) *Conv1D {
	c := (*Conv1D)(newConv("nn.NewConv1D", 1, false, channels, kernel, opts))
	c.Bind(c, "conv")
	return c
}

// NewConv2D makes a 2-D convolution with channels filters of size kernel
// (one number for a square kernel, or two).
func NewConv2D(channels int, kernel []int, opts ...ConvOptions) *Conv2D {
	c := (*Conv2D)(newConv("nn.NewConv2D", 2, false, channels, kernel, opts))
	c.Bind(c, "conv")
	return c
}

// NewConv1DTranspose makes a transposed 1-D convolution with channels
// output channels and a kernel of width kernel[0].
func NewConv1DTranspose(channels int, kernel []int, opts ...ConvOptions) *Conv1DTranspose {
	c := (*Conv1DTranspose)(newConv("nn.NewConv1DTranspose", 1, true, channels, kernel, opts))
	c.Bind(c, "conv")
	return c
}

// NewConv2DTranspose makes a transposed 2-D convolution with channels
// output channels and a kernel of one size (square) or two.
func NewConv2DTranspose(channels int, kernel []int, opts ...ConvOptions) *Conv2DTranspose {
	c := (*Conv2DTranspose)(newConv("nn.NewConv2DTranspose", 2, true, channels, kernel, opts))
	c.Bind(c, "conv")
	return c
}

// HybridForward convolves x.
func (c *Conv1D) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	return (*Conv)(c).forward(F, x, false)
}

// HybridForward convolves x.
func (c *Conv2D) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	return (*Conv)(c).forward(F, x, false)
}

// HybridForward applies the transposed convolution to x.
func (c *Conv1DTranspose) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	return (*Conv)(c).forward(F, x, true)
}

// HybridForward applies the transposed convolution to x.
func (c *Conv2DTranspose) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	return (*Conv)(c).forward(F, x, true)
}

// newConv checks the arguments of a convolution of nd spatial dims and
// makes its fields and parameters; the caller binds it.
func newConv(constructor string, nd int, transposed bool, channels int, kernel []int, opts []ConvOptions) *Conv {
	o := OneOption(constructor, opts)
	checkPositive(constructor, "channels", channels)
	c := &Conv{
		Channels:      channels,
		Kernel:        required(constructor, "kernel", kernel, nd),
		Strides:       spatial(constructor, "Strides", o.Strides, nd, 1),
		Padding:       spatial(constructor, "Padding", o.Padding, nd, 0),
		OutputPadding: spatial(constructor, "OutputPadding", o.OutputPadding, nd, 0),
		Dilation:      spatial(constructor, "Dilation", o.Dilation, nd, 1),
		Groups:        max(o.Groups, 1),
		Layout:        o.Layout,
		Act:           o.Act,
	}
	checkLayout(constructor, o.Layout, nd)
	if c.OutputPadding != nil && !transposed {
		panic(fmt.Errorf("%s: OutputPadding applies to transposed convolutions only", constructor))
	}
	for i, p := range c.OutputPadding {
		stride := 1
		if c.Strides != nil {
			stride = c.Strides[i]
		}
		if p >= stride {
			panic(fmt.Errorf("%s: OutputPadding %v must be below Strides %v (default 1) in every dim", constructor, o.OutputPadding, o.Strides))
		}
	}
	switch {
	case o.Groups < 0:
		panic(fmt.Errorf("%s: Groups=%d must not be negative", constructor, o.Groups))
	case o.InChannels < 0:
		panic(fmt.Errorf("%s: InChannels=%d must not be negative", constructor, o.InChannels))
	case channels%c.Groups != 0:
		panic(fmt.Errorf("%s: Groups=%d does not divide channels=%d", constructor, c.Groups, channels))
	case o.InChannels%c.Groups != 0:
		panic(fmt.Errorf("%s: Groups=%d does not divide InChannels=%d", constructor, c.Groups, o.InChannels))
	}
	// Gluon's weight shapes: (channels, in/groups, k…) for a
	// convolution, (in, channels/groups, k…) for a transpose.
	shape := ops.Shape{channels, o.InChannels / c.Groups}
	if transposed {
		shape = ops.Shape{o.InChannels, channels / c.Groups}
	}
	c.Weight = NewParameter("weight", append(shape, c.Kernel...))
	c.Weight.Init = o.WeightInit
	if !o.NoBias {
		c.Bias = NewParameter("bias", ops.Shape{channels})
		c.Bias.Init = o.BiasInit
	}
	return c
}

// forward runs Convolution, or Deconvolution when transposed, with the
// fields as attributes; nil sizes and an empty layout are left to the
// op's defaults.
func (c *Conv) forward(F ops.F, x ops.Tensor, transposed bool) ops.Tensor {
	var bias ops.Tensor
	if c.Bias != nil {
		bias = Param(F, c.Bias)
	}
	weight := Param(F, c.Weight)
	attrs := []ops.Attr{{Name: "num_group", Value: c.Groups}}
	for _, a := range []struct {
		name  string
		value []int
	}{{"stride", c.Strides}, {"pad", c.Padding}, {"dilate", c.Dilation}, {"adj", c.OutputPadding}} {
		if a.value != nil {
			attrs = append(attrs, ops.Attr{Name: a.name, Value: a.value})
		}
	}
	if c.Layout != "" {
		attrs = append(attrs, ops.Attr{Name: "layout", Value: c.Layout})
	}
	conv := F.Convolution
	if transposed {
		conv = F.Deconvolution
	}
	nameOutput(F)
	return activate(F, conv(x, weight, bias, c.Kernel, c.Channels, attrs...), c.Act)
}
