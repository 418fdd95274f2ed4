package nn_test

// Gluon's behaviour, ported from the tests of MXNet 1.x
// (tests/python/unittest/test_gluon.py), under the same names.

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/internal/optest"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/ops"
)

func mustPanic(t *testing.T, want string, fn func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		err, _ := r.(error)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v, want an error containing %q", r, want)
		}
	}()
	fn()
}

func TestParameter(t *testing.T) {
	p := nn.NewParameter("weight", ops.Shape{10, 10})
	if err := p.Initialize(nn.Uniform(0.1), false); err != nil {
		t.Fatal(err)
	}
	if !p.Data().Shape().Equal(ops.Shape{10, 10}) || !p.Grad().Shape().Equal(ops.Shape{10, 10}) {
		t.Errorf("data %v grad %v", p.Data().Shape(), p.Grad().Shape())
	}
	for _, v := range p.Data().Float64s() {
		if v < -0.1 || v > 0.1 {
			t.Fatalf("Uniform(0.1) gave %v", v)
		}
	}
	if err := p.SetData(eager.Zeros(3, 3)); err == nil || !strings.Contains(err.Error(), "shape 3x3 on a parameter of shape 10x10") {
		t.Errorf("SetData of a wrong shape: %v", err)
	}
	p.Cast(ops.Float64)
	if p.Data().DType() != ops.Float64 || p.Grad().DType() != ops.Float64 {
		t.Errorf("Cast: %v %v", p.Data().DType(), p.Grad().DType())
	}
	if err := p.SetGradReq("sometimes"); err == nil {
		t.Error("a bad grad request was accepted")
	}
	q := nn.NewParameter("w", ops.Shape{2, 3})
	mustPanic(t, "has not been initialised: call Initialize", func() { q.Data() })
}

func TestParameterDict(t *testing.T) {
	net := nn.NewHybridSequential(nn.NewDense(4, nn.DenseOptions{InUnits: 3}), nn.NewDense(2, nn.DenseOptions{InUnits: 4}))
	params := net.CollectParams()
	if params.Len() != 4 {
		t.Fatalf("%d parameters: %v", params.Len(), params.Names())
	}
	p := params.Get(net.Prefix() + "dense1_weight")
	if p == nil || !p.Shape().Equal(ops.Shape{2, 4}) {
		t.Errorf("Get: %v", p)
	}
	if !strings.Contains(params.String(), "dense0_bias (shape=(4,), dtype=float32)") {
		t.Errorf("String:\n%s", params)
	}
}

func TestCollectParameters(t *testing.T) {
	net := nn.NewHybridSequential(nn.NewConv2D(4, []int{3}), nn.NewDense(2))
	got := net.CollectParams(".*weight").Names()
	if len(got) != 2 || !strings.HasSuffix(got[0], "conv0_weight") || !strings.HasSuffix(got[1], "dense0_weight") {
		t.Errorf("weights: %v", got)
	}
	mustPanic(t, "bad pattern", func() { net.CollectParams("(") })
}

type withConstant struct {
	nn.HybridBlock
	C *nn.Parameter
}

func (b *withConstant) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	return F.Mul(x, nn.Param(F, b.C))
}

func TestConstant(t *testing.T) {
	b := &withConstant{C: nn.NewConstant("const", eager.Array([]float32{2, 3}))}
	b.Bind(b)
	b.Initialize()
	x := eager.Array([]float32{1, 1})
	x.AttachGrad()
	for _, hybrid := range []bool{false, true} {
		if hybrid {
			b.Hybridize()
		}
		var y *eager.NDArray
		eager.Record(func() { y = eager.F.Sum(b.Forward(x)).(*eager.NDArray) })
		y.Backward()
		if got := x.Grad().Float64s(); got[0] != 2 || got[1] != 3 {
			t.Errorf("hybrid=%v: d/dx %v", hybrid, got)
		}
		if !b.C.IsConstant() || b.C.GradReq() != eager.GradNull {
			t.Error("a constant has a gradient request")
		}
	}
}

type sharing struct {
	nn.HybridBlock
	D1, D2 *nn.Dense
}

func (s *sharing) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	return F.Add(s.D1.Forward(x), s.D2.Forward(x))
}

func TestParameterSharing(t *testing.T) {
	d1 := nn.NewDense(3, nn.DenseOptions{InUnits: 2, NoBias: true})
	d2 := nn.NewDense(3, nn.DenseOptions{InUnits: 2, NoBias: true})
	d2.Weight = d1.Weight // share
	s := &sharing{D1: d1, D2: d2}
	s.Bind(s, "sharing")
	names := s.CollectParams().Names()
	if len(names) != 1 || names[0] != s.Prefix()+"dense0_weight" {
		t.Errorf("a shared parameter is listed once under its first owner's name: %v", names)
	}
	s.Initialize()
	x := eager.Array([]float32{1, 2})
	for _, hybrid := range []bool{false, true} {
		if hybrid {
			s.Hybridize()
		}
		var y *eager.NDArray
		eager.Record(func() { y = eager.F.Sum(s.Forward(eager.F.Reshape(x, 1, 2))).(*eager.NDArray) })
		y.Backward()
		// y = sum(2·W·x): dW[i][j] = 2·x[j].
		if got := d1.Weight.Grad().Float64s(); got[0] != 2 || got[1] != 4 {
			t.Errorf("hybrid=%v: shared gradient %v", hybrid, got)
		}
	}
}

func TestBasic(t *testing.T) {
	net := nn.NewHybridSequential(nn.NewDense(128, nn.DenseOptions{Act: "tanh", InUnits: 10}), nn.NewDropout(0.5), nn.NewDense(64, nn.DenseOptions{Act: "tanh", InUnits: 256}), nn.NewDense(32, nn.DenseOptions{InUnits: 64}))
	net.Initialize()
	// Deferred-size mismatch is reported with both shapes.
	mustPanic(t, "data", func() { net.Forward(eager.Ones(32, 10)) })
	net2 := nn.NewHybridSequential(nn.NewDense(128, nn.DenseOptions{Act: "tanh"}), nn.NewDense(32))
	net2.Initialize()
	if s := net2.Forward(eager.Ones(4, 10)).Shape(); !s.Equal(ops.Shape{4, 32}) {
		t.Errorf("output %v", s)
	}
}

func TestDeferredInit(t *testing.T) {
	d := nn.NewDense(5)
	d.Initialize()
	mustPanic(t, "initialised on the block's first forward", func() { d.Weight.Data() })
	d.Forward(eager.Ones(2, 7))
	if s := d.Weight.Shape(); !s.Equal(ops.Shape{5, 7}) {
		t.Errorf("weight %v", s)
	}
}

func TestFillShapeDeferred(t *testing.T) {
	net := nn.NewHybridSequential(nn.NewConv2D(64, []int{3}, nn.ConvOptions{Padding: []int{1}}), nn.NewBatchNorm(), nn.NewDense(10))
	net.Hybridize()
	net.Initialize()
	net.Forward(eager.Ones(2, 3, 5, 7))
	params := net.CollectParams().List()
	if !params[0].Shape().Equal(ops.Shape{64, 3, 3, 3}) || !params[2].Shape().Equal(ops.Shape{64}) || !params[len(params)-2].Shape().Equal(ops.Shape{10, 64 * 5 * 7}) {
		t.Errorf("shapes: %v %v %v", params[0].Shape(), params[2].Shape(), params[len(params)-2].Shape())
	}
}

type listOfBlocks struct {
	nn.HybridBlock
	Layers []*nn.Dense
}

func (l *listOfBlocks) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	for _, d := range l.Layers {
		x = d.Forward(x)
	}
	return x
}

func TestBlockAttrListOfBlock(t *testing.T) {
	l := &listOfBlocks{Layers: []*nn.Dense{nn.NewDense(4), nn.NewDense(2)}}
	l.Bind(l, "listed")
	if got := l.CollectParams().Len(); got != 4 {
		t.Errorf("%d parameters in a slice of blocks, want 4", got)
	}
	l.Initialize()
	if s := l.Forward(eager.Ones(1, 3)).Shape(); !s.Equal(ops.Shape{1, 2}) {
		t.Errorf("output %v", s)
	}
}

func TestSequentialWarning(t *testing.T) {
	var w bytes.Buffer
	old := nn.Warnings
	nn.Warnings = &w
	defer func() { nn.Warnings = old }()
	s := nn.NewSequential(nn.NewDense(2), nn.NewDense(3))
	s.Hybridize()
	if !strings.Contains(w.String(), "use HybridSequential") {
		t.Errorf("warning: %q", w.String())
	}
}

type stale struct {
	nn.HybridBlock
	Fc1, Fc2 *nn.Dense
}

func (s *stale) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	return s.Fc2.Forward(s.Fc1.Forward(x))
}

func TestHybridStaleCache(t *testing.T) {
	s := &stale{Fc1: nn.NewDense(10), Fc2: nn.NewDense(1)}
	s.Bind(s)
	s.Initialize()
	s.Hybridize()
	x := eager.Ones(2, 3)
	s.Forward(x)
	// A new child: a hybridized block does not walk its fields on each
	// call, and sees the child when it traces again: Hybridize again
	// after changing the network.
	s.Fc2 = nn.NewDense(5)
	s.Fc2.Initialize()
	s.Hybridize()
	if got := s.Forward(x).Shape(); !got.Equal(ops.Shape{2, 5}) {
		t.Errorf("after replacing a child and hybridizing again the output is %v, want 2x5", got)
	}
	// A block that is not hybridized sees a new child at once.
	s.Hybridize(nn.HybridizeOptions{Off: true})
	s.Fc2 = nn.NewDense(3)
	s.Fc2.Initialize()
	if got := s.Forward(x).Shape(); !got.Equal(ops.Shape{2, 3}) {
		t.Errorf("after replacing a child of an eager block the output is %v, want 2x3", got)
	}
}

func TestHybridStaticMemory(t *testing.T) {
	for _, opts := range []nn.HybridizeOptions{{StaticAlloc: true}, {StaticAlloc: true, StaticShape: true}} {
		eager.Seed(3)
		net := NewNet()
		net.Initialize()
		x := eager.RandomNormal(4, 1, 28, 28)
		want := net.Forward(x).(*eager.NDArray)
		net.Hybridize(opts)
		for i := 0; i < 3; i++ {
			var y *eager.NDArray
			eager.Record(func() { y = eager.F.Sum(net.Forward(x)).(*eager.NDArray) })
			if err := y.Backward(); err != nil {
				t.Fatal(err)
			}
			got := net.Forward(x).(*eager.NDArray)
			if d := optest.FirstDiff(got.Float64s(), want.Float64s(), 1e-5, 1e-6); d >= 0 {
				t.Errorf("%+v call %d differs at %d", opts, i, d)
			}
		}
		// Another batch size works either way (with StaticShape it
		// replaces the one graph kept, as MXNet's "still allowed but
		// slower"), and so does the first again.
		other := eager.RandomNormal(2, 1, 28, 28)
		if got := net.Forward(other).Shape(); !got.Equal(ops.Shape{2, 10}) {
			t.Errorf("%+v, another batch size: output %v", opts, got)
		}
		if got := net.Forward(x).Shape(); !got.Equal(ops.Shape{4, 10}) {
			t.Errorf("%+v, the first batch size again: output %v", opts, got)
		}
	}
	mustPanic(t, "StaticShape requires StaticAlloc", func() { NewNet().Hybridize(nn.HybridizeOptions{StaticShape: true}) })
}

func TestHybridStaticMemorySwitching(t *testing.T) {
	net := NewNet()
	net.Initialize()
	net.Hybridize(nn.HybridizeOptions{StaticAlloc: true})
	for _, batch := range []int{4, 16, 4} {
		if s := net.Forward(eager.RandomNormal(batch, 1, 28, 28)).Shape(); !s.Equal(ops.Shape{batch, 10}) {
			t.Errorf("batch %d: %v", batch, s)
		}
	}
}

func TestApply(t *testing.T) {
	net := nn.NewHybridSequential(nn.NewDense(2), nn.NewDense(3))
	var names []string
	net.Apply(func(name string) { names = append(names, name) })
	want := []string{net.Name() + "_dense0", net.Name() + "_dense1", net.Name()}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("Apply visited %v, want %v (children first)", names, want)
	}
}

func TestOpHookOutputNames(t *testing.T) {
	net := nn.NewHybridSequential(nn.NewDense(2, nn.DenseOptions{Act: "relu"}))
	net.Initialize()
	net.Hybridize()
	var names []string
	net.RegisterOpHook(func(name, op string, v *eager.NDArray) { names = append(names, name) }, false)
	net.Forward(eager.Ones(1, 3))
	got := strings.Join(names, " ")
	if !strings.Contains(got, net.Prefix()+"dense0_fwd_output") {
		t.Errorf("op hook names: %s", got)
	}
}

func TestReqsSwitchingTrainingInference(t *testing.T) {
	net := nn.NewHybridSequential(nn.NewDense(2, nn.DenseOptions{InUnits: 3}))
	net.Initialize()
	net.Hybridize()
	w := net.CollectParams().List()[0]
	x := eager.Ones(1, 3)
	step := func() []float64 {
		w.ZeroGrad()
		var y *eager.NDArray
		eager.Record(func() { y = eager.F.Sum(net.Forward(x)).(*eager.NDArray) })
		y.Backward()
		return w.Grad().Float64s()
	}
	if g := step(); g[0] != 1 {
		t.Errorf("write: %v", g)
	}
	w.SetGradReq(eager.GradNull)
	if g := step(); g[0] != 0 {
		t.Errorf("null: %v", g)
	}
	w.SetGradReq(eager.GradWrite)
	if g := step(); g[0] != 1 {
		t.Errorf("write again: %v", g)
	}
}

func TestHybridBlockNoneArgs(t *testing.T) {
	var he interface{ Error() string }
	net := nn.NewHybridSequential(nn.NewDense(2))
	net.Initialize()
	defer func() {
		r := recover()
		e, _ := r.(error)
		if e == nil || !errors.As(e, &he) || !strings.Contains(e.Error(), "nil") {
			t.Errorf("a nil input: %v", r)
		}
	}()
	net.Forward(nil)
}
