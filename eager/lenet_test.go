package eager

import (
	"math"
	"testing"

	"github.com/hybridgo/hybridgo/ops"
)

// lenet is the network of MXNet's hybridize tutorial, written with eager
// ops: two convolution + max-pool stages, then three dense layers.
type lenet struct {
	conv1W, conv1B, conv2W, conv2B, fc1W, fc1B, fc2W, fc2B, fc3W *NDArray
}

func newLenet() *lenet {
	Seed(1)
	scaled := func(scale float64, shape ...int) *NDArray {
		return F.MulScalar(RandomNormal(shape...), scale).(*NDArray)
	}
	return &lenet{
		conv1W: scaled(0.2, 6, 1, 5, 5), conv1B: Zeros(6),
		conv2W: scaled(0.08, 16, 6, 5, 5), conv2B: Zeros(16),
		fc1W: scaled(0.05, 120, 256), fc1B: Zeros(120),
		fc2W: scaled(0.09, 84, 120), fc2B: Zeros(84),
		fc3W: scaled(0.1, 10, 84),
	}
}

func (n *lenet) params() []*NDArray {
	return []*NDArray{n.conv1W, n.conv1B, n.conv2W, n.conv2B, n.fc1W, n.fc1B, n.fc2W, n.fc2B, n.fc3W}
}

func (n *lenet) forward(x ops.Tensor) ops.Tensor {
	pool := func(x ops.Tensor) ops.Tensor {
		return F.Pooling(x, []int{2, 2}, "max", ops.Attr{Name: "stride", Value: []int{2, 2}})
	}
	x = pool(F.Relu(F.Convolution(x, n.conv1W, n.conv1B, []int{5, 5}, 6)))
	x = pool(F.Relu(F.Convolution(x, n.conv2W, n.conv2B, []int{5, 5}, 16)))
	x = F.Reshape(x, 0, -1)
	x = F.Relu(F.FullyConnected(x, n.fc1W, n.fc1B, 120))
	x = F.Relu(F.FullyConnected(x, n.fc2W, n.fc2B, 84))
	return F.Dot(x, n.fc3W, ops.TransposeB())
}

func TestLeNetForwardAndTrainingStep(t *testing.T) {
	net := newLenet()
	x := RandomNormal(16, 1, 28, 28)
	labels := Array([]float32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5})
	if s := net.forward(x).Shape(); !s.Equal(ops.Shape{16, 10}) {
		t.Fatalf("LeNet output shape %v, want 16x10", s)
	}
	for _, p := range net.params() {
		p.AttachGrad()
	}
	loss := func() *NDArray {
		var l *NDArray
		Record(func() {
			l = F.DivScalar(F.SoftmaxCrossEntropy(net.forward(x), labels), 16).(*NDArray)
		})
		return l
	}
	// Plain SGD on one batch must drive the loss down.
	first := loss()
	start := first.Scalar()
	if math.Abs(start-math.Log(10)) > 1 {
		t.Errorf("initial loss %v is far from log(10)", start)
	}
	l := first
	for step := 0; step < 15; step++ {
		if err := l.Backward(); err != nil {
			t.Fatal(err)
		}
		for _, p := range net.params() {
			upd := F.Sub(p, F.MulScalar(p.Grad(), 0.1)).(*NDArray)
			CopyFrom(p, upd)
		}
		l = loss()
	}
	if end := l.Scalar(); !(end < start*0.5) {
		t.Errorf("loss went from %v to %v in 15 SGD steps on one batch", start, end)
	}
}

// BenchmarkLeNetForward times the tutorial's LeNet forward on a 16x1x28x28
// batch, op by op (the eager path a block takes before it is hybridized).
func BenchmarkLeNetForward(b *testing.B) {
	net := newLenet()
	x := RandomNormal(16, 1, 28, 28)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		net.forward(x)
	}
}
