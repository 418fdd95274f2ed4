package nn_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/format/mxnet"
	"github.com/hybridgo/hybridgo/internal/optest"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/ops"
)

// bnNet is a Dense layer followed by a batch norm whose running
// statistics are auxiliary states.
type bnNet struct {
	nn.HybridBlock
	Fc                                   *nn.Dense
	Gamma, Beta, RunningMean, RunningVar *nn.Parameter
}

func newBNNet() *bnNet {
	n := &bnNet{Fc: nn.NewDense(4),
		Gamma: nn.NewParameter("gamma", ops.Shape{4}), Beta: nn.NewParameter("beta", ops.Shape{4}),
		RunningMean: nn.NewParameter("running_mean", ops.Shape{4}), RunningVar: nn.NewParameter("running_var", ops.Shape{4})}
	n.Gamma.Init, n.Beta.Init, n.RunningMean.Init, n.RunningVar.Init = nn.One(), nn.Zero(), nn.Zero(), nn.One()
	for _, p := range []*nn.Parameter{n.RunningMean, n.RunningVar} {
		if err := p.SetGradReq(eager.GradNull); err != nil {
			panic(err)
		}
	}
	n.Bind(n, "bnnet")
	return n
}

func (n *bnNet) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	return F.BatchNorm(n.Fc.Forward(x), nn.Param(F, n.Gamma), nn.Param(F, n.Beta),
		nn.Param(F, n.RunningMean), nn.Param(F, n.RunningVar), ops.Attr{Name: "fix_gamma", Value: false})
}

// newLeNet makes the tutorial's Net, initialised, with its deferred
// shapes filled by one eager forward.
func newLeNet(t *testing.T, seed uint64) (*Net, *eager.NDArray) {
	t.Helper()
	eager.Seed(seed)
	net := NewNet()
	if err := net.Initialize(nn.InitializeOptions{Init: nn.Xavier()}); err != nil {
		t.Fatal(err)
	}
	x := eager.RandomNormal(4, 1, 28, 28)
	net.Forward(x)
	return net, x
}

// newConvNet makes a small convolutional net, initialised, with its
// deferred shapes filled by one eager forward. (The tests in this file
// leave the tutorial's Net alone: its own test expects the first Net made
// to be net0.)
func newConvNet(t *testing.T, seed uint64) (*nn.HybridSequential, *eager.NDArray) {
	t.Helper()
	eager.Seed(seed)
	net := nn.NewHybridSequential(nn.NewConv2D(4, []int{3}, nn.ConvOptions{Act: "relu"}), nn.NewMaxPool2D([]int{2}), nn.NewDense(10))
	if err := net.Initialize(nn.InitializeOptions{Init: nn.Xavier()}); err != nil {
		t.Fatal(err)
	}
	x := eager.RandomNormal(4, 1, 12, 12)
	net.Forward(x)
	return net, x
}

func assertClose(t *testing.T, what string, got, want ops.Tensor) {
	t.Helper()
	if !got.Shape().Equal(want.Shape()) {
		t.Fatalf("%s: shape %v, want %v", what, got.Shape(), want.Shape())
	}
	if d := optest.FirstDiff(got.Float64s(), want.Float64s(), 1e-5, 1e-6); d >= 0 {
		t.Fatalf("%s differs at %d: %v vs %v", what, d, got.Float64s()[d], want.Float64s()[d])
	}
}

func TestExport(t *testing.T) {
	net, x := newConvNet(t, 3)
	net.Hybridize()
	net.Forward(x)
	prefix := filepath.Join(t.TempDir(), "convnet")
	if err := net.Export(prefix, 7); err != nil {
		t.Fatal(err)
	}
	sym, err := mxnet.LoadSymbol(prefix + "-symbol.json")
	if err != nil {
		t.Fatal(err)
	}
	list, err := mxnet.LoadParams(prefix + "-0007.params")
	if err != nil {
		t.Fatal(err)
	}
	params := net.CollectParams()
	var want, got []string
	for _, name := range params.Names() {
		want = append(want, "arg:"+name)
	}
	for _, e := range list {
		got = append(got, e.Name)
		p := params.Get(strings.TrimPrefix(e.Name, "arg:"))
		if p == nil {
			t.Fatalf("exported %s is not a parameter of the net", e.Name)
		}
		assertClose(t, e.Name, e.Array, p.Data())
	}
	sort.Strings(want)
	sort.Strings(got)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("params file holds\n%v\nwant\n%v", got, want)
	}
	inputs := sym.ListInputs()
	if inputs[0] != "data" || len(inputs) != 1+params.Len() {
		t.Errorf("symbol inputs %v", inputs)
	}
	if aux := sym.ListAuxiliaryStates(); len(aux) != 0 {
		t.Errorf("the net has no auxiliary states, the file lists %v", aux)
	}
}

func TestExportNamesSeveralInputs(t *testing.T) {
	b := &twoInputs{}
	b.BindN(b, "twoinputs")
	b.Hybridize()
	b.ForwardN(eager.Ones(2, 3), eager.Ones(2, 3))
	prefix := filepath.Join(t.TempDir(), "two")
	if err := b.Export(prefix, 0); err != nil {
		t.Fatal(err)
	}
	sym, err := mxnet.LoadSymbol(prefix + "-symbol.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(sym.ListInputs(), " "); got != "data0 data1" {
		t.Errorf("inputs %q, want data0 data1", got)
	}
	if _, err := os.Stat(prefix + "-0000.params"); err != nil {
		t.Errorf("no params file: %v", err)
	}
}

type twoInputs struct{ nn.HybridBlock }

func (b *twoInputs) HybridForwardN(F ops.F, xs []ops.Tensor) []ops.Tensor {
	return []ops.Tensor{F.Add(xs[0], F.MulScalar(xs[1], 2))}
}

func TestExportAuxStates(t *testing.T) {
	net := newBNNet()
	if err := net.Initialize(); err != nil {
		t.Fatal(err)
	}
	net.Hybridize()
	net.Forward(eager.RandomNormal(5, 3))
	prefix := filepath.Join(t.TempDir(), "bn")
	if err := net.Export(prefix, 1); err != nil {
		t.Fatal(err)
	}
	list, err := mxnet.LoadParams(prefix + "-0001.params")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range list {
		names = append(names, e.Name)
	}
	p := net.Prefix()
	want := fmt.Sprintf("arg:%[1]sdense0_weight arg:%[1]sdense0_bias arg:%[1]sgamma arg:%[1]sbeta aux:%[1]srunning_mean aux:%[1]srunning_var", p)
	if got := strings.Join(names, " "); got != want {
		t.Errorf("params file:\n%s\nwant\n%s", got, want)
	}
}

func TestExportBeforeHybridize(t *testing.T) {
	net, x := newConvNet(t, 4)
	prefix := filepath.Join(t.TempDir(), "net")
	steps := []struct {
		name string
		do   func()
		ok   bool
	}{
		{"never hybridized, eager forward done", func() {}, false},
		{"hybridized, no forward since", func() { net.Hybridize() }, false},
		{"hybridized and run", func() { net.Forward(x) }, true},
		{"hybridized again", func() { net.Hybridize() }, false},
	}
	for _, s := range steps {
		s.do()
		err := net.Export(prefix, 0)
		if s.ok {
			if err != nil {
				t.Errorf("%s: %v", s.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "call Hybridize() and run a forward first") || !strings.Contains(err.Error(), net.Name()) {
			t.Errorf("%s: got %v", s.name, err)
		}
	}
}

// scaled multiplies its input by a 0-dim parameter, which the V2 params
// layout cannot hold: writing it fails after everything else is ready.
type scaled struct {
	nn.HybridBlock
	Fc    *nn.Dense
	Scale *nn.Parameter
}

func newScaled(t *testing.T) *scaled {
	s := &scaled{Fc: nn.NewDense(2, nn.DenseOptions{InUnits: 3}), Scale: nn.NewParameter("scale", nil)}
	s.Bind(s, "scaled")
	if err := s.Initialize(); err != nil {
		t.Fatal(err)
	}
	if err := s.Scale.SetData(eager.F.Reshape(eager.ScalarArray(2)).(*eager.NDArray)); err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *scaled) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	return F.BroadcastMul(s.Fc.Forward(x), nn.Param(F, s.Scale))
}

func TestExportIsAtomic(t *testing.T) {
	dir := t.TempDir()
	prefix := filepath.Join(dir, "model")
	old := map[string]string{prefix + "-symbol.json": "old symbol", prefix + "-0000.params": "old params"}
	for f, content := range old {
		if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := newScaled(t)
	s.Hybridize()
	s.Forward(eager.Ones(1, 3))
	err := s.Export(prefix, 0)
	if err == nil || !strings.Contains(err.Error(), "0-dim") {
		t.Fatalf("export of a 0-dim parameter: %v", err)
	}
	for f, content := range old {
		if b, _ := os.ReadFile(f); string(b) != content {
			t.Errorf("%s was changed by a failed export: %q", f, b)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("the failed export left files behind: %v", entries)
	}
}

func TestExportAfterOptimizeFor(t *testing.T) {
	for _, tc := range []struct {
		name  string
		block func() nn.HybridForwarder
		warn  bool
	}{
		// Element-wise chains are fused: the graph as traced is written.
		{"fused", func() nn.HybridForwarder { return newChain() }, true},
		// Nothing to fuse: the optimised graph itself is written.
		{"unfused", func() nn.HybridForwarder { return nn.NewDense(3, nn.DenseOptions{InUnits: 4}) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			blk := tc.block()
			hb := hybridOf(blk)
			if err := hb.Initialize(); err != nil {
				t.Fatal(err)
			}
			x := eager.RandomNormal(2, 4)
			want := hb.Forward(x)
			if err := hb.OptimizeFor(x, "fuse"); err != nil {
				t.Fatal(err)
			}
			var warnings bytes.Buffer
			nn.Warnings = &warnings
			defer func() { nn.Warnings = os.Stderr }()
			prefix := filepath.Join(t.TempDir(), "opt")
			if err := hb.Export(prefix, 0); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(warnings.String(), "fused"); got != tc.warn {
				t.Errorf("warning %q, want one: %v", warnings.String(), tc.warn)
			}
			sb, err := nn.SymbolBlockImports(prefix+"-symbol.json", []string{"data"}, prefix+"-0000.params")
			if err != nil {
				t.Fatal(err)
			}
			assertClose(t, "imported", sb.Forward(x), want)
		})
	}
}

// hybridOf returns the HybridBlock inside a layer.
func hybridOf(b nn.HybridForwarder) *nn.HybridBlock {
	switch v := b.(type) {
	case *chain:
		return &v.HybridBlock
	case *nn.Dense:
		return &v.HybridBlock
	}
	panic(fmt.Sprintf("hybridOf: %T", b))
}

// chain is a Dense layer followed by a chain of element-wise ops, which
// the "fuse" backend fuses.
type chain struct {
	nn.HybridBlock
	Fc *nn.Dense
}

func newChain() *chain {
	c := &chain{Fc: nn.NewDense(3, nn.DenseOptions{InUnits: 4})}
	c.Bind(c, "chain")
	return c
}

func (c *chain) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	y := c.Fc.Forward(x)
	return F.Relu(F.MulScalar(F.PlusScalar(F.Tanh(y), 1), 0.5))
}

func TestExportWarningsSilenced(t *testing.T) {
	// Export's only output besides the files is the warning above; with
	// Warnings discarded, it writes nothing anywhere else.
	nn.Warnings = io.Discard
	defer func() { nn.Warnings = os.Stderr }()
	c := newChain()
	c.Initialize()
	x := eager.Ones(1, 4)
	if err := c.OptimizeFor(x, "fuse"); err != nil {
		t.Fatal(err)
	}
	if err := c.Export(filepath.Join(t.TempDir(), "c"), 2); err != nil {
		t.Fatal(err)
	}
}

func ExampleHybridBlock_Export() {
	eager.Seed(7)
	net := nn.NewHybridSequential(nn.NewDense(8, nn.DenseOptions{Act: "relu"}), nn.NewDense(2))
	net.Initialize()
	x := eager.RandomNormal(1, 4)
	net.Hybridize()
	y := net.Forward(x)

	dir, _ := os.MkdirTemp("", "export")
	defer os.RemoveAll(dir)
	prefix := filepath.Join(dir, "mlp")
	if err := net.Export(prefix, 0); err != nil {
		fmt.Println(err)
		return
	}
	files, _ := filepath.Glob(prefix + "*")
	for _, f := range files {
		fmt.Println(filepath.Base(f))
	}

	imported, err := nn.SymbolBlockImports(prefix+"-symbol.json", []string{"data"}, prefix+"-0000.params")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(imported.Params), "parameters")
	same := optest.FirstDiff(imported.Forward(x).Float64s(), y.Float64s(), 1e-6, 1e-7) < 0
	fmt.Println("same outputs:", same)
	// Output:
	// mlp-0000.params
	// mlp-symbol.json
	// 4 parameters
	// same outputs: true
}
