package nn_test

import (
	"fmt"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/ops"
)

// BenchmarkSmallMLPForward is the per-call cost of a small block, where
// overhead rather than arithmetic dominates: eager op by op, and hybridized
// (one cached graph call).
func BenchmarkSmallMLPForward(b *testing.B) {
	for _, hybrid := range []bool{false, true} {
		name := "eager"
		if hybrid {
			name = "hybridized"
		}
		b.Run(name, func(b *testing.B) {
			net := nn.NewHybridSequential(nn.NewDense(32, nn.DenseOptions{Act: "relu"}), nn.NewDense(32, nn.DenseOptions{Act: "relu"}), nn.NewDense(10))
			net.Initialize()
			x := eager.RandomNormal(1, 16)
			net.Forward(x)
			if hybrid {
				net.Hybridize(nn.HybridizeOptions{StaticAlloc: true})
				net.Forward(x)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				net.Forward(x)
			}
		})
	}
}

type manyOps struct {
	nn.HybridBlock
	Fc *nn.Dense
}

func (m *manyOps) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	x = m.Fc.Forward(x)
	for i := 0; i < 20; i++ {
		x = F.Tanh(F.MulScalar(x, 0.9))
	}
	return x
}

// BenchmarkManySmallOps is a block of 41 small ops on 16x32: eager pays a
// dispatch per op, hybridized runs one fused loop.
func BenchmarkManySmallOps(b *testing.B) {
	for _, hybrid := range []bool{false, true} {
		name := "eager"
		if hybrid {
			name = "hybridized"
		}
		b.Run(name, func(b *testing.B) {
			m := &manyOps{Fc: nn.NewDense(32)}
			m.Bind(m, "manyops")
			m.Initialize()
			x := eager.RandomNormal(16, 32)
			if hybrid {
				m.Hybridize()
			}
			m.Forward(x)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				m.Forward(x)
			}
		})
	}
}

// newBenchLeNet is the LeNet of MXNet's hybridize tutorial.
func newBenchLeNet() *nn.HybridSequential {
	relu := nn.ConvOptions{Act: "relu"}
	return nn.NewHybridSequential(
		nn.NewConv2D(6, []int{5}, relu), nn.NewMaxPool2D([]int{2}),
		nn.NewConv2D(16, []int{5}, relu), nn.NewMaxPool2D([]int{2}),
		nn.NewFlatten(),
		nn.NewDense(120, nn.DenseOptions{Act: "relu"}),
		nn.NewDense(84, nn.DenseOptions{Act: "relu"}),
		nn.NewDense(10),
	)
}

// BenchmarkLeNetForward is LeNet's forward at batch 16, eager and
// hybridized: small convolutions where packing, im2col and element-wise
// loops weigh as much as the arithmetic.
func BenchmarkLeNetForward(b *testing.B) {
	for _, hybrid := range []bool{false, true} {
		name := "eager"
		if hybrid {
			name = "hybridized"
		}
		b.Run(name, func(b *testing.B) {
			net := newBenchLeNet()
			net.Initialize()
			x := eager.RandomNormal(16, 1, 28, 28)
			if hybrid {
				net.Hybridize()
			}
			net.Forward(x)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				net.Forward(x)
			}
		})
	}
}

// BenchmarkLeNetTrainStep is one recorded forward and backward of LeNet at
// batch 16, hybridized.
func BenchmarkLeNetTrainStep(b *testing.B) {
	net := newBenchLeNet()
	net.Initialize()
	net.Hybridize()
	lossFn := nn.NewSoftmaxCrossEntropyLoss()
	x := eager.RandomNormal(16, 1, 28, 28)
	labels := make([]float32, 16)
	for i := range labels {
		labels[i] = float32(i % 10)
	}
	y := eager.Array(labels, 16)
	step := func() {
		var loss *eager.NDArray
		eager.Record(func() {
			loss = lossFn.Loss(net.Forward(x), y).(*eager.NDArray)
		})
		if err := loss.Backward(); err != nil {
			b.Fatal(err)
		}
	}
	step()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		step()
	}
}

// BenchmarkMLPForward is a 784-256-256-10 perceptron, hybridized, at batch
// 1 (products of one row: dot products, no packing) and batch 64.
func BenchmarkMLPForward(b *testing.B) {
	for _, batch := range []int{1, 64} {
		b.Run(fmt.Sprintf("b%d", batch), func(b *testing.B) {
			net := nn.NewHybridSequential(
				nn.NewDense(256, nn.DenseOptions{Act: "relu"}),
				nn.NewDense(256, nn.DenseOptions{Act: "relu"}),
				nn.NewDense(10),
			)
			net.Initialize()
			net.Hybridize()
			x := eager.RandomNormal(batch, 784)
			net.Forward(x)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				net.Forward(x)
			}
		})
	}
}
