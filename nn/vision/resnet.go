package vision

import (
	"fmt"

	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/ops"
)

// The ResNets of "Deep Residual Learning for Image Recognition" (V1) and
// "Identity Mappings in Deep Residual Networks" (V2), Gluon's
// model_zoo.vision.resnet.

func init() {
	for _, depth := range []int{18, 34, 50, 101, 152} {
		for _, version := range []int{1, 2} {
			register(fmt.Sprintf("resnet%d_v%d", depth, version), func(o Options) Model {
				m, err := GetResNet(version, depth, o)
				if err != nil {
					panic(err)
				}
				return m
			})
		}
	}
}

// resnetSpec is Gluon's resnet_spec: the block kind, the blocks per stage
// and the channels (the stem's, then each stage's), by depth.
var resnetSpec = map[int]struct {
	block    string
	layers   []int
	channels []int
}{
	18:  {"basic_block", []int{2, 2, 2, 2}, []int{64, 64, 128, 256, 512}},
	34:  {"basic_block", []int{3, 4, 6, 3}, []int{64, 64, 128, 256, 512}},
	50:  {"bottle_neck", []int{3, 4, 6, 3}, []int{64, 256, 512, 1024, 2048}},
	101: {"bottle_neck", []int{3, 4, 23, 3}, []int{64, 256, 512, 1024, 2048}},
	152: {"bottle_neck", []int{3, 8, 36, 3}, []int{64, 256, 512, 1024, 2048}},
}

// GetResNet makes the ResNet of the given version (1 or 2) and depth (18,
// 34, 50, 101 or 152), Gluon's get_resnet.
func GetResNet(version, numLayers int, opts ...Options) (Model, error) {
	o := oneOption("GetResNet", opts)
	spec, ok := resnetSpec[numLayers]
	if !ok {
		return nil, fmt.Errorf("vision.GetResNet: no ResNet of %d layers; the depths are 18, 34, 50, 101 and 152", numLayers)
	}
	switch version {
	case 1:
		return NewResNetV1(spec.block, spec.layers, spec.channels, o), nil
	case 2:
		return NewResNetV2(spec.block, spec.layers, spec.channels, o), nil
	}
	return nil, fmt.Errorf("vision.GetResNet: version %d; want 1 or 2", version)
}

// ResNet18V1 is Gluon's resnet18_v1.
func ResNet18V1(opts ...Options) *ResNetV1 { return resnetV1(18, opts) }

// ResNet34V1 is Gluon's resnet34_v1.
func ResNet34V1(opts ...Options) *ResNetV1 { return resnetV1(34, opts) }

// ResNet50V1 is Gluon's resnet50_v1.
func ResNet50V1(opts ...Options) *ResNetV1 { return resnetV1(50, opts) }

// ResNet101V1 is Gluon's resnet101_v1.
func ResNet101V1(opts ...Options) *ResNetV1 { return resnetV1(101, opts) }

// ResNet152V1 is Gluon's resnet152_v1.
func ResNet152V1(opts ...Options) *ResNetV1 { return resnetV1(152, opts) }

// ResNet18V2 is Gluon's resnet18_v2.
func ResNet18V2(opts ...Options) *ResNetV2 { return resnetV2(18, opts) }

// ResNet34V2 is Gluon's resnet34_v2.
func ResNet34V2(opts ...Options) *ResNetV2 { return resnetV2(34, opts) }

// ResNet50V2 is Gluon's resnet50_v2.
func ResNet50V2(opts ...Options) *ResNetV2 { return resnetV2(50, opts) }

// ResNet101V2 is Gluon's resnet101_v2.
func ResNet101V2(opts ...Options) *ResNetV2 { return resnetV2(101, opts) }

// ResNet152V2 is Gluon's resnet152_v2.
func ResNet152V2(opts ...Options) *ResNetV2 { return resnetV2(152, opts) }

func resnetV1(depth int, opts []Options) *ResNetV1 {
	s := resnetSpec[depth]
	return NewResNetV1(s.block, s.layers, s.channels, oneOption(fmt.Sprintf("ResNet%dV1", depth), opts))
}

func resnetV2(depth int, opts []Options) *ResNetV2 {
	s := resnetSpec[depth]
	return NewResNetV2(s.block, s.layers, s.channels, oneOption(fmt.Sprintf("ResNet%dV2", depth), opts))
}

// seq makes a HybridSequential with Gluon's prefix: "" shares the
// parent's names, "stage1_" names a stage.
func seq(prefix string, layers ...nn.HybridForwarder) *nn.HybridSequential {
	s := nn.NewHybridSequential(layers...)
	s.SetPrefix(prefix)
	return s
}

// plus adds the shortcut, its node named as MXNet names Symbol's x + y
// ("resnetv10_stage1__plus0").
func plus(F ops.F, a, b ops.Tensor) ops.Tensor {
	countNext(F, "_plus")
	return F.ElemwiseAdd(a, b)
}

// countNext names the next node traced by F with a counted stem, as
// MXNet names the nodes of Symbol's operators: "_plus0" for x + y,
// "_mulscalar0" for x * 2. Eagerly it does nothing.
func countNext(F ops.F, stem string) {
	if t, ok := F.Interpreter().(*graph.Tracer); ok {
		t.CountNext(stem)
	}
}

// conv3x3 is a 3x3 convolution without bias, padded to keep the size at
// stride 1 (Gluon's _conv3x3).
func conv3x3(channels, stride, inChannels int) *nn.Conv2D {
	return nn.NewConv2D(channels, []int{3}, nn.ConvOptions{Strides: []int{stride}, Padding: []int{1}, NoBias: true, InChannels: inChannels})
}

// conv1x1 is a 1x1 convolution, with a bias unless noBias.
func conv1x1(channels, stride, inChannels int, noBias bool) *nn.Conv2D {
	return nn.NewConv2D(channels, []int{1}, nn.ConvOptions{Strides: []int{stride}, NoBias: noBias, InChannels: inChannels})
}

// ResNetV1 is the ResNet V1 network: Features (the stem, the four stages
// and the global pooling) and Output, a Dense of Classes units.
type ResNetV1 struct {
	nn.HybridBlock
	Features *nn.HybridSequential
	Output   *nn.Dense
}

// NewResNetV1 makes a ResNet V1 of the given block kind ("basic_block" or
// "bottle_neck"), blocks per stage and channels (the stem's, then each
// stage's), Gluon's ResNetV1.
func NewResNetV1(block string, layers, channels []int, opts ...Options) *ResNetV1 {
	o := oneOption("NewResNetV1", opts)
	newBlock := residualBlock("NewResNetV1", block, 1)
	checkStages("NewResNetV1", layers, channels)
	features := seq("")
	addStemAndStages(features, o.Thumbnail, newBlock, layers, channels)
	features.Add(nn.NewGlobalAvgPool2D())
	r := &ResNetV1{Features: features, Output: nn.NewDense(o.classes(), nn.DenseOptions{InUnits: channels[len(channels)-1]})}
	r.Bind(r)
	return r
}

// HybridForward runs the features and the output layer.
func (r *ResNetV1) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	return r.Output.Forward(r.Features.Forward(x))
}

// ResNetV2 is the ResNet V2 network (pre-activation blocks): Features
// (an input BatchNorm, the stem, the four stages, BatchNorm, relu, the
// global pooling, Flatten) and Output, a Dense of Classes units.
type ResNetV2 struct {
	nn.HybridBlock
	Features *nn.HybridSequential
	Output   *nn.Dense
}

// NewResNetV2 makes a ResNet V2 of the given block kind ("basic_block" or
// "bottle_neck"), blocks per stage and channels, Gluon's ResNetV2.
func NewResNetV2(block string, layers, channels []int, opts ...Options) *ResNetV2 {
	o := oneOption("NewResNetV2", opts)
	newBlock := residualBlock("NewResNetV2", block, 2)
	checkStages("NewResNetV2", layers, channels)
	features := seq("", nn.NewBatchNorm(nn.BatchNormOptions{NoScale: true, NoCenter: true}))
	addStemAndStages(features, o.Thumbnail, newBlock, layers, channels)
	features.Add(nn.NewBatchNorm(), nn.NewActivation("relu"), nn.NewGlobalAvgPool2D(), nn.NewFlatten())
	r := &ResNetV2{Features: features, Output: nn.NewDense(o.classes(), nn.DenseOptions{InUnits: channels[len(channels)-1]})}
	r.Bind(r)
	return r
}

// HybridForward runs the features and the output layer.
func (r *ResNetV2) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	return r.Output.Forward(r.Features.Forward(x))
}

// blockFunc makes one residual block: channels out, the stride of its
// first convolution, whether the shortcut is projected, channels in.
type blockFunc func(channels, stride int, downsample bool, inChannels int) nn.HybridForwarder

// residualBlock returns the constructor of a block kind of a version.
func residualBlock(caller, kind string, version int) blockFunc {
	switch {
	case kind == "basic_block" && version == 1:
		return func(c, s int, d bool, in int) nn.HybridForwarder { return NewBasicBlockV1(c, s, d, in) }
	case kind == "bottle_neck" && version == 1:
		return func(c, s int, d bool, in int) nn.HybridForwarder { return NewBottleneckV1(c, s, d, in) }
	case kind == "basic_block":
		return func(c, s int, d bool, in int) nn.HybridForwarder { return NewBasicBlockV2(c, s, d, in) }
	case kind == "bottle_neck":
		return func(c, s int, d bool, in int) nn.HybridForwarder { return NewBottleneckV2(c, s, d, in) }
	}
	panic(fmt.Errorf("vision.%s: block %q; want \"basic_block\" or \"bottle_neck\"", caller, kind))
}

// checkStages checks that there is one more channel count than stages
// and that every count is positive.
func checkStages(caller string, layers, channels []int) {
	if len(layers) == 0 || len(channels) != len(layers)+1 {
		panic(fmt.Errorf("vision.%s: %d stages and %d channel counts; want one channel count more than stages (the stem's first)", caller, len(layers), len(channels)))
	}
	for _, n := range append(append([]int(nil), layers...), channels...) {
		if n <= 0 {
			panic(fmt.Errorf("vision.%s: stages %v, channels %v: every count must be positive", caller, layers, channels))
		}
	}
}

// addStemAndStages adds the stem (a 7x7 strided convolution, BatchNorm,
// relu and max pooling; or, for thumbnails, a 3x3 convolution) and the
// stages to features; stages after the first halve the size.
func addStemAndStages(features *nn.HybridSequential, thumbnail bool, newBlock blockFunc, layers, channels []int) {
	if thumbnail {
		features.Add(conv3x3(channels[0], 1, 0))
	} else {
		features.Add(
			nn.NewConv2D(channels[0], []int{7}, nn.ConvOptions{Strides: []int{2}, Padding: []int{3}, NoBias: true}),
			nn.NewBatchNorm(), nn.NewActivation("relu"),
			nn.NewMaxPool2D([]int{3}, nn.PoolOptions{Strides: []int{2}, Padding: []int{1}}))
	}
	for i, n := range layers {
		features.Add(stage(newBlock, n, channels[i+1], min(i, 1)+1, i+1, channels[i]))
	}
}

// stage makes a stage of n blocks named "stageK_" (Gluon's _make_layer):
// the first one strides and projects its shortcut when the channels
// change, the others keep the size.
func stage(newBlock blockFunc, n, channels, stride, index, inChannels int) *nn.HybridSequential {
	s := seq(fmt.Sprintf("stage%d_", index), newBlock(channels, stride, channels != inChannels, inChannels))
	for range n - 1 {
		s.Add(newBlock(channels, 1, false, channels))
	}
	return s
}

// projectionV1 is the shortcut of a V1 block that downsamples (a strided
// 1x1 convolution and BatchNorm), or nil.
func projectionV1(downsample bool, channels, stride, inChannels int) *nn.HybridSequential {
	if !downsample {
		return nil
	}
	return seq("", conv1x1(channels, stride, inChannels, true), nn.NewBatchNorm())
}

// projectionV2 is the shortcut of a V2 block that downsamples (a strided
// 1x1 convolution), or nil.
func projectionV2(downsample bool, channels, stride, inChannels int) *nn.Conv2D {
	if !downsample {
		return nil
	}
	return conv1x1(channels, stride, inChannels, true)
}

// forwardV1 is the forward of the V1 blocks: relu(body(x) + shortcut),
// the shortcut x or, when downsample is not nil, downsample(x).
func forwardV1(F ops.F, body, downsample *nn.HybridSequential, x ops.Tensor) ops.Tensor {
	residual := x
	x = body.Forward(x)
	if downsample != nil {
		residual = downsample.Forward(residual)
	}
	return F.Activation(plus(F, residual, x), "relu")
}

// BasicBlockV1 is the residual block of ResNet V1 18 and 34: two 3x3
// convolutions with BatchNorm in Body, added to the input (projected by
// Downsample when it is not nil), then relu.
type BasicBlockV1 struct {
	nn.HybridBlock
	Body       *nn.HybridSequential
	Downsample *nn.HybridSequential
}

// NewBasicBlockV1 makes a BasicBlockV1 of channels outputs whose first
// convolution has the given stride; downsample projects the shortcut with
// a strided 1x1 convolution. inChannels 0 is inferred from the data.
func NewBasicBlockV1(channels, stride int, downsample bool, inChannels int) *BasicBlockV1 {
	b := &BasicBlockV1{Body: seq("",
		conv3x3(channels, stride, inChannels), nn.NewBatchNorm(), nn.NewActivation("relu"),
		conv3x3(channels, 1, channels), nn.NewBatchNorm()),
		Downsample: projectionV1(downsample, channels, stride, inChannels)}
	b.Bind(b)
	b.SetPrefix("")
	return b
}

// HybridForward computes relu(body(x) + shortcut(x)).
func (b *BasicBlockV1) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	return forwardV1(F, b.Body, b.Downsample, x)
}

// BottleneckV1 is the residual block of ResNet V1 50, 101 and 152: 1x1
// (strided), 3x3 and 1x1 convolutions with BatchNorm in Body, the first
// and last with a bias as in Gluon, added to the input (projected by
// Downsample when it is not nil), then relu.
type BottleneckV1 struct {
	nn.HybridBlock
	Body       *nn.HybridSequential
	Downsample *nn.HybridSequential
}

// NewBottleneckV1 makes a BottleneckV1 of channels outputs (channels/4
// inside) whose first convolution has the given stride; downsample
// projects the shortcut. inChannels 0 is inferred from the data.
func NewBottleneckV1(channels, stride int, downsample bool, inChannels int) *BottleneckV1 {
	b := &BottleneckV1{Body: seq("",
		conv1x1(channels/4, stride, 0, false), nn.NewBatchNorm(), nn.NewActivation("relu"),
		conv3x3(channels/4, 1, channels/4), nn.NewBatchNorm(), nn.NewActivation("relu"),
		conv1x1(channels, 1, 0, false), nn.NewBatchNorm()),
		Downsample: projectionV1(downsample, channels, stride, inChannels)}
	b.Bind(b)
	b.SetPrefix("")
	return b
}

// HybridForward computes relu(body(x) + shortcut(x)).
func (b *BottleneckV1) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	return forwardV1(F, b.Body, b.Downsample, x)
}

// BasicBlockV2 is the pre-activation residual block of ResNet V2 18 and
// 34: BN1, relu, Conv1 (strided), BN2, relu, Conv2, added to the input
// (or to Downsample of the activated input when it is not nil).
type BasicBlockV2 struct {
	nn.HybridBlock
	BN1        *nn.BatchNorm
	Conv1      *nn.Conv2D
	BN2        *nn.BatchNorm
	Conv2      *nn.Conv2D
	Downsample *nn.Conv2D
}

// NewBasicBlockV2 makes a BasicBlockV2 of channels outputs whose first
// convolution has the given stride; downsample projects the shortcut.
// inChannels 0 is inferred from the data.
func NewBasicBlockV2(channels, stride int, downsample bool, inChannels int) *BasicBlockV2 {
	b := &BasicBlockV2{
		BN1: nn.NewBatchNorm(), Conv1: conv3x3(channels, stride, inChannels),
		BN2: nn.NewBatchNorm(), Conv2: conv3x3(channels, 1, channels),
		Downsample: projectionV2(downsample, channels, stride, inChannels),
	}
	b.Bind(b)
	b.SetPrefix("")
	return b
}

// HybridForward computes conv2(relu(bn2(conv1(a)))) + shortcut, a =
// relu(bn1(x)).
func (b *BasicBlockV2) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	residual := x
	x = F.Activation(b.BN1.Forward(x), "relu")
	if b.Downsample != nil {
		residual = b.Downsample.Forward(x)
	}
	x = F.Activation(b.BN2.Forward(b.Conv1.Forward(x)), "relu")
	return plus(F, b.Conv2.Forward(x), residual)
}

// BottleneckV2 is the pre-activation residual block of ResNet V2 50, 101
// and 152: BN1, relu, Conv1 (1x1), BN2, relu, Conv2 (3x3, strided), BN3,
// relu, Conv3 (1x1), added to the input (or to Downsample of the
// activated input when it is not nil).
type BottleneckV2 struct {
	nn.HybridBlock
	BN1        *nn.BatchNorm
	Conv1      *nn.Conv2D
	BN2        *nn.BatchNorm
	Conv2      *nn.Conv2D
	BN3        *nn.BatchNorm
	Conv3      *nn.Conv2D
	Downsample *nn.Conv2D
}

// NewBottleneckV2 makes a BottleneckV2 of channels outputs (channels/4
// inside) whose 3x3 convolution has the given stride; downsample projects
// the shortcut. inChannels 0 is inferred from the data.
func NewBottleneckV2(channels, stride int, downsample bool, inChannels int) *BottleneckV2 {
	b := &BottleneckV2{
		BN1: nn.NewBatchNorm(), Conv1: conv1x1(channels/4, 1, 0, true),
		BN2: nn.NewBatchNorm(), Conv2: conv3x3(channels/4, stride, channels/4),
		BN3: nn.NewBatchNorm(), Conv3: conv1x1(channels, 1, 0, true),
		Downsample: projectionV2(downsample, channels, stride, inChannels),
	}
	b.Bind(b)
	b.SetPrefix("")
	return b
}

// HybridForward computes the three pre-activated convolutions plus the
// shortcut.
func (b *BottleneckV2) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	residual := x
	x = F.Activation(b.BN1.Forward(x), "relu")
	if b.Downsample != nil {
		residual = b.Downsample.Forward(x)
	}
	x = F.Activation(b.BN2.Forward(b.Conv1.Forward(x)), "relu")
	x = F.Activation(b.BN3.Forward(b.Conv2.Forward(x)), "relu")
	return plus(F, b.Conv3.Forward(x), residual)
}
