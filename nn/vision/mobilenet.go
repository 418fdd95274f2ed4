package vision

import (
	"fmt"

	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/ops"
)

func init() {
	for _, m := range []struct {
		name       string
		multiplier float64
	}{{"1.0", 1}, {"0.75", 0.75}, {"0.5", 0.5}, {"0.25", 0.25}} {
		register("mobilenet"+m.name, func(o Options) Model { return NewMobileNet(m.multiplier, o) })
		register("mobilenetv2_"+m.name, func(o Options) Model { return NewMobileNetV2(m.multiplier, o) })
	}
}

// sequential makes a HybridSequential with Gluon's prefix: "" shares the
// parent's names, as HybridSequential(prefix="") does.
func sequential(prefix string, layers ...nn.HybridForwarder) *nn.HybridSequential {
	s := nn.NewHybridSequential(layers...)
	s.SetPrefix(prefix)
	return s
}

// RELU6 clips its input to [0, 6] (MobileNetV2's activation); its output
// node is named "relu6", as Gluon's is.
type RELU6 struct{ nn.HybridBlock }

// NewRELU6 makes a RELU6 block.
func NewRELU6() *RELU6 {
	r := &RELU6{}
	r.Bind(r, "relu6")
	return r
}

// HybridForward clips x to [0, 6].
func (r *RELU6) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	if t, ok := F.Interpreter().(*graph.Tracer); ok {
		t.NameNext("relu6")
	}
	return F.Clip(x, 0, 6)
}

// convBN returns Gluon's _add_conv: a convolution without bias, a batch
// norm and, if active, a ReLU (or RELU6).
func convBN(channels, kernel, stride, pad, groups int, active, relu6 bool) []nn.HybridForwarder {
	out := []nn.HybridForwarder{
		nn.NewConv2D(channels, []int{kernel}, nn.ConvOptions{
			Strides: []int{stride}, Padding: []int{pad}, Groups: groups, NoBias: true}),
		nn.NewBatchNorm(),
	}
	switch {
	case active && relu6:
		out = append(out, NewRELU6())
	case active:
		out = append(out, nn.NewActivation("relu"))
	}
	return out
}

// MobileNet is Gluon's MobileNet (MobileNets: Efficient Convolutional
// Neural Networks for Mobile Vision Applications): Features, a stack of
// depthwise separable convolutions ending in global average pooling, and
// the Dense Output layer.
type MobileNet struct {
	nn.HybridBlock
	Features *nn.HybridSequential
	Output   *nn.Dense
}

// NewMobileNet makes a MobileNet whose channels are the original ones
// times multiplier (Gluon's mobilenet1_0, 0_75, 0_5 and 0_25 take 1,
// 0.75, 0.5 and 0.25).
func NewMobileNet(multiplier float64, opts ...Options) *MobileNet {
	n := oneOption("NewMobileNet", opts).classes()
	if multiplier < 0.25 {
		panic(fmt.Errorf("vision.NewMobileNet: multiplier is %g, want >= 0.25", multiplier))
	}
	scale := func(c int) int { return int(float64(c) * multiplier) }
	layers := convBN(scale(32), 3, 2, 1, 1, true, false)
	dw := []int{32, 64, 128, 128, 256, 256, 512, 512, 512, 512, 512, 512, 1024}
	ch := []int{64, 128, 128, 256, 256, 512, 512, 512, 512, 512, 512, 1024, 1024}
	strides := []int{1, 2, 1, 2, 1, 2, 1, 1, 1, 1, 1, 2, 1}
	for i := range dw {
		layers = append(layers, convBN(scale(dw[i]), 3, strides[i], 1, scale(dw[i]), true, false)...)
		layers = append(layers, convBN(scale(ch[i]), 1, 1, 0, 1, true, false)...)
	}
	layers = append(layers, nn.NewGlobalAvgPool2D(), nn.NewFlatten())
	m := &MobileNet{Features: sequential("", layers...), Output: nn.NewDense(n)}
	m.Bind(m)
	return m
}

// HybridForward runs Features, then Output.
func (m *MobileNet) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	return m.Output.Forward(m.Features.Forward(x))
}

// MobileNet1_0 is Gluon's mobilenet1_0: NewMobileNet(1).
func MobileNet1_0(opts ...Options) *MobileNet { return NewMobileNet(1, opts...) }

// MobileNet0_75 is Gluon's mobilenet0_75: NewMobileNet(0.75).
func MobileNet0_75(opts ...Options) *MobileNet { return NewMobileNet(0.75, opts...) }

// MobileNet0_5 is Gluon's mobilenet0_5: NewMobileNet(0.5).
func MobileNet0_5(opts ...Options) *MobileNet { return NewMobileNet(0.5, opts...) }

// MobileNet0_25 is Gluon's mobilenet0_25: NewMobileNet(0.25).
func MobileNet0_25(opts ...Options) *MobileNet { return NewMobileNet(0.25, opts...) }

// LinearBottleneck is MobileNetV2's inverted residual block: a 1x1
// expansion by t, a 3x3 depthwise convolution and a linear 1x1
// projection, with the input added when the shapes allow.
type LinearBottleneck struct {
	nn.HybridBlock
	Out         *nn.HybridSequential
	useShortcut bool
}

// NewLinearBottleneck makes a LinearBottleneck from inChannels to
// channels with expansion t and the given stride.
func NewLinearBottleneck(inChannels, channels, t, stride int) *LinearBottleneck {
	layers := convBN(inChannels*t, 1, 1, 0, 1, true, true)
	layers = append(layers, convBN(inChannels*t, 3, stride, 1, inChannels*t, true, true)...)
	layers = append(layers, convBN(channels, 1, 1, 0, 1, false, true)...)
	b := &LinearBottleneck{Out: sequential("", layers...), useShortcut: stride == 1 && inChannels == channels}
	b.Bind(b)
	return b
}

// HybridForward runs Out and adds x when the block keeps its shape.
func (b *LinearBottleneck) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	out := b.Out.Forward(x)
	if b.useShortcut {
		out = F.ElemwiseAdd(out, x)
	}
	return out
}

// MobileNetV2 is Gluon's MobileNetV2 (Inverted Residuals and Linear
// Bottlenecks): Features, LinearBottlenecks between two convolutions
// ending in global average pooling, and Output, a 1x1 convolution to the
// classes and a Flatten.
type MobileNetV2 struct {
	nn.HybridBlock
	Features *nn.HybridSequential
	Output   *nn.HybridSequential
}

// NewMobileNetV2 makes a MobileNetV2 whose channels are the original ones
// times multiplier (Gluon's mobilenet_v2_1_0, 0_75, 0_5 and 0_25 take 1,
// 0.75, 0.5 and 0.25).
func NewMobileNetV2(multiplier float64, opts ...Options) *MobileNetV2 {
	n := oneOption("NewMobileNetV2", opts).classes()
	if multiplier < 0.25 {
		panic(fmt.Errorf("vision.NewMobileNetV2: multiplier is %g, want >= 0.25", multiplier))
	}
	scale := func(c int) int { return int(float64(c) * multiplier) }
	layers := convBN(scale(32), 3, 2, 1, 1, true, true)
	in := []int{32, 16, 24, 24, 32, 32, 32, 64, 64, 64, 64, 96, 96, 96, 160, 160, 160}
	out := []int{16, 24, 24, 32, 32, 32, 64, 64, 64, 64, 96, 96, 96, 160, 160, 160, 320}
	strides := []int{1, 2, 1, 2, 1, 1, 2, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1}
	for i := range in {
		t := 6
		if i == 0 {
			t = 1
		}
		layers = append(layers, NewLinearBottleneck(scale(in[i]), scale(out[i]), t, strides[i]))
	}
	last := 1280
	if multiplier > 1 {
		last = scale(1280)
	}
	layers = append(layers, convBN(last, 1, 1, 0, 1, true, true)...)
	layers = append(layers, nn.NewGlobalAvgPool2D())
	pred := nn.NewConv2D(n, []int{1}, nn.ConvOptions{NoBias: true})
	pred.SetPrefix("pred_")
	m := &MobileNetV2{
		Features: sequential("features_", layers...),
		Output:   sequential("output_", pred, nn.NewFlatten()),
	}
	m.Bind(m)
	return m
}

// HybridForward runs Features, then Output.
func (m *MobileNetV2) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	return m.Output.Forward(m.Features.Forward(x))
}

// MobileNetV2_1_0 is Gluon's mobilenet_v2_1_0: NewMobileNetV2(1).
func MobileNetV2_1_0(opts ...Options) *MobileNetV2 { return NewMobileNetV2(1, opts...) }

// MobileNetV2_0_75 is Gluon's mobilenet_v2_0_75: NewMobileNetV2(0.75).
func MobileNetV2_0_75(opts ...Options) *MobileNetV2 { return NewMobileNetV2(0.75, opts...) }

// MobileNetV2_0_5 is Gluon's mobilenet_v2_0_5: NewMobileNetV2(0.5).
func MobileNetV2_0_5(opts ...Options) *MobileNetV2 { return NewMobileNetV2(0.5, opts...) }

// MobileNetV2_0_25 is Gluon's mobilenet_v2_0_25: NewMobileNetV2(0.25).
func MobileNetV2_0_25(opts ...Options) *MobileNetV2 { return NewMobileNetV2(0.25, opts...) }
