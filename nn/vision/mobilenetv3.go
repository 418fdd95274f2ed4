package vision

import (
	"fmt"
	"math"

	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/ops"
)

func init() {
	for _, model := range []string{"large", "small"} {
		register("mobilenetv3_"+model, func(o Options) Model { return NewMobileNetV3(model, 1, o) })
	}
}

// mobileNetV3Block is a row of GluonCV's MobileNetV3 configuration: the
// depthwise kernel, the expanded and output channels, whether there is a
// squeeze-and-excitation, the activation ("relu" or "hard_swish") and
// the stride.
type mobileNetV3Block struct {
	kernel, expand, out int
	se                  bool
	act                 string
	stride              int
}

// mobileNetV3Spec is GluonCV's get_mobilenet_v3 configuration: the
// blocks and the channels of the last two 1x1 convolutions.
var mobileNetV3Spec = map[string]struct {
	blocks          []mobileNetV3Block
	squeeze, expand int
}{
	"large": {[]mobileNetV3Block{
		{3, 16, 16, false, "relu", 1}, {3, 64, 24, false, "relu", 2}, {3, 72, 24, false, "relu", 1},
		{5, 72, 40, true, "relu", 2}, {5, 120, 40, true, "relu", 1}, {5, 120, 40, true, "relu", 1},
		{3, 240, 80, false, "hard_swish", 2}, {3, 200, 80, false, "hard_swish", 1},
		{3, 184, 80, false, "hard_swish", 1}, {3, 184, 80, false, "hard_swish", 1},
		{3, 480, 112, true, "hard_swish", 1}, {3, 672, 112, true, "hard_swish", 1},
		{5, 672, 160, true, "hard_swish", 2}, {5, 960, 160, true, "hard_swish", 1}, {5, 960, 160, true, "hard_swish", 1},
	}, 960, 1280},
	"small": {[]mobileNetV3Block{
		{3, 16, 16, true, "relu", 2}, {3, 72, 24, false, "relu", 2}, {3, 88, 24, false, "relu", 1},
		{5, 96, 40, true, "hard_swish", 2}, {5, 240, 40, true, "hard_swish", 1}, {5, 240, 40, true, "hard_swish", 1},
		{5, 120, 48, true, "hard_swish", 1}, {5, 144, 48, true, "hard_swish", 1},
		{5, 288, 96, true, "hard_swish", 2}, {5, 576, 96, true, "hard_swish", 1}, {5, 576, 96, true, "hard_swish", 1},
	}, 576, 1280},
}

// makeDivisible rounds x up to a multiple of 8 (GluonCV's make_divisible).
func makeDivisible(x float64) int { return int(math.Ceil(x/8) * 8) }

// HardSigmoid is relu6(x+3)/6 (GluonCV's HardSigmoid). As GluonCV's, it
// makes its RELU6 outside its name scope: in a parent "p_", the two are
// "p_hardsigmoid0_" and "p_relu60_", and the nodes "p_hardsigmoid0__plusscalar0",
// "p_relu60_relu6" and "p_hardsigmoid0__divscalar0".
type HardSigmoid struct {
	nn.HybridBlock
	Act *RELU6
}

// NewHardSigmoid makes a HardSigmoid block.
func NewHardSigmoid() *HardSigmoid {
	h := &HardSigmoid{Act: NewRELU6()}
	h.Bind(h, "hardsigmoid")
	h.NameChildrenOutside()
	return h
}

// HybridForward returns relu6(x+3)/6.
func (h *HardSigmoid) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	countNext(F, "_plusscalar")
	y := h.Act.Forward(F.PlusScalar(x, 3))
	countNext(F, "_divscalar")
	return F.DivScalar(y, 6)
}

// HardSwish is x*hardsigmoid(x) (GluonCV's HardSwish), its HardSigmoid
// made outside its name scope as HardSigmoid's RELU6 is; the product is
// the node "hardswish0__mul0", as MXNet names Symbol's x * y.
type HardSwish struct {
	nn.HybridBlock
	Act *HardSigmoid
}

// NewHardSwish makes a HardSwish block.
func NewHardSwish() *HardSwish {
	h := &HardSwish{Act: NewHardSigmoid()}
	h.Bind(h, "hardswish")
	h.NameChildrenOutside()
	return h
}

// HybridForward returns x*hardsigmoid(x).
func (h *HardSwish) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	gate := h.Act.Forward(x)
	countNext(F, "_mul")
	return F.ElemwiseMul(x, gate)
}

// mobileNetV3Act makes the activation of a configuration row.
func mobileNetV3Act(act string) nn.HybridForwarder {
	if act == "hard_swish" {
		return NewHardSwish()
	}
	return nn.NewActivation("relu")
}

// forward runs a hybrid block, as a child's Forward does.
func forward(b nn.HybridForwarder, x ops.Tensor) ops.Tensor {
	return b.(interface{ Forward(ops.Tensor) ops.Tensor }).Forward(x)
}

// withPrefix sets a block's Gluon prefix and returns it.
func withPrefix[B interface{ SetPrefix(string) }](b B, prefix string) B {
	b.SetPrefix(prefix)
	return b
}

// mobileNetV3Unit is GluonCV's _Unit: a convolution without bias, a batch
// norm and, unless Act is nil, an activation. As GluonCV's, its children
// are named in its parent's scope, with the prefixes "<name>-conv2d_"
// and "<name>-batchnorm_".
type mobileNetV3Unit struct {
	nn.HybridBlock
	Conv *nn.Conv2D
	BN   *nn.BatchNorm
	Act  nn.HybridForwarder
}

func newMobileNetV3Unit(name string, channels, kernel, stride, groups int, act string) *mobileNetV3Unit {
	u := &mobileNetV3Unit{
		Conv: withPrefix(nn.NewConv2D(channels, []int{kernel}, nn.ConvOptions{
			Strides: []int{stride}, Padding: []int{(kernel - 1) / 2}, Groups: groups, NoBias: true}), name+"-conv2d_"),
		BN: withPrefix(nn.NewBatchNorm(), name+"-batchnorm_"),
	}
	if act != "" {
		u.Act = mobileNetV3Act(act)
	}
	u.Bind(u, "_unit")
	u.SetPrefix("")
	return u
}

// HybridForward runs the convolution, the batch norm and the activation.
func (u *mobileNetV3Unit) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	out := u.BN.Forward(u.Conv.Forward(x))
	if u.Act != nil {
		out = forward(u.Act, out)
	}
	return out
}

// mobileNetV3SE is GluonCV's _SE: the input times a gate made of a
// global average pool, a 1x1 convolution to a quarter of the channels
// (rounded up to a multiple of 8), a ReLU, a 1x1 convolution back and a
// hard sigmoid. As GluonCV's, it is "_se0_" (its product of input and
// gate the node "_se0_broadcast_mul0") and makes its children outside its
// name scope: the convolutions are "<name>_fc1_" and "<name>_fc2_" in its
// parent's scope, the pool "pool0_" there.
type mobileNetV3SE struct {
	nn.HybridBlock
	Pool  *nn.GlobalAvgPool2D
	Conv1 *nn.Conv2D
	Act1  *nn.Activation
	Conv2 *nn.Conv2D
	Act2  *HardSigmoid
}

func newMobileNetV3SE(name string, channels int) *mobileNetV3SE {
	s := &mobileNetV3SE{
		Pool:  nn.NewGlobalAvgPool2D(),
		Conv1: withPrefix(nn.NewConv2D(makeDivisible(float64(channels/4)), []int{1}), name+"_fc1_"),
		Act1:  nn.NewActivation("relu"),
		Conv2: withPrefix(nn.NewConv2D(channels, []int{1}), name+"_fc2_"),
		Act2:  NewHardSigmoid(),
	}
	s.Bind(s, "_se")
	s.NameChildrenOutside()
	return s
}

// HybridForward multiplies x by its gate.
func (s *mobileNetV3SE) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	gate := s.Act2.Forward(s.Conv2.Forward(s.Act1.Forward(s.Conv1.Forward(s.Pool.Forward(x)))))
	return F.Mul(x, gate)
}

// mobileNetV3ResUnit is GluonCV's _ResUnit: an expanding 1x1 unit (when
// the expanded and output channels differ), a depthwise unit, an
// optional squeeze-and-excitation and a linear 1x1 unit, plus the input
// when the channels and size are kept.
type mobileNetV3ResUnit struct {
	nn.HybridBlock
	Expand   *mobileNetV3Unit
	Conv1    *mobileNetV3Unit
	SE       *mobileNetV3SE
	Conv2    *mobileNetV3Unit
	shortcut bool
}

func newMobileNetV3ResUnit(name string, in int, b mobileNetV3Block) *mobileNetV3ResUnit {
	r := &mobileNetV3ResUnit{shortcut: in == b.out && b.stride == 1}
	if b.out != b.expand {
		r.Expand = newMobileNetV3Unit(name+"-exp", b.expand, 1, 1, 1, b.act)
	}
	r.Conv1 = newMobileNetV3Unit(name+"-depthwise", b.expand, b.kernel, b.stride, b.expand, b.act)
	if b.se {
		r.SE = newMobileNetV3SE(name+"-se", b.expand)
	}
	r.Conv2 = newMobileNetV3Unit(name+"-linear", b.out, 1, 1, 1, "")
	r.Bind(r, "_resunit")
	return r
}

// HybridForward runs the units, adding x when the shape is kept.
func (r *mobileNetV3ResUnit) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	out := x
	if r.Expand != nil {
		out = r.Expand.Forward(out)
	}
	out = r.Conv1.Forward(out)
	if r.SE != nil {
		out = r.SE.Forward(out)
	}
	out = r.Conv2.Forward(out)
	if r.shortcut {
		return plus(F, x, out)
	}
	return out
}

// MobileNetV3 is GluonCV's MobileNetV3 (Searching for MobileNetV3):
// Features, a strided 3x3 convolution, the inverted residual blocks, a
// 1x1 convolution, global average pooling, a 1x1 convolution to 1280
// channels and a dropout of 0.2; and Output, a 1x1 convolution to the
// classes and a Flatten. As GluonCV's, the network's prefix is empty:
// its parameters are named "first-3x3-conv-conv2d_weight",
// "_resunit0_seq-0-depthwise-conv2d_weight", "output_fc_bias".
type MobileNetV3 struct {
	nn.HybridBlock
	Features *nn.HybridSequential
	Output   *nn.HybridSequential
}

// NewMobileNetV3 makes GluonCV's MobileNetV3 "large" or "small" whose
// channels are the original ones times multiplier, rounded up to
// multiples of 8 (GluonCV's get_mobilenet_v3).
func NewMobileNetV3(model string, multiplier float64, opts ...Options) *MobileNetV3 {
	o := oneOption("NewMobileNetV3", opts)
	spec, ok := mobileNetV3Spec[model]
	if !ok {
		panic(fmt.Errorf("vision.NewMobileNetV3: no model %q; the models are \"large\" and \"small\"", model))
	}
	if multiplier < 0.25 {
		panic(fmt.Errorf("vision.NewMobileNetV3: multiplier %v is below 0.25", multiplier))
	}
	scaled := func(c int) int { return makeDivisible(multiplier * float64(c)) }
	features := sequential("",
		withPrefix(nn.NewConv2D(scaled(16), []int{3}, nn.ConvOptions{Strides: []int{2}, Padding: []int{1}, NoBias: true}), "first-3x3-conv-conv2d_"),
		withPrefix(nn.NewBatchNorm(), "first-3x3-conv-batchnorm_"),
		NewHardSwish())
	in := 16
	for i, b := range spec.blocks {
		b.expand, b.out = scaled(b.expand), scaled(b.out)
		features.Add(newMobileNetV3ResUnit(fmt.Sprintf("seq-%d", i), in, b))
		in = b.out
	}
	features.Add(
		withPrefix(nn.NewConv2D(scaled(spec.squeeze), []int{1}, nn.ConvOptions{NoBias: true}), "last-1x1-conv1-conv2d_"),
		withPrefix(nn.NewBatchNorm(), "last-1x1-conv1-batchnorm_"),
		NewHardSwish(),
		nn.NewGlobalAvgPool2D(),
		withPrefix(nn.NewConv2D(spec.expand, []int{1}, nn.ConvOptions{NoBias: true}), "last-1x1-conv2-conv2d_"),
		NewHardSwish(),
		nn.NewDropout(0.2))
	output := sequential("output_",
		withPrefix(nn.NewConv2D(o.classes(), []int{1}), "fc_"),
		nn.NewFlatten())
	n := &MobileNetV3{Features: features, Output: output}
	n.Bind(n, "mobilenetv3")
	n.SetPrefix("")
	return n
}

// HybridForward runs Features, then Output.
func (n *MobileNetV3) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	return n.Output.Forward(n.Features.Forward(x))
}

// MobileNetV3Large is GluonCV's mobilenet_v3_large.
func MobileNetV3Large(opts ...Options) *MobileNetV3 {
	return NewMobileNetV3("large", 1, oneOption("MobileNetV3Large", opts))
}

// MobileNetV3Small is GluonCV's mobilenet_v3_small.
func MobileNetV3Small(opts ...Options) *MobileNetV3 {
	return NewMobileNetV3("small", 1, oneOption("MobileNetV3Small", opts))
}
