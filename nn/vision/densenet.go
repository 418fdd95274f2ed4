package vision

import (
	"fmt"

	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/ops"
)

func init() {
	for _, layers := range []int{121, 161, 169, 201} {
		register(fmt.Sprintf("densenet%d", layers), func(o Options) Model { return densenet(layers, o) })
	}
}

// densenetSpec is Gluon's densenet_spec: the initial features, the
// growth rate and the layers of each dense block, by depth.
var densenetSpec = map[int]struct {
	initFeatures, growthRate int
	blocks                   []int
}{
	121: {64, 32, []int{6, 12, 24, 16}},
	161: {96, 48, []int{6, 12, 36, 24}},
	169: {64, 32, []int{6, 12, 32, 32}},
	201: {64, 32, []int{6, 12, 48, 32}},
}

// Identity passes its input through (Gluon's contrib Identity); it adds
// no node to a traced graph.
type Identity struct{ nn.HybridBlock }

// NewIdentity makes an Identity block.
func NewIdentity() *Identity {
	i := &Identity{}
	i.Bind(i, "identity")
	return i
}

// HybridForward returns x.
func (i *Identity) HybridForward(F ops.F, x ops.Tensor) ops.Tensor { return x }

// denseLayer is Gluon's _make_dense_layer: the input concatenated along
// the channels with growthRate new features, made by a 1x1 bottleneck of
// bnSize*growthRate channels and a 3x3 convolution, each after a batch
// norm and a ReLU, and a dropout if dropout is not 0.
func denseLayer(growthRate, bnSize int, dropout float64) *HybridConcurrent {
	features := sequential("",
		nn.NewBatchNorm(), nn.NewActivation("relu"),
		nn.NewConv2D(bnSize*growthRate, []int{1}, nn.ConvOptions{NoBias: true}),
		nn.NewBatchNorm(), nn.NewActivation("relu"),
		nn.NewConv2D(growthRate, []int{3}, nn.ConvOptions{Padding: []int{1}, NoBias: true}))
	if dropout != 0 {
		features.Add(nn.NewDropout(dropout))
	}
	out := NewHybridConcurrent(1, NewIdentity(), features)
	out.SetPrefix("")
	return out
}

// denseBlock is Gluon's _make_dense_block: layers dense layers, in a
// HybridSequential with prefix "stage<stage>_".
func denseBlock(layers, bnSize, growthRate int, dropout float64, stage int) *nn.HybridSequential {
	out := sequential(fmt.Sprintf("stage%d_", stage))
	for range layers {
		out.Add(denseLayer(growthRate, bnSize, dropout))
	}
	return out
}

// transition is Gluon's _make_transition: a batch norm, a ReLU, a 1x1
// convolution to channels and a 2x2 average pool of stride 2.
func transition(channels int) *nn.HybridSequential {
	return sequential("",
		nn.NewBatchNorm(), nn.NewActivation("relu"),
		nn.NewConv2D(channels, []int{1}, nn.ConvOptions{NoBias: true}),
		nn.NewAvgPool2D([]int{2}, nn.PoolOptions{Strides: []int{2}}))
}

// DenseNet is Gluon's DenseNet-BC (Densely Connected Convolutional
// Networks): Features, a 7x7 convolution, batch norm, ReLU and max pool,
// then dense blocks with a transition between two, a batch norm, a ReLU,
// a 7x7 average pool and a Flatten; and the Dense Output layer. The
// average pool needs 224x224 inputs.
type DenseNet struct {
	nn.HybridBlock
	Features *nn.HybridSequential
	Output   *nn.Dense
}

// NewDenseNet makes a DenseNet whose first convolution has
// numInitFeatures channels, whose dense layers each add growthRate
// channels (k in the paper) and whose dense blocks have blockConfig
// layers. Options.BNSize and Options.Dropout are Gluon's bn_size and
// dropout.
func NewDenseNet(numInitFeatures, growthRate int, blockConfig []int, opts ...Options) *DenseNet {
	o := oneOption("NewDenseNet", opts)
	if numInitFeatures <= 0 || growthRate <= 0 || len(blockConfig) == 0 {
		panic(fmt.Errorf("vision.NewDenseNet: numInitFeatures=%d, growthRate=%d and %d blocks must be positive",
			numInitFeatures, growthRate, len(blockConfig)))
	}
	if o.BNSize < 0 || o.Dropout < 0 || o.Dropout >= 1 {
		panic(fmt.Errorf("vision.NewDenseNet: BNSize=%d must not be negative and Dropout=%v must be in [0, 1)", o.BNSize, o.Dropout))
	}
	bnSize := o.BNSize
	if bnSize == 0 {
		bnSize = 4
	}
	features := sequential("",
		nn.NewConv2D(numInitFeatures, []int{7}, nn.ConvOptions{Strides: []int{2}, Padding: []int{3}, NoBias: true}),
		nn.NewBatchNorm(), nn.NewActivation("relu"),
		nn.NewMaxPool2D([]int{3}, nn.PoolOptions{Strides: []int{2}, Padding: []int{1}}))
	channels := numInitFeatures
	for i, layers := range blockConfig {
		features.Add(denseBlock(layers, bnSize, growthRate, o.Dropout, i+1))
		channels += layers * growthRate
		if i != len(blockConfig)-1 {
			channels /= 2
			features.Add(transition(channels))
		}
	}
	features.Add(nn.NewBatchNorm(), nn.NewActivation("relu"), nn.NewAvgPool2D([]int{7}), nn.NewFlatten())
	d := &DenseNet{Features: features, Output: nn.NewDense(o.classes())}
	d.Bind(d)
	return d
}

// HybridForward runs Features, then Output.
func (d *DenseNet) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	return d.Output.Forward(d.Features.Forward(x))
}

// GetDenseNet makes the DenseNet of 121, 161, 169 or 201 layers, Gluon's
// get_densenet.
func GetDenseNet(numLayers int, opts ...Options) (*DenseNet, error) {
	if _, ok := densenetSpec[numLayers]; !ok {
		return nil, fmt.Errorf("vision.GetDenseNet: no DenseNet of %d layers; the depths are 121, 161, 169 and 201", numLayers)
	}
	return densenet(numLayers, oneOption("GetDenseNet", opts)), nil
}

// densenet makes the DenseNet of a depth of densenetSpec.
func densenet(numLayers int, o Options) *DenseNet {
	spec := densenetSpec[numLayers]
	return NewDenseNet(spec.initFeatures, spec.growthRate, spec.blocks, o)
}

// DenseNet121 is Gluon's densenet121.
func DenseNet121(opts ...Options) *DenseNet { return densenet(121, oneOption("DenseNet121", opts)) }

// DenseNet161 is Gluon's densenet161.
func DenseNet161(opts ...Options) *DenseNet { return densenet(161, oneOption("DenseNet161", opts)) }

// DenseNet169 is Gluon's densenet169.
func DenseNet169(opts ...Options) *DenseNet { return densenet(169, oneOption("DenseNet169", opts)) }

// DenseNet201 is Gluon's densenet201.
func DenseNet201(opts ...Options) *DenseNet { return densenet(201, oneOption("DenseNet201", opts)) }
