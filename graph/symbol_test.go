package graph_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

// mlp traces a two-layer perceptron with parameters of unknown input size.
func mlp() (*graph.Symbol, *graph.Tracer) {
	tr := graph.NewTracer()
	F := tr.F()
	x := graph.Var("data", ops.Shape{0, 784}, ops.Float32)
	w1 := graph.Var("fc1_weight", ops.Shape{128, 0}, ops.Unknown)
	b1 := graph.Var("fc1_bias", nil, ops.Unknown)
	w2 := graph.Var("fc2_weight", ops.Shape{10, 0}, ops.Unknown)
	b2 := graph.Var("fc2_bias", nil, ops.Unknown)
	var h ops.Tensor
	tr.Scope("net0_", func() {
		tr.NameNext("fc1_fwd")
		h = F.Relu(F.FullyConnected(x, w1, b1, 128))
		tr.NameNext("fc2_fwd")
		h = F.FullyConnected(h, w2, b2, 10)
	})
	return h.(*graph.Symbol), tr
}

func TestTracedShapesFillParameters(t *testing.T) {
	y, _ := mlp()
	if got := y.String(); got != "<Symbol net0_fc2_fwd>" {
		t.Errorf("unknown batch: %s", got)
	}
	args, outs, _, err := y.InferShape(map[string]ops.Shape{"data": {16, 784}})
	if err != nil {
		t.Fatal(err)
	}
	want := []ops.Shape{{16, 784}, {128, 784}, {128}, {10, 128}, {10}}
	if strings.Join(y.ListArguments(), " ") != "data fc1_weight fc1_bias fc2_weight fc2_bias" {
		t.Errorf("arguments %v", y.ListArguments())
	}
	for i := range want {
		if !args[i].Equal(want[i]) {
			t.Errorf("argument %d: %v, want %v", i, args[i], want[i])
		}
	}
	if !outs[0].Equal(ops.Shape{16, 10}) {
		t.Errorf("output %v", outs[0])
	}
	// Parameter shapes were also filled on the traced graph itself.
	if got := y.GetInternals().ListOutputs(); strings.Join(got, " ") !=
		"data fc1_weight fc1_bias net0_fc1_fwd_output net0_relu0_output fc2_weight fc2_bias net0_fc2_fwd_output" {
		t.Errorf("internals %v", got)
	}
}

func TestSymbolPrinting(t *testing.T) {
	x := graph.Var("data", ops.Shape{16, 1, 28, 28}, ops.Float32)
	w := graph.Var("conv0_weight", nil, ops.Unknown)
	b := graph.Var("conv0_bias", nil, ops.Unknown)
	tr := graph.NewTracer()
	tr.NameNext("conv0_fwd")
	y := tr.F().Convolution(x, w, b, []int{5, 5}, 6)
	if got := y.String(); got != "<Symbol conv0_fwd 16x6x24x24 float32>" {
		t.Errorf("short form: %s", got)
	}
	z := tr.F().Relu(y)
	want := `graph(data: 16x1x28x28 float32, conv0_weight: 6x1x5x5 float32, conv0_bias: 6 float32):
  %conv0_fwd = Convolution(%data, %conv0_weight, %conv0_bias; kernel=(5, 5) num_filter=6)  # 16x6x24x24 float32
  %relu0 = relu(%conv0_fwd)  # 16x6x24x24 float32
  return %relu0
`
	if got := z.(*graph.Symbol).Graph().String(); got != want {
		t.Errorf("listing:\n%s\nwant:\n%s", got, want)
	}
	if got := graph.Group(y.(*graph.Symbol), z.(*graph.Symbol)).String(); got != "<Symbol group [conv0_fwd_output, relu0_output]>" {
		t.Errorf("group: %s", got)
	}
}

func TestReadingValuesOfASymbolIsAHybridizationError(t *testing.T) {
	x := graph.Var("data", ops.Shape{2, 3}, ops.Float32)
	y := graph.F.Tanh(x)
	for _, c := range []struct {
		name string
		fn   func()
		want []string
	}{
		{"Float32s", func() { y.Float32s() }, []string{"Float32s()", "tanh", "Compute with F ops"}},
		{"Scalar", func() { y.Scalar() }, []string{"Scalar()", "F.Where(cond, x, y) instead of an if"}},
		{"At", func() { x.At(0, 1) }, []string{"At[0 1]", "data", "variable", "F.Slice"}},
	} {
		func() {
			defer func() {
				r := recover()
				err, _ := r.(error)
				var he *graph.HybridizationError
				if !errors.As(err, &he) {
					t.Fatalf("%s: panic %v is not a HybridizationError", c.name, r)
				}
				for _, w := range c.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("%s: %q does not mention %q", c.name, err, w)
					}
				}
			}()
			c.fn()
		}()
	}
}

func TestTraceAndEval(t *testing.T) {
	fn := func(F ops.F, in []ops.Tensor) []ops.Tensor {
		// Shapes are known while tracing, so code may branch on them.
		x := in[0]
		if x.Shape()[1] == 3 {
			x = F.MulScalar(x, 2)
		}
		// An NDArray used inside becomes a constant of the graph.
		return []ops.Tensor{F.Add(x, eager.Array([]float32{1, 2, 3}))}
	}
	sym, err := graph.Trace(fn, []ops.Shape{{2, 3}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := sym.ListInputs(); strings.Join(got, " ") != "data const0" {
		t.Errorf("inputs %v", got)
	}
	out, err := sym.Eval(map[string]*eager.NDArray{"data": eager.Array([]float32{1, 1, 1, 2, 2, 2}, 2, 3)})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(out[0].Float64s()); got != "[3 4 5 5 6 7]" {
		t.Errorf("eval gives %v", got)
	}
	if _, err := sym.Eval(map[string]*eager.NDArray{}); err == nil || !strings.Contains(err.Error(), `variable "data" is not bound`) {
		t.Errorf("missing binding: %v", err)
	}
	if _, err := sym.Eval(map[string]*eager.NDArray{"data": eager.Zeros(3, 3)}); err == nil || !strings.Contains(err.Error(), `"data" is declared 2x3 but bound to an array of shape 3x3`) {
		t.Errorf("wrong shape: %v", err)
	}
}

func TestTraceReportsOpErrorsWithTheNode(t *testing.T) {
	_, err := graph.Trace(func(F ops.F, in []ops.Tensor) []ops.Tensor {
		return []ops.Tensor{F.Dot(in[0], in[0])}
	}, []ops.Shape{{2, 3}}, nil)
	if err == nil || !strings.Contains(err.Error(), "dot: node dot0: lhs 2x3 contracts a dim of 3, rhs 2x3 one of 2") {
		t.Errorf("got %v", err)
	}
	_, err = graph.Trace(func(F ops.F, in []ops.Tensor) []ops.Tensor {
		if in[0].Scalar() > 0 {
			return in
		}
		return in
	}, []ops.Shape{{1}}, nil)
	var he *graph.HybridizationError
	if !errors.As(err, &he) {
		t.Errorf("branching on a value: got %v", err)
	}
}

func TestUnknownRankDefersInference(t *testing.T) {
	x := graph.Var("data", ops.Shape{0, 84}, ops.Float32)
	w := graph.Var("w", nil, ops.Unknown)
	y := graph.F.Dot(x, w, ops.TransposeB())
	if y.Shape() != nil {
		t.Errorf("shape %v, want unknown", y.Shape())
	}
	_, outs, _, err := y.(*graph.Symbol).InferShape(map[string]ops.Shape{"data": {2, 84}, "w": {10, 84}})
	if err != nil || !outs[0].Equal(ops.Shape{2, 10}) {
		t.Errorf("inferred %v, %v", outs, err)
	}
}

func TestElemwiseFillsAnUnknownSide(t *testing.T) {
	x := graph.Var("x", ops.Shape{2, 3}, ops.Float32)
	b := graph.Var("b", nil, ops.Unknown)
	y := graph.F.ElemwiseAdd(x, b).(*graph.Symbol)
	args, _, _, err := y.InferShape(nil)
	if err != nil || !args[1].Equal(ops.Shape{2, 3}) {
		t.Errorf("b inferred as %v (%v)", args, err)
	}
}

func TestCountNext(t *testing.T) {
	x := graph.Var("data", ops.Shape{2}, ops.Float32)
	tr := graph.NewTracer()
	f := tr.F()
	var names []string
	for i := 0; i < 2; i++ {
		tr.CountNext("_plus")
		names = append(names, f.ElemwiseAdd(x, x).(*graph.Symbol).Name())
	}
	names = append(names, f.ElemwiseAdd(x, x).(*graph.Symbol).Name())
	if got, want := strings.Join(names, " "), "_plus0 _plus1 elemwise_add0"; got != want {
		t.Errorf("names %q, want %q", got, want)
	}
}
