package nn_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/internal/optest"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/ops"
)

// Net is the LeNet of MXNet's hybridize tutorial.
type Net struct {
	nn.HybridBlock
	Conv1, Conv2 *nn.Conv2D
	Pool1, Pool2 *nn.MaxPool2D
	Fc1, Fc2     *nn.Dense
	Fc3Weight    *nn.Parameter

	seen []string // what HybridForward was given, call by call
}

func NewNet() *Net {
	n := &Net{
		Conv1: nn.NewConv2D(6, []int{5}), Pool1: nn.NewMaxPool2D([]int{2}),
		Conv2: nn.NewConv2D(16, []int{5}), Pool2: nn.NewMaxPool2D([]int{2}),
		Fc1: nn.NewDense(120), Fc2: nn.NewDense(84),
		Fc3Weight: nn.NewParameter("fc3_weight", ops.Shape{10, 0}),
	}
	n.Bind(n)
	return n
}

func (n *Net) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	n.seen = append(n.seen, x.String())
	x = n.Pool1.Forward(F.Relu(n.Conv1.Forward(x)))
	x = n.Pool2.Forward(F.Relu(n.Conv2.Forward(x)))
	x = F.Reshape(x, 0, -1)
	x = F.Relu(n.Fc1.Forward(x))
	x = F.Relu(n.Fc2.Forward(x))
	return F.Dot(x, nn.Param(F, n.Fc3Weight), ops.TransposeB())
}

func TestHybridizeTutorial(t *testing.T) {
	eager.Seed(1)
	net := NewNet()
	if err := net.Initialize(); err != nil {
		t.Fatal(err)
	}
	x := eager.RandomNormal(16, 1, 28, 28)

	// Before Hybridize: op by op, on NDArrays; parameters get their shapes.
	y1 := net.Forward(x).(*eager.NDArray)
	if !strings.HasSuffix(net.seen[0], "<NDArray 16x1x28x28 @cpu(0)>") {
		t.Errorf("before Hybridize, HybridForward saw %q", net.seen[0])
	}
	if s := net.Fc1.Weight.Shape(); !s.Equal(ops.Shape{120, 256}) {
		t.Errorf("deferred init: fc1 weight %v", s)
	}
	if got := net.Fc1.Weight.Name(); got != net.Prefix()+"dense0_weight" {
		t.Errorf("fc1 weight is named %s", got)
	}

	// The first call after Hybridize traces: HybridForward sees a Symbol with its shape.
	net.Hybridize()
	if net.LastGraph() != nil {
		t.Error("LastGraph before any hybridized call")
	}
	y2 := net.Forward(x).(*eager.NDArray)
	if g := net.LastGraph(); g == nil || !g.Shape().Equal(ops.Shape{16, 10}) {
		t.Errorf("LastGraph after the traced call: %v", g)
	}
	if got := net.seen[1]; got != "<Symbol data 16x1x28x28 float32>" {
		t.Errorf("tracing, HybridForward saw %q", got)
	}
	// Later calls run the cached graph and never enter HybridForward.
	y3 := net.Forward(x).(*eager.NDArray)
	if len(net.seen) != 2 {
		t.Errorf("HybridForward ran %d times, want 2: %v", len(net.seen), net.seen)
	}
	for i, y := range []*eager.NDArray{y2, y3} {
		if d := optest.FirstDiff(y.Float64s(), y1.Float64s(), 1e-5, 1e-6); d >= 0 {
			t.Errorf("hybridized call %d differs from eager at %d", i, d)
		}
	}
	// A new input shape traces again.
	net.Forward(eager.RandomNormal(4, 1, 28, 28))
	if len(net.seen) != 3 || !strings.Contains(net.seen[2], "4x1x28x28") {
		t.Errorf("a new shape did not re-trace: %v", net.seen)
	}
}

// Gradients through the hybridized graph equal the eager ones.
func TestHybridizedGradientsEqualEager(t *testing.T) {
	grads := func(hybridize bool) [][]float64 {
		eager.Seed(2)
		net := NewNet()
		net.Initialize(nn.InitializeOptions{Init: nn.Xavier()})
		x := eager.RandomNormal(8, 1, 28, 28)
		net.Forward(x) // deferred initialisation, the same way in both runs
		if hybridize {
			net.Hybridize()
		}
		var loss *eager.NDArray
		eager.Record(func() { loss = eager.F.Sum(eager.F.Square(net.Forward(x))).(*eager.NDArray) })
		if err := loss.Backward(); err != nil {
			t.Fatal(err)
		}
		var out [][]float64
		for _, p := range net.CollectParams().List() {
			out = append(out, p.Grad().Float64s())
		}
		return out
	}
	eg, hg := grads(false), grads(true)
	if len(eg) != 9 {
		t.Fatalf("%d parameters, want 9", len(eg))
	}
	for i, g := range eg {
		if d := optest.FirstDiff(hg[i], g, 1e-4, 1e-6); d >= 0 {
			t.Errorf("parameter %d: hybridized gradient differs at %d: %v vs %v", i, d, hg[i][d], g[d])
		}
	}
}

// A convolution, BatchNorm and relu stack of ResNet's kind: the
// hybridized backward runs BatchNorm's input gradient as one fused loop
// (over more elements than one parallel chunk, with the per-channel
// statistics broadcast), and its gradients equal the eager ones.
func TestHybridizedBatchNormStackGradientsEqualEager(t *testing.T) {
	grads := func(hybridize bool) [][]float64 {
		eager.Seed(5)
		net := nn.NewHybridSequential(
			nn.NewConv2D(6, []int{3, 3}, nn.ConvOptions{Padding: []int{1, 1}}), nn.NewBatchNorm(), nn.NewActivation("relu"),
			nn.NewConv2D(5, []int{3, 3}, nn.ConvOptions{Strides: []int{2, 2}, Padding: []int{1, 1}}), nn.NewBatchNorm(),
		)
		if err := net.Initialize(nn.InitializeOptions{Init: nn.Xavier()}); err != nil {
			t.Fatal(err)
		}
		x := eager.RandomNormal(2, 3, 37, 41)
		net.Forward(x) // deferred initialisation, the same way in both runs
		if hybridize {
			net.Hybridize()
		}
		x.AttachGrad()
		var loss *eager.NDArray
		eager.Record(func() {
			y := net.Forward(x)
			loss = eager.F.Sum(eager.F.Mul(y, eager.F.Tanh(y))).(*eager.NDArray)
		})
		if err := loss.Backward(); err != nil {
			t.Fatal(err)
		}
		var out [][]float64
		for _, p := range net.CollectParams().List() {
			if p.GradReq() != eager.GradNull {
				out = append(out, p.Grad().Float64s())
			}
		}
		return append(out, x.Grad().Float64s())
	}
	eg, hg := grads(false), grads(true)
	if len(eg) != 9 || len(hg) != len(eg) {
		t.Fatalf("%d gradients eagerly, %d hybridized; want 9", len(eg), len(hg))
	}
	for i, g := range eg {
		if d := optest.FirstDiff(hg[i], g, 1e-4, 1e-6); d >= 0 {
			t.Errorf("gradient %d: hybridized differs at %d: %v vs %v", i, d, hg[i][d], g[d])
		}
	}
}

func TestNamingAndCollectParams(t *testing.T) {
	net := NewNet()
	names := net.CollectParams().Names()
	// Gluon's order: the block's own parameters, then its children's.
	want := "net1_fc3_weight net1_conv0_weight net1_conv0_bias net1_conv1_weight net1_conv1_bias net1_dense0_weight net1_dense0_bias net1_dense1_weight net1_dense1_bias"
	if net.Name() != "net1" {
		// Tests share the global counter; the second Net is net1 unless run alone.
		want = strings.ReplaceAll(want, "net1", net.Name())
	}
	if got := strings.Join(names, " "); got != want {
		t.Errorf("params:\n%s\nwant\n%s", got, want)
	}
	sel := net.CollectParams(".*dense.*weight")
	if sel.Len() != 2 {
		t.Errorf("regex selection gave %v", sel.Names())
	}
}

type plainBlock struct {
	nn.Block
	D *nn.Dense
}

func (p *plainBlock) EagerForward(xs []ops.Tensor) []ops.Tensor {
	return []ops.Tensor{p.D.Forward(xs[0])}
}

type badHybrid struct {
	nn.HybridBlock
	P *plainBlock
}

func (b *badHybrid) HybridForward(F ops.F, x ops.Tensor) ops.Tensor { return x }

func TestHybridBlockRefusesPlainChildren(t *testing.T) {
	p := &plainBlock{D: nn.NewDense(2)}
	p.Bind(p)
	defer func() {
		r := recover()
		if err, _ := r.(error); err == nil || !strings.Contains(err.Error(), "can only have hybrid children") {
			t.Errorf("got %v", r)
		}
	}()
	b := &badHybrid{P: p}
	b.Bind(b)
}

func TestHooksRunOnHybridizedBlocks(t *testing.T) {
	net := NewNet()
	net.Initialize()
	var calls []string
	h1 := net.RegisterForwardPreHook(func(name string, in []ops.Tensor) { calls = append(calls, "pre "+name) })
	h2 := net.RegisterForwardHook(func(name string, in, out []ops.Tensor) {
		calls = append(calls, fmt.Sprintf("post %s %v", name, out[0].Shape()))
	})
	var opsSeen []string
	net.RegisterOpHook(func(name, op string, v *eager.NDArray) { opsSeen = append(opsSeen, name) }, false)
	net.Hybridize()
	x := eager.RandomNormal(2, 1, 28, 28)
	net.Forward(x)
	net.Forward(x)
	if len(calls) != 4 || calls[1] != fmt.Sprintf("post %s 2x10", net.Name()) {
		t.Errorf("hooks: %v", calls)
	}
	if len(opsSeen) == 0 || !strings.Contains(strings.Join(opsSeen, " "), "dense0_fwd_output") {
		t.Errorf("op hook saw %v", opsSeen)
	}
	h1.Detach()
	h2.Detach()
	net.Forward(x)
	if len(calls) != 4 {
		t.Errorf("detached hooks still ran: %v", calls)
	}
}

func TestHybridizationErrorNamesTheBlock(t *testing.T) {
	b := &branching{}
	b.Bind(b, "branchy")
	b.Hybridize()
	defer func() {
		r := recover()
		he, ok := r.(*graph.HybridizationError)
		if !ok || he.Block != "branchy0" || !strings.Contains(he.Error(), "F.Where") {
			t.Errorf("got %v", r)
		}
	}()
	b.Forward(eager.Ones(1))
}

type branching struct{ nn.HybridBlock }

func (b *branching) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	if x.Scalar() > 0 {
		return x
	}
	return F.Negative(x)
}

// A hybridized block traces once per set of data shapes: calls that
// differ only in the gradients they need or in being hooked compile
// another graph from the same trace. With StaticShape the graphs of one
// set of shapes are kept, so coming back to a shape traces it again.
func TestHybridTracesOncePerDataShape(t *testing.T) {
	x4, x2 := eager.RandomNormal(4, 1, 28, 28), eager.RandomNormal(2, 1, 28, 28)
	train := func(net *Net, x *eager.NDArray) {
		var y *eager.NDArray
		eager.Record(func() { y = eager.F.Sum(net.Forward(x)).(*eager.NDArray) })
		if err := y.Backward(); err != nil {
			t.Fatal(err)
		}
	}
	predict := func(net *Net, x *eager.NDArray) { net.Forward(x) }
	for _, c := range []struct {
		name   string
		opts   nn.HybridizeOptions
		traces int
	}{
		{"default", nn.HybridizeOptions{}, 2},
		{"static shape", nn.HybridizeOptions{StaticAlloc: true, StaticShape: true}, 3},
	} {
		net := NewNet()
		net.Initialize()
		net.Forward(x4) // eager: gives the parameters their shapes
		for _, p := range net.CollectParams().List() {
			p.Data().AttachGrad()
		}
		net.Hybridize(c.opts)
		net.seen = nil
		predict(net, x4)
		train(net, x4)
		net.RegisterOpHook(func(string, string, *eager.NDArray) {}, false)
		predict(net, x4)
		net.RegisterOpHook(nil, false)
		x4.AttachGrad()
		train(net, x4) // the data needs a gradient too
		x4.AttachGrad(eager.GradNull)
		predict(net, x2)
		predict(net, x4)
		train(net, x4)
		if len(net.seen) != c.traces {
			t.Errorf("%s: HybridForward traced %d times, want %d: %q", c.name, len(net.seen), c.traces, net.seen)
		}
	}
}
