package graph_test

import (
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

// lenetForward is the LeNet of MXNet's hybridize tutorial, written once
// with F so that it runs eagerly on NDArrays and traces on Symbols.
func lenetForward(F ops.F, x ops.Tensor, p map[string]ops.Tensor) ops.Tensor {
	pool := func(x ops.Tensor) ops.Tensor {
		return F.Pooling(x, []int{2, 2}, "max", ops.Attr{Name: "stride", Value: []int{2, 2}})
	}
	x = pool(F.Relu(F.Convolution(x, p["conv0_weight"], p["conv0_bias"], []int{5, 5}, 6)))
	x = pool(F.Relu(F.Convolution(x, p["conv1_weight"], p["conv1_bias"], []int{5, 5}, 16)))
	x = F.Reshape(x, 0, -1)
	x = F.Relu(F.FullyConnected(x, p["dense0_weight"], p["dense0_bias"], 120))
	x = F.Relu(F.FullyConnected(x, p["dense1_weight"], p["dense1_bias"], 84))
	return F.Dot(x, p["fc3_weight"], ops.TransposeB())
}

var lenetShapes = map[string]ops.Shape{
	"conv0_weight": {6, 1, 5, 5}, "conv0_bias": {6}, "conv1_weight": {16, 6, 5, 5}, "conv1_bias": {16},
	"dense0_weight": {120, 256}, "dense0_bias": {120}, "dense1_weight": {84, 120}, "dense1_bias": {84},
	"fc3_weight": {10, 84},
}

func lenetParams() map[string]*eager.NDArray {
	eager.Seed(7)
	p := map[string]*eager.NDArray{}
	for name, s := range lenetShapes {
		p[name] = eager.F.MulScalar(eager.RandomNormal(s...), 0.1).(*eager.NDArray)
	}
	return p
}

// lenetSymbol is lenetForward traced, for any batch size.
func lenetSymbol() *graph.Symbol {
	tr := graph.NewTracer()
	vars := map[string]ops.Tensor{}
	for name := range lenetShapes {
		vars[name] = graph.Var(name, nil, ops.Unknown)
	}
	return lenetForward(tr.F(), graph.Var("data", ops.Shape{0, 1, 28, 28}, ops.Float32), vars).(*graph.Symbol)
}

// BenchmarkLeNetTrainingStep measures one forward+backward of the
// tutorial's LeNet at batch 256, eagerly (op by op on the autograd tape),
// through a cached graph, and through a cached graph with StaticAlloc.
// Compare the B/op column: that is the memory story of hybridizing.
func BenchmarkLeNetTrainingStep(b *testing.B) {
	const batch = 256
	x := eager.RandomNormal(batch, 1, 28, 28)
	params := lenetParams()
	b.Run("eager", func(b *testing.B) {
		p := map[string]ops.Tensor{}
		for k, v := range params {
			v.AttachGrad()
			p[k] = v
		}
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			var out *eager.NDArray
			eager.Record(func() { out = lenetForward(eager.F, x, p).(*eager.NDArray) })
			if err := out.Backward(eager.Ones(batch, 10)); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, c := range []struct {
		name string
		opts graph.CompileOptions
	}{
		{"graph", graph.CompileOptions{}},
		{"graph-static-alloc", graph.CompileOptions{StaticAlloc: true}},
	} {
		b.Run(c.name, func(b *testing.B) {
			cop, args := compileFor(b, lenetSymbol(), withData(x, params), false, c.opts)
			head := eager.Ones(batch, 10)
			step := func() {
				if _, err := cop.Forward(true, args...); err != nil {
					b.Fatal(err)
				}
				if _, err := cop.Backward(head); err != nil {
					b.Fatal(err)
				}
			}
			step() // compile the program (and allocate static buffers) first
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				step()
			}
		})
	}
}

// BenchmarkDispatch is the executor's cost per op: a chain of 64 relu ops
// on a 4-element array, planned with StaticAlloc and without fusion, so
// that the kernels do almost nothing. The dispatch metric is ns per op.
func BenchmarkDispatch(b *testing.B) {
	const n = 64
	tr := graph.NewTracer()
	F := tr.F()
	var y ops.Tensor = graph.Var("data", ops.Shape{4}, ops.Float32)
	for range n {
		y = F.Relu(y)
	}
	x := eager.Ones(4)
	cop, _ := compileFor(b, y.(*graph.Symbol), map[string]*eager.NDArray{"data": x}, false, graph.CompileOptions{StaticAlloc: true, Passes: &graph.PassOptions{}})
	if _, err := cop.Forward(false, x); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := cop.Forward(false, x); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/dispatch")
}
