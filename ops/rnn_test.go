package ops_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/internal/torchtest"
	"github.com/hybridgo/hybridgo/ops"
)

// rnnTorchScript runs torch.nn.LSTM, GRU or RNN in float64 with the
// weights unpacked from MXNet's vector, and prints the outputs and the
// gradients of sum(out*wo) + sum(hy*wh) + sum(cy*wc), with the parameters'
// gradient packed back into MXNet's layout.
const rnnTorchScript = `
import json, sys, torch
c = json.load(open(sys.argv[1]))
T, N, I, H, L, D, mode = c["T"], c["N"], c["I"], c["H"], c["L"], c["D"], c["mode"]
G = {"lstm": 4, "gru": 3}.get(mode, 1)
if mode == "lstm":
    m = torch.nn.LSTM(I, H, L, bidirectional=D == 2)
elif mode == "gru":
    m = torch.nn.GRU(I, H, L, bidirectional=D == 2)
else:
    m = torch.nn.RNN(I, H, L, nonlinearity=mode[4:], bidirectional=D == 2)
m = m.double()
p = torch.tensor(c["params"], dtype=torch.float64)
names, off = [], 0
for kind in ["weight", "bias"]:
    for l in range(L):
        for d in range(D):
            for g in ["ih", "hh"]:
                names.append("%s_%s_l%d%s" % (kind, g, l, "_reverse" if d else ""))
params = dict(m.named_parameters())
with torch.no_grad():
    for n in names:
        t = params[n]
        t.copy_(p[off:off + t.numel()].view_as(t))
        off += t.numel()
assert off == p.numel()
x = torch.tensor(c["x"], dtype=torch.float64).view(T, N, I).requires_grad_()
h0 = torch.tensor(c["h0"], dtype=torch.float64).view(L * D, N, H).requires_grad_()
if mode == "lstm":
    c0 = torch.tensor(c["c0"], dtype=torch.float64).view(L * D, N, H).requires_grad_()
    out, (hy, cy) = m(x, (h0, c0))
else:
    out, hy = m(x, h0)
loss = (out * torch.tensor(c["wo"], dtype=torch.float64).view_as(out)).sum()
loss = loss + (hy * torch.tensor(c["wh"], dtype=torch.float64).view_as(hy)).sum()
res = {"out": out.flatten().tolist(), "hy": hy.flatten().tolist()}
if mode == "lstm":
    loss = loss + (cy * torch.tensor(c["wc"], dtype=torch.float64).view_as(cy)).sum()
    res["cy"] = cy.flatten().tolist()
loss.backward()
res["dx"] = x.grad.flatten().tolist()
res["dh0"] = h0.grad.flatten().tolist()
if mode == "lstm":
    res["dc0"] = c0.grad.flatten().tolist()
res["dparams"] = torch.cat([params[n].grad.flatten() for n in names]).tolist()
print(json.dumps(res))
`

// TestRNNMatchesTorch runs RNN and its gradient against PyTorch's
// recurrent layers given the same weights, for every mode, two layers,
// both directions.
func TestRNNMatchesTorch(t *testing.T) {
	torchtest.Require(t)
	const T, N, I, H, L, D = 5, 3, 4, 6, 2, 2
	for _, mode := range []string{"lstm", "gru", "rnn_tanh", "rnn_relu"} {
		t.Run(mode, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			rnd := func(n int, scale float64) []float64 {
				v := make([]float64, n)
				for i := range v {
					v[i] = (r.Float64()*2 - 1) * scale
				}
				return v
			}
			S := L * D * N * H
			c := map[string]any{"T": T, "N": N, "I": I, "H": H, "L": L, "D": D, "mode": mode,
				"params": rnd(ops.RNNParamSize(mode, I, H, L, D), 0.5), "x": rnd(T*N*I, 1),
				"h0": rnd(S, 1), "c0": rnd(S, 1), "wo": rnd(T*N*D*H, 1), "wh": rnd(S, 1), "wc": rnd(S, 1)}
			file := filepath.Join(t.TempDir(), "case.json")
			js, _ := json.Marshal(c)
			if err := os.WriteFile(file, js, 0o644); err != nil {
				t.Fatal(err)
			}
			var want map[string][]float64
			if err := json.Unmarshal(torchtest.Run(t, ".", rnnTorchScript, file), &want); err != nil {
				t.Fatal(err)
			}

			arr := func(k string, shape ...int) *eager.NDArray { return eager.Array(c[k].([]float64), shape...) }
			in := []*eager.NDArray{arr("x", T, N, I), arr("params", len(c["params"].([]float64))), arr("h0", L*D, N, H)}
			if mode == "lstm" {
				in = append(in, arr("c0", L*D, N, H))
			}
			for _, a := range in {
				a.AttachGrad()
			}
			op := ops.MustLookup("RNN")
			attrs, err := op.ParseAttrs(map[string]string{"mode": mode, "state_size": "6", "num_layers": "2",
				"bidirectional": "True", "state_outputs": "True"})
			if err != nil {
				t.Fatal(err)
			}
			var out []*eager.NDArray
			eager.Record(func() { out, err = eager.Run(op, attrs, in...) })
			if err != nil {
				t.Fatal(err)
			}
			heads := out[:op.NumVisibleOutputs(attrs)]
			hg := []*eager.NDArray{arr("wo", T, N, D*H), arr("wh", L*D, N, H), arr("wc", L*D, N, H)}[:len(heads)]
			grads, err := eager.Grad(heads, in, hg, false, false)
			if err != nil {
				t.Fatal(err)
			}
			check := func(name string, got *eager.NDArray) {
				t.Helper()
				w := want[name]
				g := got.Float64s()
				if len(g) != len(w) {
					t.Fatalf("%s: %d values, torch has %d", name, len(g), len(w))
				}
				for i := range w {
					if math.Abs(g[i]-w[i]) > 1e-9*(1+math.Abs(w[i])) {
						t.Errorf("%s[%d] = %.12g, torch %.12g", name, i, g[i], w[i])
						return
					}
				}
			}
			check("out", out[0])
			check("hy", out[1])
			check("dx", grads[0])
			check("dparams", grads[1])
			check("dh0", grads[2])
			if mode == "lstm" {
				check("cy", out[2])
				check("dc0", grads[3])
			}
		})
	}
}

// TestRNNFloat32 checks that float32 runs agree with float64 on a layer
// the size of a real one, where the GEMMs take their blocked paths.
func TestRNNFloat32(t *testing.T) {
	const T, N, I, H = 7, 5, 40, 48
	r := rand.New(rand.NewPCG(3, 4))
	vals := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = (r.Float64()*2 - 1) * 0.2
		}
		return v
	}
	x, p, h0, c0 := vals(T*N*I), vals(ops.RNNParamSize("lstm", I, H, 2, 1)), vals(2*N*H), vals(2*N*H)
	run := func(dt ops.DType) []float64 {
		in := []ops.Tensor{eager.Array(ops.FromFloat64s(dt, x), T, N, I), eager.Array(ops.FromFloat64s(dt, p), len(p)),
			eager.Array(ops.FromFloat64s(dt, h0), 2, N, H), eager.Array(ops.FromFloat64s(dt, c0), 2, N, H)}
		return eager.F.RNN(in, "lstm", H, 2)[0].Float64s()
	}
	a, b := run(ops.Float32), run(ops.Float64)
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-5 {
			t.Fatalf("out[%d]: float32 %v, float64 %v", i, a[i], b[i])
		}
	}
}

func TestRNNErrors(t *testing.T) {
	op := ops.MustLookup("RNN")
	for _, c := range []struct {
		attrs map[string]string
		want  string
	}{
		{map[string]string{"mode": "lstm", "state_size": "4", "num_layers": "1", "projection_size": "2"}, "projection_size is not supported"},
		{map[string]string{"mode": "lstm", "state_size": "4", "num_layers": "1", "use_sequence_length": "True"}, "use_sequence_length is not supported"},
		{map[string]string{"mode": "lstm", "state_size": "4", "num_layers": "0"}, "num_layers=0"},
		{map[string]string{"mode": "lstmx", "state_size": "4", "num_layers": "1"}, "mode"},
		{map[string]string{"mode": "gru", "num_layers": "1"}, "state_size is required"},
	} {
		if _, err := op.ParseAttrs(c.attrs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one saying %q", c.attrs, err, c.want)
		}
	}
	attrs, _ := op.ParseAttrs(map[string]string{"mode": "gru", "state_size": "4", "num_layers": "1"})
	_, _, err := op.InferShape(attrs, []ops.Shape{{5, 2, 3}, {10}, {1, 2, 4}})
	if err == nil || !strings.Contains(err.Error(), "parameters") || !strings.Contains(err.Error(), "should hold 108 values") {
		t.Errorf("wrong parameter size: %v", err)
	}
	_, _, err = op.InferShape(attrs, []ops.Shape{{5, 2, 3}, {108}, {2, 2, 4}})
	if err == nil || !strings.Contains(err.Error(), "state") {
		t.Errorf("wrong state shape: %v", err)
	}
	if err := panicErr(func() { eager.F.RNN([]ops.Tensor{eager.Zeros(5, 2, 3)}, "gru", 4, 1) }); err == nil || !strings.Contains(err.Error(), "takes 3 inputs") {
		t.Errorf("missing inputs: %v", err)
	}
}

// TestRNNDropout checks p between layers: prediction mode ignores it;
// training mode drops, and with the masks repeated by a seed the
// gradient matches central differences.
func TestRNNDropout(t *testing.T) {
	const T, N, I, H = 3, 2, 3, 4
	r := rand.New(rand.NewPCG(5, 6))
	vals := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = r.Float64()*2 - 1
		}
		return v
	}
	x, p, h0 := vals(T*N*I), vals(ops.RNNParamSize("gru", I, H, 2, 1)), vals(2*N*H)
	wo := vals(T * N * H)
	inputs := func() []*eager.NDArray {
		return []*eager.NDArray{eager.Array(x, T, N, I), eager.Array(p, len(p)), eager.Array(h0, 2, N, H)}
	}
	run := func(in []*eager.NDArray, attrs ...ops.Attr) *eager.NDArray {
		ts := []ops.Tensor{in[0], in[1], in[2]}
		return eager.F.RNN(ts, "gru", H, 2, attrs...)[0].(*eager.NDArray)
	}
	plain := run(inputs()).Float64s()
	if got := run(inputs(), ops.Attr{"p", 0.5}).Float64s(); !slicesClose(got, plain, 0) {
		t.Errorf("prediction mode with p=0.5 differs from p=0")
	}
	loss := func() float64 {
		eager.Seed(9)
		var out *eager.NDArray
		eager.TrainMode(func() { out = run(inputs(), ops.Attr{"p", 0.5}) })
		s := 0.0
		for i, v := range out.Float64s() {
			s += v * wo[i]
		}
		return s
	}
	var dropped *eager.NDArray
	eager.Seed(9)
	eager.TrainMode(func() { dropped = run(inputs(), ops.Attr{"p", 0.5}) })
	if slicesClose(dropped.Float64s(), plain, 0) {
		t.Errorf("training mode with p=0.5 dropped nothing")
	}
	in := inputs()
	in[1].AttachGrad()
	eager.Seed(9)
	var out *eager.NDArray
	eager.Record(func() { out = run(in, ops.Attr{"p", 0.5}) })
	grads, err := eager.Grad([]*eager.NDArray{out}, []*eager.NDArray{in[1]}, []*eager.NDArray{eager.Array(wo, T, N, H)}, false, false)
	if err != nil {
		t.Fatal(err)
	}
	g := grads[0].Float64s()
	for _, j := range []int{0, 7, len(p) / 2, len(p) - 20, len(p) - 1} {
		orig := p[j]
		p[j] = orig + 1e-6
		plus := loss()
		p[j] = orig - 1e-6
		minus := loss()
		p[j] = orig
		if num := (plus - minus) / 2e-6; math.Abs(num-g[j]) > 1e-5*(1+math.Abs(num)) {
			t.Errorf("d/dparameters[%d]: rule %v, central difference %v", j, g[j], num)
		}
	}
}

func slicesClose(a, b []float64, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > tol {
			return false
		}
	}
	return true
}

// TestRNNShapeInference checks that RNN's shape rule fills what it can
// of unknown inputs: the parameter vector's length from the data and
// the attributes, the states from the data's batch, and the batch from
// the states when the data's is unknown.
func TestRNNShapeInference(t *testing.T) {
	op := ops.MustLookup("RNN")
	attrs, err := op.ParseAttrs(map[string]string{"mode": "lstm", "state_size": "4", "num_layers": "2", "bidirectional": "True", "state_outputs": "True"})
	if err != nil {
		t.Fatal(err)
	}
	out, filled, err := op.InferShape(attrs, []ops.Shape{{5, 3, 6}, nil, {0, 0, 0}, nil})
	if err != nil {
		t.Fatal(err)
	}
	if want := (ops.Shape{ops.RNNParamSize("lstm", 6, 4, 2, 2)}); !filled[1].Equal(want) {
		t.Errorf("parameters filled as %v, want %v", filled[1], want)
	}
	for i := 2; i < 4; i++ {
		if !filled[i].Equal(ops.Shape{4, 3, 4}) {
			t.Errorf("input %d filled as %v, want 4x3x4", i, filled[i])
		}
	}
	if !out[0].Equal(ops.Shape{5, 3, 8}) || !out[1].Equal(ops.Shape{4, 3, 4}) || !out[2].Equal(ops.Shape{4, 3, 4}) {
		t.Errorf("outputs %v", out)
	}
	out, _, err = op.InferShape(attrs, []ops.Shape{{5, 0, 6}, nil, {4, 7, 4}, {4, 7, 4}})
	if err != nil || !out[0].Equal(ops.Shape{5, 7, 8}) {
		t.Errorf("batch from the states: %v, %v", out, err)
	}
}

func TestRNNShapeUnknownInputSize(t *testing.T) {
	op := ops.MustLookup("RNN")
	attrs, _ := op.ParseAttrs(map[string]string{"mode": "gru", "state_size": "4", "num_layers": "1"})
	out, _, err := op.InferShape(attrs, []ops.Shape{{5, 2, 0}, nil, nil})
	if err != nil || !out[0].Equal(ops.Shape{5, 2, 4}) {
		t.Errorf("unknown input size: %v, %v", out, err)
	}
	if _, _, err := op.InferShape(attrs, []ops.Shape{{5, 2, 0}, {3, 4}, nil}); err == nil || !strings.Contains(err.Error(), "must be a vector") {
		t.Errorf("a matrix of parameters: %v", err)
	}
}
