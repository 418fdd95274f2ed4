package nn_test

import (
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

// BenchmarkLeNetPredictByMode is one forward of the tutorial's LeNet at batch
// 16 outside Record: eager, hybridized, and hybridized with StaticAlloc
// (and StaticShape). Compare the B/op column.
func BenchmarkLeNetPredictByMode(b *testing.B) {
	for _, c := range []struct {
		name   string
		hybrid bool
		opts   nn.HybridizeOptions
	}{
		{"eager", false, nn.HybridizeOptions{}},
		{"hybridized", true, nn.HybridizeOptions{}},
		{"static", true, nn.HybridizeOptions{StaticAlloc: true, StaticShape: true}},
	} {
		b.Run(c.name, func(b *testing.B) {
			net := NewNet()
			net.Initialize()
			x := eager.RandomNormal(16, 1, 28, 28)
			if c.hybrid {
				net.Hybridize(c.opts)
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

// newBenchLeNet is the tutorial's LeNet as a HybridSequential, initialised
// by one eager forward of x.
func newBenchLeNet(x *eager.NDArray) *nn.HybridSequential {
	net := nn.NewHybridSequential(
		nn.NewConv2D(6, []int{5}, nn.ConvOptions{Act: "relu"}), nn.NewMaxPool2D([]int{2}),
		nn.NewConv2D(16, []int{5}, nn.ConvOptions{Act: "relu"}), nn.NewMaxPool2D([]int{2}),
		nn.NewDense(120, nn.DenseOptions{Act: "relu"}), nn.NewDense(84, nn.DenseOptions{Act: "relu"}), nn.NewDense(10))
	if err := net.Initialize(); err != nil {
		panic(err)
	}
	net.Forward(x)
	return net
}

// BenchmarkLeNetPredict is one forward of LeNet at batch 16 in predict
// mode, hybridized with StaticAlloc and StaticShape: once planned, a call
// should allocate nothing.
func BenchmarkLeNetPredict(b *testing.B) {
	eager.Seed(3)
	x := eager.RandomNormal(16, 1, 28, 28)
	net := newBenchLeNet(x)
	net.Hybridize(nn.HybridizeOptions{StaticAlloc: true, StaticShape: true})
	net.Forward(x)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		net.Forward(x)
	}
}

// BenchmarkLeNetTrainStep is one recorded forward and backward of LeNet at
// batch 16, hybridized with StaticAlloc and StaticShape: the hybridized
// call is one node of the autograd tape, which keeps its own values.
func BenchmarkLeNetTrainStep(b *testing.B) {
	eager.Seed(3)
	x := eager.RandomNormal(16, 1, 28, 28)
	net := newBenchLeNet(x)
	net.Hybridize(nn.HybridizeOptions{StaticAlloc: true, StaticShape: true})
	for _, p := range net.CollectParams().List() {
		p.Data().AttachGrad()
	}
	head := eager.Ones(16, 10)
	step := func() {
		var out *eager.NDArray
		eager.Record(func() { out = net.Forward(x).(*eager.NDArray) })
		if err := out.Backward(head); err != nil {
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
