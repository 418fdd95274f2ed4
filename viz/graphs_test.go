package viz_test

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/ops"
)

// lenet traces the LeNet of MXNet's hybridize tutorial with F.
func lenet(t testing.TB) *graph.Graph {
	t.Helper()
	tr := graph.NewTracer()
	F := tr.F()
	p := map[string]ops.Tensor{}
	for name, s := range map[string]ops.Shape{
		"conv0_weight": {6, 1, 5, 5}, "conv0_bias": {6}, "conv1_weight": {16, 6, 5, 5}, "conv1_bias": {16},
		"dense0_weight": {120, 256}, "dense0_bias": {120}, "dense1_weight": {84, 120}, "dense1_bias": {84},
		"fc3_weight": {10, 84},
	} {
		p[name] = graph.Var(name, s, ops.Float32)
	}
	pool := func(x ops.Tensor) ops.Tensor {
		return F.Pooling(x, []int{2, 2}, "max", ops.Attr{Name: "stride", Value: []int{2, 2}})
	}
	x := ops.Tensor(graph.Var("data", ops.Shape{16, 1, 28, 28}, ops.Float32))
	x = pool(F.Relu(F.Convolution(x, p["conv0_weight"], p["conv0_bias"], []int{5, 5}, 6)))
	x = pool(F.Relu(F.Convolution(x, p["conv1_weight"], p["conv1_bias"], []int{5, 5}, 16)))
	x = F.Reshape(x, 0, -1)
	x = F.Relu(F.FullyConnected(x, p["dense0_weight"], p["dense0_bias"], 120))
	x = F.Relu(F.FullyConnected(x, p["dense1_weight"], p["dense1_bias"], 84))
	y := F.Dot(x, p["fc3_weight"], ops.TransposeB())
	return y.(*graph.Symbol).Graph()
}

// residualBlock is ResNet's basic block.
type residualBlock struct {
	nn.HybridBlock
	Conv1, Conv2 *nn.Conv2D
	BN1, BN2     *nn.BatchNorm
	Shortcut     *nn.Conv2D
}

func newResidualBlock(channels, inChannels, stride int) *residualBlock {
	r := &residualBlock{
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

func (r *residualBlock) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	y := F.Relu(r.BN1.Forward(r.Conv1.Forward(x)))
	y = r.BN2.Forward(r.Conv2.Forward(y))
	shortcut := x
	if r.Shortcut != nil {
		shortcut = r.Shortcut.Forward(x)
	}
	return F.Relu(F.Add(y, shortcut))
}

// resnet traces a small ResNet: a stem convolution, three residual
// blocks, pooling and a dense classifier.
func resnet(t testing.TB) *graph.Graph {
	t.Helper()
	net := nn.NewHybridSequential(
		nn.NewConv2D(8, []int{3}, nn.ConvOptions{Padding: []int{1}}),
		newResidualBlock(8, 8, 1),
		newResidualBlock(16, 8, 2),
		newResidualBlock(16, 16, 1),
		nn.NewGlobalAvgPool2D(),
		nn.NewDense(10),
	)
	net.Initialize()
	sym, err := net.Trace([]ops.Shape{{4, 3, 16, 16}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return sym.Graph()
}

// randomDAG makes a graph of n nodes: a few inputs, then element-wise
// ops of one or two earlier nodes (picked near the end, as networks
// are), some with a parameter.
func randomDAG(rng *rand.Rand, n int) *graph.Graph {
	tr := graph.NewTracer()
	F := tr.F()
	shape := ops.Shape{2, 3}
	var ts []ops.Tensor
	inputs := 1 + rng.Intn(3)
	for i := 0; i < inputs; i++ {
		ts = append(ts, graph.Var(fmt.Sprintf("data%d", i), shape, ops.Float32))
	}
	pick := func() ops.Tensor {
		k := len(ts) - 1 - int(rng.ExpFloat64()*3)
		if k < 0 {
			k = rng.Intn(len(ts))
		}
		return ts[k]
	}
	used := map[ops.Tensor]bool{}
	for len(ts) < n {
		var y ops.Tensor
		switch r := rng.Intn(5); {
		case r == 0:
			y = F.Relu(pick())
		case r == 1:
			y = F.Add(pick(), graph.Var(fmt.Sprintf("p%d_weight", len(ts)), shape, ops.Float32))
		default:
			a, b := pick(), pick()
			used[b] = true
			y = F.Mul(a, b)
		}
		ts = append(ts, y)
	}
	// Every op that nothing reads is an output.
	read := map[*graph.Node]bool{}
	var syms []*graph.Symbol
	for _, t := range ts {
		if s, ok := t.(*graph.Symbol); ok {
			for _, e := range s.Entries() {
				for _, in := range e.Node.Inputs {
					read[in.Node] = true
				}
			}
		}
	}
	for _, t := range ts {
		s := t.(*graph.Symbol)
		if e := s.Entries()[0]; !e.Node.IsVar() && !read[e.Node] {
			syms = append(syms, s)
		}
	}
	return graph.Group(syms...).Graph()
}
