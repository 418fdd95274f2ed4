package vision

import (
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/ops"
)

func init() {
	register("alexnet", func(o Options) Model { return NewAlexNet(o) })
}

// AlexNet is Gluon's AlexNet (One weird trick for parallelizing
// convolutional neural networks): Features, five convolutions with three
// max pools, then two Dense layers of 4096 with dropout; and the Dense
// Output layer. Its Dense layers need 224x224 inputs.
type AlexNet struct {
	nn.HybridBlock
	Features *nn.HybridSequential
	Output   *nn.Dense
}

// NewAlexNet makes an AlexNet (Gluon's alexnet).
func NewAlexNet(opts ...Options) *AlexNet {
	n := oneOption("NewAlexNet", opts).classes()
	conv := func(channels, kernel, stride, pad int) *nn.Conv2D {
		return nn.NewConv2D(channels, []int{kernel}, nn.ConvOptions{
			Strides: []int{stride}, Padding: []int{pad}, Act: "relu"})
	}
	pool := func() *nn.MaxPool2D { return nn.NewMaxPool2D([]int{3}, nn.PoolOptions{Strides: []int{2}}) }
	a := &AlexNet{
		Features: sequential("",
			conv(64, 11, 4, 2), pool(),
			conv(192, 5, 1, 2), pool(),
			conv(384, 3, 1, 1), conv(256, 3, 1, 1), conv(256, 3, 1, 1), pool(),
			nn.NewFlatten(),
			nn.NewDense(4096, nn.DenseOptions{Act: "relu"}), nn.NewDropout(0.5),
			nn.NewDense(4096, nn.DenseOptions{Act: "relu"}), nn.NewDropout(0.5)),
		Output: nn.NewDense(n),
	}
	a.Bind(a)
	return a
}

// HybridForward runs Features, then Output.
func (a *AlexNet) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	return a.Output.Forward(a.Features.Forward(x))
}
