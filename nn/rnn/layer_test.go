package rnn_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/format/mxnet"
	"github.com/hybridgo/hybridgo/internal/torchtest"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/nn/rnn"
	"github.com/hybridgo/hybridgo/ops"
)

// closeTo fails the test when got and want differ by more than tol
// (relative to 1 + |want|).
func closeTo(t *testing.T, name string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", name, len(got), len(want))
	}
	for i := range want {
		if math.IsNaN(got[i]) || math.Abs(got[i]-want[i]) > tol*(1+math.Abs(want[i])) {
			t.Fatalf("%s[%d] = %.10g, want %.10g", name, i, got[i], want[i])
		}
	}
}

// layerTorchScript builds torch.nn.LSTM, GRU or RNN, copies the Gluon
// parameters across by name (l0_i2h_weight -> weight_ih_l0, r0_… ->
// …_reverse; both stack the gates in the same order), runs it on the
// input and states, and prints the output and final states.
const layerTorchScript = `
import json, sys, torch
c = json.load(open(sys.argv[1]))
kind, I, H, L, bi, ntc = c["kind"], c["I"], c["H"], c["L"], c["bi"], c["ntc"]
args = dict(bidirectional=bi, batch_first=ntc)
if kind == "lstm":
    m = torch.nn.LSTM(I, H, L, **args)
elif kind == "gru":
    m = torch.nn.GRU(I, H, L, **args)
else:
    m = torch.nn.RNN(I, H, L, nonlinearity=kind[4:], **args)
m = m.double()
params = dict(m.named_parameters())
with torch.no_grad():
    for name, vals in c["params"].items():
        d, l = name[0], int(name[1:name.index("_")])
        g, t = name.split("_")[1:]
        tname = "%s_%s_l%d%s" % (t, {"i2h": "ih", "h2h": "hh"}[g], l, "_reverse" if d == "r" else "")
        params[tname].copy_(torch.tensor(vals, dtype=torch.float64).view_as(params[tname]))
x = torch.tensor(c["x"], dtype=torch.float64).view(c["xshape"])
S = (L * (2 if bi else 1), c["N"], H)
h0 = torch.tensor(c["h0"], dtype=torch.float64).view(S)
if kind == "lstm":
    out, (hy, cy) = m(x, (h0, torch.tensor(c["c0"], dtype=torch.float64).view(S)))
    states = [hy, cy]
else:
    out, hy = m(x, h0)
    states = [hy]
print(json.dumps({"out": out.flatten().tolist(), "states": [s.flatten().tolist() for s in states]}))
`

// TestLayersMatchTorch gives torch's recurrent layers the weights of
// ours and compares outputs and final states, in both layouts.
func TestLayersMatchTorch(t *testing.T) {
	torchtest.Require(t)
	const N, T, I, H = 3, 5, 4, 6
	for _, c := range []struct {
		kind  string
		layer func() *rnn.Layer
		ntc   bool
		bi    bool
		L     int
	}{
		{"lstm", func() *rnn.Layer {
			return rnn.NewLSTM(H, rnn.Options{NumLayers: 2, Bidirectional: true, DType: ops.Float64})
		}, false, true, 2},
		{"lstm", func() *rnn.Layer {
			return rnn.NewLSTM(H, rnn.Options{Layout: "NTC", DType: ops.Float64, InputSize: I})
		}, true, false, 1},
		{"gru", func() *rnn.Layer {
			return rnn.NewGRU(H, rnn.Options{NumLayers: 2, Layout: "NTC", Bidirectional: true, DType: ops.Float64})
		}, true, true, 2},
		{"rnn_tanh", func() *rnn.Layer {
			return rnn.NewRNN(H, rnn.Options{NumLayers: 2, Activation: "tanh", DType: ops.Float64})
		}, false, false, 2},
		{"rnn_relu", func() *rnn.Layer { return rnn.NewRNN(H, rnn.Options{DType: ops.Float64}) }, false, false, 1},
	} {
		t.Run(c.kind, func(t *testing.T) {
			eager.Seed(3)
			l := c.layer()
			if err := l.Initialize(nn.InitializeOptions{Init: nn.Uniform(0.4)}); err != nil {
				t.Fatal(err)
			}
			xshape := []int{T, N, I}
			if c.ntc {
				xshape = []int{N, T, I}
			}
			x := uniform(xshape...)
			states := l.BeginState(N)
			for i := range states {
				states[i] = uniform(states[i].Shape()...)
			}
			in := append([]ops.Tensor{x}, tensors(states)...)
			out := l.ForwardN(in...)
			params := map[string][]float64{}
			for _, p := range l.Params {
				local := strings.TrimPrefix(p.Name(), l.Prefix())
				params[local] = p.Data().Float64s()
			}
			cfg := map[string]any{"kind": c.kind, "I": I, "H": H, "L": c.L, "N": N, "bi": c.bi, "ntc": c.ntc,
				"params": params, "x": x.Float64s(), "xshape": xshape, "h0": states[0].Float64s()}
			if c.kind == "lstm" {
				cfg["c0"] = states[1].Float64s()
			}
			var want struct {
				Out    []float64
				States [][]float64
			}
			if err := json.Unmarshal(torchtest.Run(t, ".", layerTorchScript, writeJSON(t, cfg)), &want); err != nil {
				t.Fatal(err)
			}
			closeTo(t, "out", out[0].Float64s(), want.Out, 1e-9)
			for i, s := range want.States {
				closeTo(t, "state", out[1+i].Float64s(), s, 1e-9)
			}
		})
	}
}

// uniform is a float64 array of values drawn uniformly from [-1, 1).
func uniform(shape ...int) *eager.NDArray {
	r := rand.New(rand.NewPCG(uint64(len(shape)), 17))
	v := make([]float64, ops.Shape(shape).Size())
	for i := range v {
		v[i] = r.Float64()*2 - 1
	}
	return eager.Array(v, shape...)
}

func tensors(a []*eager.NDArray) []ops.Tensor {
	out := make([]ops.Tensor, len(a))
	for i, x := range a {
		out[i] = x
	}
	return out
}

func writeJSON(t *testing.T, v any) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "case.json")
	js, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, js, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestLayerNames checks Gluon's parameter names and order, and the
// deferred input size.
func TestLayerNames(t *testing.T) {
	l := rnn.NewLSTM(8, rnn.Options{NumLayers: 2, Bidirectional: true})
	var names []string
	for _, p := range l.Params {
		names = append(names, strings.TrimPrefix(p.Name(), l.Prefix()))
	}
	want := "l0_i2h_weight l0_h2h_weight l0_i2h_bias l0_h2h_bias r0_i2h_weight r0_h2h_weight r0_i2h_bias r0_h2h_bias " +
		"l1_i2h_weight l1_h2h_weight l1_i2h_bias l1_h2h_bias r1_i2h_weight r1_h2h_weight r1_i2h_bias r1_h2h_bias"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("names %s\nwant %s", got, want)
	}
	if !strings.HasPrefix(l.Params[0].Name(), "lstm") {
		t.Errorf("parameter %s is not named after the layer", l.Params[0].Name())
	}
	if got := l.Param("l0_i2h_weight").Shape(); !got.Equal(ops.Shape{32, 0}) {
		t.Errorf("l0_i2h_weight before a forward: %v", got)
	}
	if got := l.Param("l1_i2h_weight").Shape(); !got.Equal(ops.Shape{32, 16}) {
		t.Errorf("l1_i2h_weight: %v", got)
	}
	if err := l.Initialize(); err != nil {
		t.Fatal(err)
	}
	y := l.Forward(eager.RandomNormal(5, 3, 7))
	if !y.Shape().Equal(ops.Shape{5, 3, 16}) {
		t.Errorf("output %v, want 5x3x16", y.Shape())
	}
	if got := l.Param("r0_i2h_weight").Shape(); !got.Equal(ops.Shape{32, 7}) {
		t.Errorf("r0_i2h_weight after a forward: %v", got)
	}
	if got := l.String(); got != "LSTM(7 -> 8, TNC, num_layers=2, bidirectional)" {
		t.Errorf("String: %s", got)
	}
}

// TestLayerEagerEqualsHybridized runs each layer eagerly and hybridized,
// with and without states, and compares outputs and parameter gradients.
func TestLayerEagerEqualsHybridized(t *testing.T) {
	for _, mk := range []func() *rnn.Layer{
		func() *rnn.Layer { return rnn.NewLSTM(5, rnn.Options{NumLayers: 2, Bidirectional: true}) },
		func() *rnn.Layer { return rnn.NewGRU(5, rnn.Options{Layout: "NTC"}) },
		func() *rnn.Layer { return rnn.NewRNN(5, rnn.Options{NumLayers: 2, Activation: "tanh"}) },
	} {
		eager.Seed(1)
		l := mk()
		if err := l.Initialize(); err != nil {
			t.Fatal(err)
		}
		x := eager.RandomNormal(4, 3, 6)
		run := func(withStates bool) ([][]float64, [][]float64) {
			in := []ops.Tensor{x}
			if withStates {
				batch := x.Shape()[strings.Index(l.Layout(), "N")]
				for _, s := range l.BeginState(batch) {
					in = append(in, eager.F.OnesLike(s))
				}
			}
			var out []ops.Tensor
			eager.Record(func() { out = l.ForwardN(in...) })
			var heads []*eager.NDArray
			var vals [][]float64
			for _, o := range out {
				heads = append(heads, o.(*eager.NDArray))
				vals = append(vals, o.Float64s())
			}
			if err := eager.Backward(heads, nil, false); err != nil {
				t.Fatal(err)
			}
			var grads [][]float64
			for _, p := range l.Params {
				grads = append(grads, p.Grad().Float64s())
			}
			return vals, grads
		}
		for _, withStates := range []bool{false, true} {
			l.Hybridize(nn.HybridizeOptions{Off: true})
			wantOut, wantGrad := run(withStates)
			l.Hybridize()
			gotOut, gotGrad := run(withStates)
			for i := range wantOut {
				closeTo(t, l.Name()+" out", gotOut[i], wantOut[i], 1e-5)
			}
			for i := range wantGrad {
				closeTo(t, l.Name()+" grad "+l.Params[i].Name(), gotGrad[i], wantGrad[i], 1e-5)
			}
		}
	}
}

// TestLayerExportImport exports a hybridized LSTM and loads it back as a
// SymbolBlock: the graph has MXNet's RNN and _rnn_param_concat nodes,
// and the outputs agree.
func TestLayerExportImport(t *testing.T) {
	eager.Seed(2)
	l := rnn.NewLSTM(6, rnn.Options{NumLayers: 2, Dropout: 0.3})
	if err := l.Initialize(); err != nil {
		t.Fatal(err)
	}
	l.Hybridize()
	x := eager.RandomNormal(5, 2, 3)
	want := l.Forward(x).Float64s()
	prefix := filepath.Join(t.TempDir(), "lstm")
	if err := l.Export(prefix, 0); err != nil {
		t.Fatal(err)
	}
	js, err := os.ReadFile(prefix + "-symbol.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"op": "RNN"`, `"op": "_rnn_param_concat"`, `"mode": "lstm"`, `"state_outputs": "True"`, `"p": "0.3"`,
		`"name": "` + l.Prefix() + `l1_h2h_bias"`} {
		if !strings.Contains(string(js), s) {
			t.Errorf("the symbol file lacks %s", s)
		}
	}
	sb, err := nn.SymbolBlockImports(prefix+"-symbol.json", []string{"data"}, prefix+"-0000.params")
	if err != nil {
		t.Fatal(err)
	}
	closeTo(t, "imported", sb.Forward(x).Float64s(), want, 1e-6)
	// The zero states are made from the data, so the files hold no batch
	// size: the imported block takes another one.
	if strings.Contains(string(js), `"op": "_zeros"`) {
		t.Errorf("the symbol file fixes the states' shape with _zeros")
	}
	x3 := eager.RandomNormal(5, 3, 3)
	closeTo(t, "imported, batch 3", sb.Forward(x3).Float64s(), l.Forward(x3).Float64s(), 1e-6)
}

func TestLayerErrors(t *testing.T) {
	for _, c := range []struct {
		f    func()
		want string
	}{
		{func() { rnn.NewLSTM(0) }, "rnn.NewLSTM: hiddenSize=0"},
		{func() { rnn.NewGRU(4, rnn.Options{Layout: "TCN"}) }, `Layout "TCN"`},
		{func() { rnn.NewRNN(4, rnn.Options{Activation: "sigmoid"}) }, `Activation "sigmoid"`},
		{func() {
			l := rnn.NewLSTM(4)
			l.Initialize()
			l.ForwardN(eager.Zeros(2, 3, 5), eager.Zeros(1, 3, 4))
		}, "1 states given; lstm takes 2"},
		{func() {
			l := rnn.NewGRU(4)
			l.Initialize()
			l.ForwardN(eager.Zeros(2, 3, 5), eager.Zeros(1, 2, 4))
		}, "state 0 is 1x2x4; expected 1x3x4"},
		{func() {
			l := rnn.NewGRU(4)
			l.Initialize()
			l.Forward(eager.Zeros(2, 3))
		}, "must be 3-D"},
	} {
		err := func() (err any) {
			defer func() { err = recover() }()
			c.f()
			return nil
		}()
		if err == nil || !strings.Contains(err.(error).Error(), c.want) {
			t.Errorf("error %v, want one saying %q", err, c.want)
		}
	}
}

// TestImportGluonLSTM loads an LSTM as MXNet 1.9's Gluon exports it: the
// parameters joined by _rnn_param_concat, and the initial states as
// _zeros of shape (1, 0, 3), whose batch dim the RNN op infers. It runs
// eagerly and hybridized, at two batch sizes, and agrees with a layer
// given the same weights.
func TestImportGluonLSTM(t *testing.T) {
	eager.Seed(6)
	l := rnn.NewLSTM(3, rnn.Options{InputSize: 2})
	if err := l.Initialize(nn.InitializeOptions{Init: nn.Uniform(0.5)}); err != nil {
		t.Fatal(err)
	}
	var list []mxnet.NamedArray
	for _, p := range l.Params {
		local := strings.TrimPrefix(p.Name(), l.Prefix())
		list = append(list, mxnet.NamedArray{Name: "arg:lstm0_" + local, Array: p.Data()})
	}
	params := filepath.Join(t.TempDir(), "gluon19-lstm-0000.params")
	if err := mxnet.SaveParams(params, list); err != nil {
		t.Fatal(err)
	}
	sb, err := nn.SymbolBlockImports(filepath.Join("testdata", "gluon19-lstm-symbol.json"), []string{"data"}, params)
	if err != nil {
		t.Fatal(err)
	}
	for _, hybrid := range []bool{false, true} {
		if hybrid {
			sb.Hybridize()
		}
		for _, batch := range []int{2, 5} {
			x := eager.RandomNormal(4, batch, 2)
			closeTo(t, fmt.Sprintf("hybridized=%v batch %d", hybrid, batch), sb.Forward(x).Float64s(), l.Forward(x).Float64s(), 1e-6)
		}
	}
}
