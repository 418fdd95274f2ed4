package vision

import (
	"fmt"

	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/ops"
)

func init() {
	for _, depth := range []int{11, 13, 16, 19} {
		register(fmt.Sprintf("vgg%d", depth), func(o Options) Model { return NewVGG(depth, false, o) })
		register(fmt.Sprintf("vgg%d_bn", depth), func(o Options) Model { return NewVGG(depth, true, o) })
	}
}

// vggSpec is, for each depth, the number of convolutions in each of the
// five stages (the stages have 64, 128, 256, 512 and 512 filters).
var vggSpec = map[int][]int{
	11: {1, 1, 2, 2, 2},
	13: {2, 2, 2, 2, 2},
	16: {2, 2, 3, 3, 3},
	19: {2, 2, 4, 4, 4},
}

// VGG is Gluon's VGG (Very Deep Convolutional Networks for Large-Scale
// Image Recognition): Features, five stages of 3x3 convolutions (each
// with a BatchNorm in the batch-norm variants) and max pools, then two
// Dense layers of 4096 with dropout; and the Dense Output layer. Its
// Dense layers need 224x224 inputs.
type VGG struct {
	nn.HybridBlock
	Features *nn.HybridSequential
	Output   *nn.Dense
}

// NewVGG makes the VGG of the given depth, 11, 13, 16 or 19, with batch
// normalisation after each convolution if batchNorm (Gluon's vgg16 is
// NewVGG(16, false), vgg16_bn NewVGG(16, true)). The initializers are
// Gluon's: Xavier (gaussian, out, 2) for the convolutions' weights,
// Normal(0.01) for the Dense layers', zeros for the biases.
func NewVGG(layers int, batchNorm bool, opts ...Options) *VGG {
	n := oneOption("NewVGG", opts).classes()
	spec, ok := vggSpec[layers]
	if !ok {
		panic(fmt.Errorf("vision.NewVGG: %d layers, want 11, 13, 16 or 19", layers))
	}
	filters := []int{64, 128, 256, 512, 512}
	convInit := nn.Xavier(nn.XavierOptions{RandType: "gaussian", FactorType: "out", Magnitude: 2})
	var features []nn.HybridForwarder
	for i, num := range spec {
		for range num {
			features = append(features, nn.NewConv2D(filters[i], []int{3},
				nn.ConvOptions{Padding: []int{1}, WeightInit: convInit, BiasInit: nn.Zero()}))
			if batchNorm {
				features = append(features, nn.NewBatchNorm())
			}
			features = append(features, nn.NewActivation("relu"))
		}
		features = append(features, nn.NewMaxPool2D([]int{2}, nn.PoolOptions{Strides: []int{2}}))
	}
	dense := func(units int, act string) *nn.Dense {
		return nn.NewDense(units, nn.DenseOptions{Act: act, WeightInit: nn.Normal(0.01), BiasInit: nn.Zero()})
	}
	features = append(features,
		dense(4096, "relu"), nn.NewDropout(0.5),
		dense(4096, "relu"), nn.NewDropout(0.5))
	v := &VGG{Features: sequential("", features...), Output: dense(n, "")}
	v.Bind(v)
	return v
}

// HybridForward runs Features, then Output.
func (v *VGG) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	return v.Output.Forward(v.Features.Forward(x))
}

// VGG11 is Gluon's vgg11: NewVGG(11, false).
func VGG11(opts ...Options) *VGG { return NewVGG(11, false, opts...) }

// VGG11BN is Gluon's vgg11_bn: NewVGG(11, true).
func VGG11BN(opts ...Options) *VGG { return NewVGG(11, true, opts...) }

// VGG13 is Gluon's vgg13: NewVGG(13, false).
func VGG13(opts ...Options) *VGG { return NewVGG(13, false, opts...) }

// VGG13BN is Gluon's vgg13_bn: NewVGG(13, true).
func VGG13BN(opts ...Options) *VGG { return NewVGG(13, true, opts...) }

// VGG16 is Gluon's vgg16: NewVGG(16, false).
func VGG16(opts ...Options) *VGG { return NewVGG(16, false, opts...) }

// VGG16BN is Gluon's vgg16_bn: NewVGG(16, true).
func VGG16BN(opts ...Options) *VGG { return NewVGG(16, true, opts...) }

// VGG19 is Gluon's vgg19: NewVGG(19, false).
func VGG19(opts ...Options) *VGG { return NewVGG(19, false, opts...) }

// VGG19BN is Gluon's vgg19_bn: NewVGG(19, true).
func VGG19BN(opts ...Options) *VGG { return NewVGG(19, true, opts...) }
