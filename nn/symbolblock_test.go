package nn_test

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/format/mxnet"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/internal/optest"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/ops"
)

// exportLeNet exports a hybridized tutorial LeNet and returns the file
// prefix, the net and an input.
func exportLeNet(t *testing.T, seed uint64) (string, *Net, *eager.NDArray) {
	t.Helper()
	net, x := newLeNet(t, seed)
	net.Hybridize()
	net.Forward(x)
	prefix := filepath.Join(t.TempDir(), "lenet")
	if err := net.Export(prefix, 0); err != nil {
		t.Fatal(err)
	}
	return prefix, net, x
}

func paramGrads(ps []*nn.Parameter) [][]float64 {
	var out [][]float64
	for _, p := range ps {
		out = append(out, p.Grad().Float64s())
	}
	return out
}

func TestImport(t *testing.T) {
	prefix, net, x := exportLeNet(t, 5)
	want := net.Forward(x)

	sb, err := nn.SymbolBlockImports(prefix+"-symbol.json", []string{"data"}, prefix+"-0000.params")
	if err != nil {
		t.Fatal(err)
	}
	// The parameters keep the exported names.
	var names []string
	for _, p := range sb.Params {
		names = append(names, p.Name())
	}
	netNames := net.CollectParams().Names()
	if got := strings.Join(names, " "); len(names) != len(netNames) || !strings.Contains(got, net.Fc1.Weight.Name()) {
		t.Errorf("imported parameters %v, the net has %v", names, netNames)
	}
	if got := sb.CollectParams().Names(); strings.Join(got, " ") != strings.Join(names, " ") {
		t.Errorf("CollectParams %v", got)
	}

	// Eagerly, then hybridized: the same outputs as the exported net.
	assertClose(t, "eager import", sb.Forward(x), want)
	sb.Hybridize()
	assertClose(t, "hybridized import", sb.Forward(x), want)
	assertClose(t, "hybridized import, second call", sb.Forward(x), want)
	// Another batch size works too.
	x2 := eager.RandomNormal(2, 1, 28, 28)
	assertClose(t, "batch of 2", sb.Forward(x2), net.Forward(x2))

	// Gradients flow into the imported parameters, eagerly and hybridized,
	// as into the original's.
	backward := func(fwd func() ops.Tensor) {
		var loss *eager.NDArray
		eager.Record(func() { loss = eager.F.Sum(eager.F.Square(fwd())).(*eager.NDArray) })
		if err := loss.Backward(); err != nil {
			t.Fatal(err)
		}
	}
	net.Hybridize(nn.HybridizeOptions{Off: true})
	backward(func() ops.Tensor { return net.Forward(x) })
	byName := map[string][]float64{}
	for _, p := range net.CollectParams().List() {
		byName[p.Name()] = p.Grad().Float64s()
	}
	for _, hybrid := range []bool{false, true} {
		sb.Hybridize(nn.HybridizeOptions{Off: !hybrid})
		sb.ZeroGrad()
		backward(func() ops.Tensor { return sb.Forward(x) })
		for _, p := range sb.Params {
			if d := optest.FirstDiff(p.Grad().Float64s(), byName[p.Name()], 1e-4, 1e-6); d >= 0 {
				t.Errorf("hybridized=%v: gradient of %s differs at %d", hybrid, p.Name(), d)
			}
		}
	}
}

// The tutorial LeNet survives export and import, and the imported block
// exports again to the same files.
func TestExportImportLeNetRoundTrip(t *testing.T) {
	prefix, net, x := exportLeNet(t, 6)
	sb, err := nn.SymbolBlockImports(prefix+"-symbol.json", []string{"data"}, prefix+"-0000.params")
	if err != nil {
		t.Fatal(err)
	}
	sb.Hybridize()
	assertClose(t, "imported LeNet", sb.Forward(x), net.Forward(x))
	again := filepath.Join(t.TempDir(), "again")
	if err := sb.Export(again, 0); err != nil {
		t.Fatal(err)
	}
	p1, _ := os.ReadFile(prefix + "-0000.params")
	p2, _ := os.ReadFile(again + "-0000.params")
	if string(p1) != string(p2) {
		t.Errorf("re-exported params differ from the original export")
	}
	s1, err := mxnet.LoadSymbol(prefix + "-symbol.json")
	if err != nil {
		t.Fatal(err)
	}
	s2, err := mxnet.LoadSymbol(again + "-symbol.json")
	if err != nil {
		t.Fatal(err)
	}
	if a, b := strings.Join(s1.ListInputs(), " "), strings.Join(s2.ListInputs(), " "); a != b {
		t.Errorf("re-exported inputs\n%s\nwant\n%s", b, a)
	}
	if a, b := strings.Join(s1.ListOutputs(), " "), strings.Join(s2.ListOutputs(), " "); a != b {
		t.Errorf("re-exported outputs %s, want %s", b, a)
	}
}

// wrapper sums every output of a SymbolBlock, after a Dense layer.
type wrapper struct {
	nn.HybridBlock
	Model *nn.SymbolBlock
}

func (w *wrapper) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	outs := w.Model.ForwardN(x)
	sums := make([]ops.Tensor, len(outs))
	for i, o := range outs {
		sums[i] = F.Sum(o)
	}
	return F.AddN(sums...)
}

func TestSymbolBlock(t *testing.T) {
	eager.Seed(8)
	model := nn.NewHybridSequential(nn.NewDense(16, nn.DenseOptions{Act: "tanh"}), nn.NewDense(8, nn.DenseOptions{Act: "tanh"}),
		nn.NewDense(4, nn.DenseOptions{InUnits: 8}))
	sym, err := model.Trace([]ops.Shape{{0, 10}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := model.Initialize(); err != nil {
		t.Fatal(err)
	}
	internals := sym.GetInternals()
	smodel, err := nn.NewSymbolBlock(internals, []string{"data"}, model.CollectParams())
	if err != nil {
		t.Fatal(err)
	}
	// The parameters are the model's own: shared, not copied.
	if len(smodel.Params) != 6 || smodel.Params[0] != model.CollectParams().List()[0] {
		t.Fatalf("parameters %v", smodel.Params)
	}
	x := eager.RandomNormal(16, 10)
	outs := smodel.ForwardN(x)
	if len(outs) != len(internals.ListOutputs()) {
		t.Fatalf("%d outputs, want %d", len(outs), len(internals.ListOutputs()))
	}
	assertClose(t, "last internal output", outs[len(outs)-1], model.Forward(x))

	// As the child of a hybridized block, with gradients.
	run := func(hybridize bool) (ops.Tensor, [][]float64) {
		net := &wrapper{Model: smodel}
		net.Bind(net, "wrapper")
		if hybridize {
			net.Hybridize()
		}
		model.ZeroGrad()
		var y *eager.NDArray
		eager.Record(func() { y = net.Forward(x).(*eager.NDArray) })
		if err := y.Backward(); err != nil {
			t.Fatal(err)
		}
		return y, paramGrads(model.CollectParams().List())
	}
	ye, ge := run(false)
	yh, gh := run(true)
	assertClose(t, "hybridized wrapper", yh, ye)
	nonzero := false
	for i := range ge {
		if d := optest.FirstDiff(gh[i], ge[i], 1e-4, 1e-5); d >= 0 {
			t.Errorf("parameter %d: hybridized gradient differs at %d", i, d)
		}
		for _, g := range ge[i] {
			nonzero = nonzero || g != 0
		}
	}
	if !nonzero {
		t.Error("no gradient reached the SymbolBlock's parameters")
	}
}

// A symbol file written by hand in MXNet 1.x's form (an old node with
// "param" and two-element inputs among them) and a params file built with
// EncodeParams load and run.
func TestSymbolBlockImportsMXNetFiles(t *testing.T) {
	const symJSON = `{
  "nodes": [
    {"op": "null", "name": "data", "inputs": []},
    {"op": "null", "name": "dense0_weight", "attrs": {"__dtype__": "0", "__lr_mult__": "1.0", "__shape__": "(3, 0)", "__storage_type__": "0", "__wd_mult__": "1.0"}, "inputs": []},
    {"op": "null", "name": "dense0_bias", "attrs": {"__init__": "zeros", "__shape__": "(3,)"}, "inputs": []},
    {"op": "FullyConnected", "name": "dense0_fwd", "attrs": {"flatten": "True", "no_bias": "False", "num_hidden": "3"}, "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]},
    {"op": "Activation", "name": "dense0_relu_fwd", "param": {"act_type": "relu"}, "inputs": [[3, 0]]},
    {"op": "_mul_scalar", "name": "mul0", "attrs": {"scalar": "2.0"}, "inputs": [[4, 0, 0]]}
  ],
  "arg_nodes": [0, 1, 2],
  "node_row_ptr": [0, 1, 2, 3, 4, 5, 6],
  "heads": [[5, 0, 0]],
  "attrs": {"mxnet_version": ["int", 10600]}
}`
	dir := t.TempDir()
	symFile, paramFile := filepath.Join(dir, "m-symbol.json"), filepath.Join(dir, "m-0000.params")
	if err := os.WriteFile(symFile, []byte(symJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	w := []float32{1, 0, -1, 2, 0.5, 0.5, 0.5, 0.5, -1, -1, 1, 1}
	bias := []float32{0.5, 0, -10}
	data, err := mxnet.EncodeParams([]mxnet.NamedArray{
		{Name: "arg:dense0_weight", Array: eager.Array(w, 3, 4)},
		{Name: "arg:dense0_bias", Array: eager.Array(bias, 3)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(paramFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	sb, err := nn.SymbolBlockImports(symFile, []string{"data"}, paramFile)
	if err != nil {
		t.Fatal(err)
	}
	x := []float32{1, 2, 3, 4, -1, 0, 1, 2}
	want := make([]float64, 6)
	for i := range 2 {
		for j := range 3 {
			s := float64(bias[j])
			for k := range 4 {
				s += float64(x[i*4+k]) * float64(w[j*4+k])
			}
			want[i*3+j] = 2 * math.Max(s, 0)
		}
	}
	for _, hybrid := range []bool{false, true} {
		if hybrid {
			sb.Hybridize()
		}
		y := sb.Forward(eager.Array(x, 2, 4))
		if !y.Shape().Equal(ops.Shape{2, 3}) || optest.FirstDiff(y.Float64s(), want, 1e-6, 1e-6) >= 0 {
			t.Errorf("hybridized=%v: got %v %v, want %v", hybrid, y.Shape(), y.Float64s(), want)
		}
	}
	if s := sb.Params[0].Shape(); !s.Equal(ops.Shape{3, 4}) || sb.Params[0].Name() != "dense0_weight" {
		t.Errorf("weight %s %v", sb.Params[0].Name(), s)
	}
}

func TestSymbolBlockImportErrors(t *testing.T) {
	eager.Seed(9)
	d := nn.NewDense(3, nn.DenseOptions{InUnits: 4})
	d.Initialize()
	d.Hybridize()
	d.Forward(eager.Ones(1, 4))
	dir := t.TempDir()
	prefix := filepath.Join(dir, "dense")
	if err := d.Export(prefix, 0); err != nil {
		t.Fatal(err)
	}
	symFile := prefix + "-symbol.json"
	w, b := "arg:"+d.Weight.Name(), "arg:"+d.Bias.Name()
	weight, bias := d.Weight.Data(), d.Bias.Data()
	write := func(list ...mxnet.NamedArray) string {
		f, err := os.CreateTemp(dir, "*.params")
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		if err := mxnet.SaveParams(f.Name(), list); err != nil {
			t.Fatal(err)
		}
		return f.Name()
	}
	for _, tc := range []struct {
		name   string
		inputs []string
		params string
		opts   nn.ImportOptions
		want   []string // in the error; none: no error
	}{
		{"missing", []string{"data"}, write(mxnet.NamedArray{Name: w, Array: weight}), nn.ImportOptions{},
			[]string{d.Bias.Name(), "missing", "AllowMissing"}},
		{"missing allowed", []string{"data"}, write(mxnet.NamedArray{Name: w, Array: weight}), nn.ImportOptions{AllowMissing: true}, nil},
		{"extra", []string{"data"}, write(mxnet.NamedArray{Name: w, Array: weight}, mxnet.NamedArray{Name: b, Array: bias},
			mxnet.NamedArray{Name: "arg:stray", Array: bias}), nn.ImportOptions{}, []string{`"arg:stray"`, "not a variable", "IgnoreExtra"}},
		{"extra ignored", []string{"data"}, write(mxnet.NamedArray{Name: w, Array: weight}, mxnet.NamedArray{Name: b, Array: bias},
			mxnet.NamedArray{Name: "arg:stray", Array: bias}), nn.ImportOptions{IgnoreExtra: true}, nil},
		{"an input in the params", []string{"data"}, write(mxnet.NamedArray{Name: w, Array: weight}, mxnet.NamedArray{Name: b, Array: bias},
			mxnet.NamedArray{Name: "arg:data", Array: bias}), nn.ImportOptions{}, []string{`"arg:data"`, "is an input"}},
		{"shape mismatch", []string{"data"}, write(mxnet.NamedArray{Name: w, Array: eager.Ones(3, 5)}, mxnet.NamedArray{Name: b, Array: bias}),
			nn.ImportOptions{}, []string{w, "(3, 5)", "(3, 4)"}},
		{"twice", []string{"data"}, write(mxnet.NamedArray{Name: w, Array: weight}, mxnet.NamedArray{Name: "aux:" + d.Weight.Name(), Array: weight},
			mxnet.NamedArray{Name: b, Array: bias}), nn.ImportOptions{}, []string{d.Weight.Name(), "twice"}},
		{"unnamed", []string{"data"}, write(mxnet.NamedArray{Array: weight}), nn.ImportOptions{}, []string{"no name"}},
		{"wrong input name", []string{"input"}, write(mxnet.NamedArray{Name: w, Array: weight}, mxnet.NamedArray{Name: b, Array: bias}),
			nn.ImportOptions{}, []string{`"input"`, "its variables: data, " + d.Weight.Name(), symFile}},
		{"no such file", []string{"data"}, filepath.Join(dir, "absent.params"), nn.ImportOptions{}, []string{"absent.params"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sb, err := nn.SymbolBlockImports(symFile, tc.inputs, tc.params, tc.opts)
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				if sb.Params[0].Initialized() != true {
					t.Error("the weight was not loaded")
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if tc.name != "wrong input name" {
				tc.want = append(tc.want, tc.params)
			}
			for _, s := range tc.want {
				if !strings.Contains(msg, s) {
					t.Errorf("error %q does not mention %q", msg, s)
				}
			}
		})
	}
}

// sbNet holds a SymbolBlock (a backbone built from another block's graph)
// after a Dense layer: Gluon's test_symbol_block_save_load.
type sbNet struct {
	nn.HybridBlock
	Body     *nn.Dense
	Backbone *nn.SymbolBlock
}

func newSBNet(t *testing.T) *sbNet {
	t.Helper()
	bb := nn.NewHybridSequential(nn.NewDense(6, nn.DenseOptions{Act: "relu"}), nn.NewDense(5))
	sym, err := bb.Trace([]ops.Shape{{0, 4}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := nn.NewSymbolBlock(sym, []string{"data"}, bb.CollectParams())
	if err != nil {
		t.Fatal(err)
	}
	n := &sbNet{Body: nn.NewDense(4, nn.DenseOptions{InUnits: 3}), Backbone: sb}
	n.Bind(n, "sbnet")
	return n
}

func (n *sbNet) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	return n.Backbone.Forward(n.Body.Forward(x))
}

func TestSymbolBlockSaveLoad(t *testing.T) {
	eager.Seed(10)
	net1 := newSBNet(t)
	if err := net1.Initialize(nn.InitializeOptions{Init: nn.Normal(0.5)}); err != nil {
		t.Fatal(err)
	}
	net1.Hybridize()
	x := eager.RandomNormal(2, 3)
	y1 := net1.Forward(x)
	file := filepath.Join(t.TempDir(), "sb.params")
	if err := net1.SaveParameters(file); err != nil {
		t.Fatal(err)
	}
	list, err := mxnet.LoadParams(file)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, e := range list {
		keys = append(keys, e.Name)
	}
	want := "body.weight body.bias backbone.dense0_weight backbone.dense0_bias backbone.dense1_weight backbone.dense1_bias"
	if got := strings.Join(keys, " "); got != want {
		t.Errorf("keys\n%s\nwant\n%s", got, want)
	}
	net2 := newSBNet(t)
	if err := net2.LoadParameters(file); err != nil {
		t.Fatal(err)
	}
	assertClose(t, "loaded net, eager", net2.Forward(x), y1)
	net2.Hybridize()
	assertClose(t, "loaded net, hybridized", net2.Forward(x), y1)
}

// Auxiliary states imported from a file get no gradient, and the
// imported batch norm computes what the exported one did.
func TestSymbolBlockAuxStates(t *testing.T) {
	net := newBNNet()
	net.Initialize()
	x := eager.RandomNormal(6, 3)
	// Move the running statistics away from their initial values.
	eager.Record(func() { net.Forward(x) })
	net.Hybridize()
	want := net.Forward(x)
	prefix := filepath.Join(t.TempDir(), "bn")
	if err := net.Export(prefix, 0); err != nil {
		t.Fatal(err)
	}
	sb, err := nn.SymbolBlockImports(prefix+"-symbol.json", []string{"data"}, prefix+"-0000.params")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range sb.Params {
		aux := strings.HasSuffix(p.Name(), "running_mean") || strings.HasSuffix(p.Name(), "running_var")
		if got := p.GradReq() == eager.GradNull; got != aux {
			t.Errorf("%s: grad req %s", p.Name(), p.GradReq())
		}
	}
	if mean := sb.Params[len(sb.Params)-2].Data().Float64s(); mean[0] == 0 && mean[1] == 0 {
		t.Errorf("running mean not loaded: %v", mean)
	}
	assertClose(t, "imported batch norm", sb.Forward(x), want)
}

// Parameters made from a graph's variables wait for their unknown dims
// like any other, and imported ones keep the dtype they were saved with.
func TestSymbolBlockDeferredInitAndSavedDType(t *testing.T) {
	x := graph.Var("x", nil, ops.Unknown)
	w := graph.Var("fc_weight", ops.Shape{3, 0}, ops.Float32)
	b := graph.Var("fc_bias", ops.Shape{3}, ops.Float32)
	sb, err := nn.NewSymbolBlock(graph.F.FullyConnected(x, w, b, 3).(*graph.Symbol), []string{"x"})
	if err != nil {
		t.Fatal(err)
	}
	if err := sb.Initialize(); err != nil {
		t.Fatal(err)
	}
	if sb.Params[0].Initialized() {
		t.Fatal("a weight of unknown shape was initialised early")
	}
	y := sb.Forward(eager.Ones(2, 5))
	if !y.Shape().Equal(ops.Shape{2, 3}) || !sb.Params[0].Shape().Equal(ops.Shape{3, 5}) || sb.Params[0].Name() != "fc_weight" {
		t.Errorf("output %v, weight %s %v", y.Shape(), sb.Params[0].Name(), sb.Params[0].Shape())
	}

	// Saved as float64, imported as float64.
	sb.Cast(ops.Float64)
	sb.Hybridize()
	x64 := eager.Ones(2, 5).AsType(ops.Float64)
	want := sb.Forward(x64)
	prefix := filepath.Join(t.TempDir(), "f64")
	if err := sb.Export(prefix, 0); err != nil {
		t.Fatal(err)
	}
	imported, err := nn.SymbolBlockImports(prefix+"-symbol.json", []string{"data"}, prefix+"-0000.params")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range imported.Params {
		if p.DType() != ops.Float64 {
			t.Errorf("%s imported as %v", p.Name(), p.DType())
		}
	}
	got := imported.Forward(x64)
	if got.DType() != ops.Float64 {
		t.Errorf("output %v", got.DType())
	}
	assertClose(t, "float64 import", got, want)
}
