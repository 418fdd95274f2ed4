package vision

import (
	"fmt"

	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/ops"
)

func init() {
	for _, v := range []string{"1.0", "1.1"} {
		register("squeezenet"+v, func(o Options) Model { return NewSqueezeNet(v, o) })
	}
}

// HybridConcurrent runs each of its blocks on the same input and
// concatenates their outputs along Axis (Gluon's contrib
// HybridConcurrent). Its children are named by their index, as a
// HybridSequential's are.
type HybridConcurrent struct {
	nn.HybridBlock
	Layers []nn.HybridForwarder `nn:"inline"`
	Axis   int
}

// NewHybridConcurrent makes a HybridConcurrent of the given blocks that
// concatenates along axis.
func NewHybridConcurrent(axis int, layers ...nn.HybridForwarder) *HybridConcurrent {
	c := &HybridConcurrent{Layers: layers, Axis: axis}
	c.Bind(c, "hybridconcurrent")
	return c
}

// HybridForward runs every block on x and concatenates the outputs.
func (c *HybridConcurrent) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	outs := make([]ops.Tensor, len(c.Layers))
	for i, l := range c.Layers {
		b, ok := l.(interface{ Forward(ops.Tensor) ops.Tensor })
		if !ok {
			panic(fmt.Errorf("%s: layer %d is not a hybrid block", c.Name(), i))
		}
		outs[i] = b.Forward(x)
	}
	return F.Concat(c.Axis, outs...)
}

// fireConv is Gluon's _make_fire_conv: a convolution and a ReLU, named as
// its parent's children.
func fireConv(channels, kernel, pad int) *nn.HybridSequential {
	return sequential("",
		nn.NewConv2D(channels, []int{kernel}, nn.ConvOptions{Padding: []int{pad}}),
		nn.NewActivation("relu"))
}

// fire is SqueezeNet's Fire module (Gluon's _make_fire): a 1x1 squeeze,
// then 1x1 and 3x3 expansions concatenated along the channels.
func fire(squeeze, expand1x1, expand3x3 int) *nn.HybridSequential {
	paths := NewHybridConcurrent(1, fireConv(expand1x1, 1, 0), fireConv(expand3x3, 3, 1))
	paths.SetPrefix("")
	return sequential("", fireConv(squeeze, 1, 0), paths)
}

// SqueezeNet is Gluon's SqueezeNet (SqueezeNet: AlexNet-level accuracy
// with 50x fewer parameters and <0.5MB model size) in versions 1.0 and
// 1.1 (from the official SqueezeNet repository: 2.4x less computation,
// slightly fewer parameters): Features, convolutions, Fire modules and
// max pools that round up, then dropout; and Output, a 1x1 convolution to
// the classes, a ReLU, a 13x13 average pool and a Flatten. The pool
// needs inputs of at least 224x224.
type SqueezeNet struct {
	nn.HybridBlock
	Features *nn.HybridSequential
	Output   *nn.HybridSequential
}

// NewSqueezeNet makes the SqueezeNet of the given version, "1.0" or "1.1"
// (Gluon's squeezenet1_0 and squeezenet1_1).
func NewSqueezeNet(version string, opts ...Options) *SqueezeNet {
	n := oneOption("NewSqueezeNet", opts).classes()
	pool := func() nn.HybridForwarder {
		return nn.NewMaxPool2D([]int{3}, nn.PoolOptions{Strides: []int{2}, CeilMode: true})
	}
	conv := func(channels, kernel int) nn.HybridForwarder {
		return nn.NewConv2D(channels, []int{kernel}, nn.ConvOptions{Strides: []int{2}})
	}
	var features []nn.HybridForwarder
	switch version {
	case "1.0":
		features = []nn.HybridForwarder{
			conv(96, 7), nn.NewActivation("relu"), pool(),
			fire(16, 64, 64), fire(16, 64, 64), fire(32, 128, 128), pool(),
			fire(32, 128, 128), fire(48, 192, 192), fire(48, 192, 192), fire(64, 256, 256), pool(),
			fire(64, 256, 256),
		}
	case "1.1":
		features = []nn.HybridForwarder{
			conv(64, 3), nn.NewActivation("relu"), pool(),
			fire(16, 64, 64), fire(16, 64, 64), pool(),
			fire(32, 128, 128), fire(32, 128, 128), pool(),
			fire(48, 192, 192), fire(48, 192, 192), fire(64, 256, 256), fire(64, 256, 256),
		}
	default:
		panic(fmt.Errorf("vision.NewSqueezeNet: version %q, want \"1.0\" or \"1.1\"", version))
	}
	features = append(features, nn.NewDropout(0.5))
	s := &SqueezeNet{
		Features: sequential("", features...),
		Output: sequential("",
			nn.NewConv2D(n, []int{1}), nn.NewActivation("relu"),
			nn.NewAvgPool2D([]int{13}), nn.NewFlatten()),
	}
	s.Bind(s)
	return s
}

// HybridForward runs Features, then Output.
func (s *SqueezeNet) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	return s.Output.Forward(s.Features.Forward(x))
}

// SqueezeNet1_0 is Gluon's squeezenet1_0: NewSqueezeNet("1.0").
func SqueezeNet1_0(opts ...Options) *SqueezeNet { return NewSqueezeNet("1.0", opts...) }

// SqueezeNet1_1 is Gluon's squeezenet1_1: NewSqueezeNet("1.1").
func SqueezeNet1_1(opts ...Options) *SqueezeNet { return NewSqueezeNet("1.1", opts...) }
