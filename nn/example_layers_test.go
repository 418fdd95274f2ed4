package nn_test

import (
	"fmt"
	"strings"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/internal/optest"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/ops"
)

// ResidualBlock is ResNet's basic block: two 3x3 convolutions, each
// followed by batch normalisation (the first also by a relu), added to a
// shortcut, then a relu. The shortcut is the identity, or a 1x1
// convolution with the block's stride when the channels or the size change.
type ResidualBlock struct {
	nn.HybridBlock
	Conv1, Conv2 *nn.Conv2D
	BN1, BN2     *nn.BatchNorm
	Shortcut     *nn.Conv2D // nil for the identity
}

// NewResidualBlock makes a block with channels outputs from inChannels
// inputs, with the given stride.
func NewResidualBlock(channels, inChannels, stride int) *ResidualBlock {
	r := &ResidualBlock{
		Conv1: nn.NewConv2D(channels, []int{3}, nn.ConvOptions{Strides: []int{stride}, Padding: []int{1}, NoBias: true}),
		BN1:   nn.NewBatchNorm(),
		Conv2: nn.NewConv2D(channels, []int{3}, nn.ConvOptions{Padding: []int{1}, NoBias: true}),
		BN2:   nn.NewBatchNorm(),
	}
	if channels != inChannels || stride != 1 {
		r.Shortcut = nn.NewConv2D(channels, []int{1}, nn.ConvOptions{Strides: []int{stride}, NoBias: true})
	}
	r.Bind(r, "residualblock")
	return r
}

func (r *ResidualBlock) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	y := F.Relu(r.BN1.Forward(r.Conv1.Forward(x)))
	y = r.BN2.Forward(r.Conv2.Forward(y))
	shortcut := x
	if r.Shortcut != nil {
		shortcut = r.Shortcut.Forward(x)
	}
	return F.Relu(F.Add(y, shortcut))
}

func ExampleResidualBlock() {
	eager.Seed(7)
	net := nn.NewHybridSequential(
		NewResidualBlock(8, 8, 1),  // identity shortcut
		NewResidualBlock(16, 8, 2), // 1x1 convolution shortcut
	)
	net.Initialize(nn.InitializeOptions{Init: nn.Xavier()})
	x := eager.RandomNormal(2, 8, 16, 16)

	// Eagerly, block by block.
	h := x
	for i, l := range net.Layers {
		h = l.(*ResidualBlock).Forward(h).(*eager.NDArray)
		fmt.Printf("block %d: %v\n", i, h.Shape())
	}
	y1 := net.Forward(x).(*eager.NDArray)

	// Hybridized: one graph for the whole stack.
	net.Hybridize()
	y2 := net.Forward(x).(*eager.NDArray)
	fmt.Println("hybridized:", y2.Shape(), "same as eager:", optest.FirstDiff(y2.Float64s(), y1.Float64s(), 1e-5, 1e-6) < 0)

	// The second block's shortcut convolution.
	for _, name := range net.CollectParams(".*residualblock1_conv2.*").Names() {
		p := net.CollectParams().Get(name)
		fmt.Println(strings.TrimPrefix(name, net.Prefix()), p.Shape())
	}
	// Output:
	// block 0: 2x8x16x16
	// block 1: 2x16x8x8
	// hybridized: 2x16x8x8 same as eager: true
	// residualblock1_conv2_weight 16x8x1x1
}

func ExampleNewBatchNorm() {
	bn := nn.NewBatchNorm()
	bn.Initialize()
	x := eager.Array([]float32{1, 10, 3, 20, 5, 30, 7, 40}, 4, 2)

	// Training (recorded, or in eager.TrainMode) normalises with the batch
	// statistics and updates the running ones.
	var y *eager.NDArray
	eager.Record(func() { y = bn.Forward(x).(*eager.NDArray) })
	fmt.Printf("%.3f\n", y.Float32s())
	for _, p := range bn.CollectParams().List() {
		fmt.Printf("%s %s %.3f\n", strings.TrimPrefix(p.Name(), bn.Prefix()), p.Shape().Tuple(), p.Data().Float32s())
	}

	// Prediction uses the running statistics.
	fmt.Printf("%.3f\n", bn.Forward(eager.Array([]float32{0.4, 2.5}, 1, 2)).(*eager.NDArray).Float32s())
	// Output:
	// [-1.342 -1.342 -0.447 -0.447 0.447 0.447 1.342 1.342]
	// gamma (2,) [1.000 1.000]
	// beta (2,) [0.000 0.000]
	// running_mean (2,) [0.400 2.500]
	// running_var (2,) [1.400 13.400]
	// [0.000 0.000]
}

func ExampleNewEmbedding() {
	emb := nn.NewEmbedding(4, 3)
	emb.Initialize()
	// Row i holds i, i+0.1, i+0.2.
	emb.Weight.SetData(eager.Array([]float32{0, 0.1, 0.2, 1, 1.1, 1.2, 2, 2.1, 2.2, 3, 3.1, 3.2}, 4, 3))

	idx := eager.Array([]float32{3, 0, 2, 2}, 2, 2)
	y := emb.Forward(idx).(*eager.NDArray)
	fmt.Println(y.Shape())
	fmt.Printf("%.1f\n", y.Float32s())
	fmt.Println(emb.Weight.Shape(), strings.TrimPrefix(emb.Weight.Name(), emb.Prefix()))
	// Output:
	// 2x2x3
	// [3.0 3.1 3.2 0.0 0.1 0.2 2.0 2.1 2.2 2.0 2.1 2.2]
	// 4x3 weight
}

func ExampleNewConv2DTranspose() {
	up := nn.NewConv2DTranspose(4, []int{3}, nn.ConvOptions{Strides: []int{2}, Padding: []int{1}, OutputPadding: []int{1}})
	up.Initialize()
	y := up.Forward(eager.Ones(1, 6, 5, 5))
	// (5-1)*2 - 2*1 + 3 + 1 = 10; the weight is (in_channels, channels, kh, kw).
	fmt.Println(y.Shape(), up.Weight.Shape())
	// Output:
	// 1x4x10x10 6x4x3x3
}

// A ResNet stem: a 7x7 convolution with stride 2 and padding 3, then a
// 3x3 max pool with stride 2 and padding 1. Every layer takes Gluon's
// required arguments and one options value; a size given once serves
// every spatial dim.
func ExampleNewMaxPool2D() {
	stem := nn.NewHybridSequential(
		nn.NewConv2D(64, []int{7}, nn.ConvOptions{Strides: []int{2}, Padding: []int{3}, NoBias: true}),
		nn.NewBatchNorm(),
		nn.NewActivation("relu"),
		nn.NewMaxPool2D([]int{3}, nn.PoolOptions{Strides: []int{2}, Padding: []int{1}}),
	)
	stem.Initialize()
	fmt.Println(stem.Forward(eager.Ones(1, 3, 224, 224)).Shape())
	// Output:
	// 1x64x56x56
}

func ExampleNewHybridLambda() {
	double := nn.NewHybridLambda(func(F ops.F, x ops.Tensor) ops.Tensor { return F.MulScalar(x, 2) })
	net := nn.NewHybridSequential(double, nn.NewActivation("relu"))
	net.Hybridize()
	fmt.Println(net.Forward(eager.Array([]float32{-1, 0.5, 2}, 3)).(*eager.NDArray).Float32s())
	// Output:
	// [0 1 4]
}

func ExampleNewGroupNorm() {
	// A style-transfer block: reflection padding, a convolution without
	// padding, and a normalisation per sample.
	block := nn.NewHybridSequential(
		nn.NewReflectionPad2D(1),
		nn.NewConv2D(8, []int{3}),
		nn.NewGroupNorm(nn.GroupNormOptions{NumGroups: 4}),
		nn.NewInstanceNorm(nn.InstanceNormOptions{Scale: true}),
	)
	block.Initialize()
	block.Hybridize()
	fmt.Println(block.Forward(eager.Ones(2, 3, 16, 16)).Shape())
	// Output:
	// 2x8x16x16
}
