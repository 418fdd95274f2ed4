package vision

import (
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/ops"
)

func init() {
	register("inceptionv3", func(o Options) Model { return NewInception3(o) })
}

// inceptionConv is one convolution of an Inception branch: its channels,
// kernel, strides and padding (nil for Gluon's defaults, 1 and 0), as
// Gluon's _make_branch conv_settings.
type inceptionConv struct {
	channels                 int
	kernel, strides, padding []int
}

// basicConv is Gluon's _make_basic_conv: a convolution without bias, a
// batch norm of epsilon 0.001 and a ReLU, named as its parent's children.
func basicConv(c inceptionConv) *nn.HybridSequential {
	return sequential("",
		nn.NewConv2D(c.channels, c.kernel, nn.ConvOptions{Strides: c.strides, Padding: c.padding, NoBias: true}),
		nn.NewBatchNorm(nn.BatchNormOptions{Epsilon: 0.001}),
		nn.NewActivation("relu"))
}

// inceptionBranch is Gluon's _make_branch: an optional pool ("avg": 3x3
// of stride 1 and padding 1; "max": 3x3 of stride 2; "": none), then a
// basic convolution per setting, in a HybridSequential of prefix "".
func inceptionBranch(pool string, convs ...inceptionConv) *nn.HybridSequential {
	out := sequential("")
	switch pool {
	case "avg":
		out.Add(nn.NewAvgPool2D([]int{3}, nn.PoolOptions{Strides: []int{1}, Padding: []int{1}}))
	case "max":
		out.Add(nn.NewMaxPool2D([]int{3}, nn.PoolOptions{Strides: []int{2}}))
	}
	for _, c := range convs {
		out.Add(basicConv(c))
	}
	return out
}

// conv1 is a 1x1 convolution setting.
func conv1(channels int) inceptionConv { return inceptionConv{channels: channels, kernel: []int{1}} }

// conv17 and conv71 are the 1x7 and 7x1 settings, padded to keep the size.
func conv17(channels int) inceptionConv {
	return inceptionConv{channels: channels, kernel: []int{1, 7}, padding: []int{0, 3}}
}

func conv71(channels int) inceptionConv {
	return inceptionConv{channels: channels, kernel: []int{7, 1}, padding: []int{3, 0}}
}

// conv3s2 is a 3x3 setting of stride 2, which halves the size.
func conv3s2(channels int) inceptionConv {
	return inceptionConv{channels: channels, kernel: []int{3}, strides: []int{2}}
}

// concurrent makes a HybridConcurrent along the channels with Gluon's
// prefix.
func concurrent(prefix string, branches ...nn.HybridForwarder) *HybridConcurrent {
	c := NewHybridConcurrent(1, branches...)
	c.SetPrefix(prefix)
	return c
}

// inceptionA is Gluon's _make_A, the 35x35 module: 1x1, 5x5, double 3x3
// and pooled branches, the last of poolFeatures channels.
func inceptionA(poolFeatures int, prefix string) *HybridConcurrent {
	return concurrent(prefix,
		inceptionBranch("", conv1(64)),
		inceptionBranch("", conv1(48), inceptionConv{64, []int{5}, nil, []int{2}}),
		inceptionBranch("", conv1(64), inceptionConv{96, []int{3}, nil, []int{1}}, inceptionConv{96, []int{3}, nil, []int{1}}),
		inceptionBranch("avg", conv1(poolFeatures)))
}

// inceptionB is Gluon's _make_B, the reduction from 35x35 to 17x17.
func inceptionB(prefix string) *HybridConcurrent {
	return concurrent(prefix,
		inceptionBranch("", conv3s2(384)),
		inceptionBranch("", conv1(64), inceptionConv{96, []int{3}, nil, []int{1}}, conv3s2(96)),
		inceptionBranch("max"))
}

// inceptionC is Gluon's _make_C, the 17x17 module of factorised 7x7
// convolutions of channels7x7 channels.
func inceptionC(channels7x7 int, prefix string) *HybridConcurrent {
	return concurrent(prefix,
		inceptionBranch("", conv1(192)),
		inceptionBranch("", conv1(channels7x7), conv17(channels7x7), conv71(192)),
		inceptionBranch("", conv1(channels7x7), conv71(channels7x7), conv17(channels7x7), conv71(channels7x7), conv17(192)),
		inceptionBranch("avg", conv1(192)))
}

// inceptionD is Gluon's _make_D, the reduction from 17x17 to 8x8.
func inceptionD(prefix string) *HybridConcurrent {
	return concurrent(prefix,
		inceptionBranch("", conv1(192), conv3s2(320)),
		inceptionBranch("", conv1(192), conv17(192), conv71(192), conv3s2(192)),
		inceptionBranch("max"))
}

// inceptionE is Gluon's _make_E, the 8x8 module whose 3x3 branches split
// into concatenated 1x3 and 3x1 convolutions.
func inceptionE(prefix string) *HybridConcurrent {
	split := func() *HybridConcurrent {
		return concurrent("",
			inceptionBranch("", inceptionConv{384, []int{1, 3}, nil, []int{0, 1}}),
			inceptionBranch("", inceptionConv{384, []int{3, 1}, nil, []int{1, 0}}))
	}
	return concurrent(prefix,
		inceptionBranch("", conv1(320)),
		sequential("", inceptionBranch("", conv1(384)), split()),
		sequential("", inceptionBranch("", conv1(448), inceptionConv{384, []int{3}, nil, []int{1}}), split()),
		inceptionBranch("avg", conv1(192)))
}

// Inception3 is Gluon's Inception V3 (Rethinking the Inception
// Architecture for Computer Vision), without the auxiliary classifier:
// Features, a stem of basic convolutions and max pools, the modules
// A1_ … A3_, B_, C1_ … C4_, D_, E1_ and E2_, an 8x8 average pool and a
// dropout of 0.5; and the Dense Output layer. The average pool needs
// 299x299 inputs.
type Inception3 struct {
	nn.HybridBlock
	Features *nn.HybridSequential
	Output   *nn.Dense
}

// NewInception3 makes an Inception V3, Gluon's Inception3.
func NewInception3(opts ...Options) *Inception3 {
	o := oneOption("NewInception3", opts)
	maxPool := func() nn.HybridForwarder { return nn.NewMaxPool2D([]int{3}, nn.PoolOptions{Strides: []int{2}}) }
	features := sequential("",
		basicConv(conv3s2(32)),
		basicConv(inceptionConv{channels: 32, kernel: []int{3}}),
		basicConv(inceptionConv{channels: 64, kernel: []int{3}, padding: []int{1}}),
		maxPool(),
		basicConv(conv1(80)),
		basicConv(inceptionConv{channels: 192, kernel: []int{3}}),
		maxPool(),
		inceptionA(32, "A1_"), inceptionA(64, "A2_"), inceptionA(64, "A3_"),
		inceptionB("B_"),
		inceptionC(128, "C1_"), inceptionC(160, "C2_"), inceptionC(160, "C3_"), inceptionC(192, "C4_"),
		inceptionD("D_"),
		inceptionE("E1_"), inceptionE("E2_"),
		nn.NewAvgPool2D([]int{8}),
		nn.NewDropout(0.5))
	n := &Inception3{Features: features, Output: nn.NewDense(o.classes())}
	n.Bind(n)
	return n
}

// HybridForward runs Features, then Output.
func (n *Inception3) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	return n.Output.Forward(n.Features.Forward(x))
}

// InceptionV3 is Gluon's inception_v3.
func InceptionV3(opts ...Options) *Inception3 { return NewInception3(oneOption("InceptionV3", opts)) }
