package graph_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/internal/optest"
	"github.com/hybridgo/hybridgo/ops"
)

// Gradients computed through a traced graph equal the eager tape's, for
// every op sample with a gradient rule.
func TestRegistryGraphGradientsEqualEager(t *testing.T) {
	cs, _ := optest.Cases()
	for _, c := range cs {
		if !c.Op.HasGradRule() || c.Random() || c.Sample.NoGradCheck {
			continue
		}
		in := c.Inputs(ops.Float64, 4)
		var err error
		eager.TrainMode(func() { _, err = eager.Run(c.Op, c.Attrs, in...) })
		if err != nil {
			continue // an op that refuses training mode (rrelu)
		}
		sym, _, err := traceCase(c, in, true)
		if err != nil {
			t.Errorf("%s: trace: %v", c.Name, err)
			continue
		}
		visible := c.Op.NumVisibleOutputs(c.Attrs)
		sym = graph.FromEntries(sym.Entries()[:visible]...)
		// Bind by name: the op's inputs are in0, in1, … in some order.
		byName := map[string]*eager.NDArray{}
		for i, a := range in {
			byName[fmt.Sprintf("in%d", i)] = a
		}
		cop, args := compileFor(t, sym, byName, false, graph.CompileOptions{})
		outs, err := cop.Forward(true, args...)
		if err != nil {
			t.Errorf("%s: forward: %v", c.Name, err)
			continue
		}
		r := rand.New(rand.NewPCG(3, 4))
		heads := make([]*eager.NDArray, len(outs))
		for i, o := range outs {
			w := make([]float64, o.Size())
			for j := range w {
				w[j] = r.Float64()*2 - 1
			}
			heads[i] = eager.Array(w, o.Shape()...)
		}
		got, err := cop.Backward(heads...)
		if err != nil {
			t.Errorf("%s: backward: %v", c.Name, err)
			continue
		}
		// The eager tape, on the same inputs and head gradients.
		vars := c.DiffInputs(in)
		var ev []*eager.NDArray
		for _, j := range vars {
			in[j].AttachGrad()
			ev = append(ev, in[j])
		}
		var eo []*eager.NDArray
		eager.Record(func() { eo, err = eager.Run(c.Op, c.Attrs, in...) })
		if err != nil {
			t.Fatal(err)
		}
		want, err := eager.Grad(eo[:visible], ev, heads, false, false)
		if err != nil {
			t.Errorf("%s: eager grad: %v", c.Name, err)
			continue
		}
		for k, j := range vars {
			name := fmt.Sprintf("in%d", j)
			var g *eager.NDArray
			for i, n := range cop.InputNames() {
				if n == name {
					g = got[i]
				}
			}
			if g == nil {
				t.Errorf("%s: the graph gives no gradient for %s", c.Name, name)
				continue
			}
			if d := optest.FirstDiff(g.Float64s(), want[k].Float64s(), 1e-12, 1e-12); d >= 0 {
				t.Errorf("%s: d/d%s[%d]: graph %v, eager %v", c.Name, name, d, g.Float64s()[d], want[k].Float64s()[d])
			}
		}
	}
}

// compileFor compiles sym for calls on the arrays bound to its inputs by
// name (on the tape, when onTape), and returns them in the executable's
// order.
func compileFor(t testing.TB, sym *graph.Symbol, bind map[string]*eager.NDArray, onTape bool, opts graph.CompileOptions) (*graph.Executable, []*eager.NDArray) {
	t.Helper()
	names, err := graph.CallInputs(sym)
	if err != nil {
		t.Fatal(err)
	}
	args := make([]*eager.NDArray, len(names))
	for i, n := range names {
		args[i] = bind[n]
	}
	e, err := graph.Compile(sym, graph.SignatureOf(args, onTape), opts)
	if err != nil {
		t.Fatal(err)
	}
	return e, args
}

// argsIn returns the arrays bound by name in e's input order.
func argsIn(e *graph.Executable, bind map[string]*eager.NDArray) []*eager.NDArray {
	args := make([]*eager.NDArray, len(e.InputNames()))
	for i, n := range e.InputNames() {
		args[i] = bind[n]
	}
	return args
}

// mlpParams returns the parameters of the two-layer perceptron mlp().
func mlpParams() map[string]*eager.NDArray {
	eager.Seed(5)
	return map[string]*eager.NDArray{
		"fc1_weight": eager.F.MulScalar(eager.RandomNormal(128, 784), 0.05).(*eager.NDArray),
		"fc1_bias":   eager.Zeros(128),
		"fc2_weight": eager.F.MulScalar(eager.RandomNormal(10, 128), 0.1).(*eager.NDArray),
		"fc2_bias":   eager.Zeros(10),
	}
}

// withData binds the data x and the parameters by name.
func withData(x *eager.NDArray, params map[string]*eager.NDArray) map[string]*eager.NDArray {
	bind := map[string]*eager.NDArray{"data": x}
	for k, v := range params {
		bind[k] = v
	}
	return bind
}

// mlpExec compiles mlp() for calls on x with params.
func mlpExec(t testing.TB, x *eager.NDArray, params map[string]*eager.NDArray, onTape bool, opts graph.CompileOptions) (*graph.Executable, []*eager.NDArray) {
	y, _ := mlp()
	return compileFor(t, y, withData(x, params), onTape, opts)
}

// A call on the eager tape is one node: Record and Backward flow through
// the graph into parameters, with the same result as the eager ops.
func TestCallFlowsThroughTheTape(t *testing.T) {
	params := mlpParams()
	x := eager.RandomNormal(4, 784)
	for _, v := range params {
		v.AttachGrad()
	}
	cop, args := mlpExec(t, x, params, true, graph.CompileOptions{})
	var loss *eager.NDArray
	eager.Record(func() {
		out, err := cop.Call(args...)
		if err != nil {
			t.Fatal(err)
		}
		loss = eager.F.Sum(eager.F.Square(out[0])).(*eager.NDArray)
	})
	if err := loss.Backward(); err != nil {
		t.Fatal(err)
	}
	graphGrad := params["fc1_weight"].Grad().Copy()

	F := eager.F
	eager.Record(func() {
		h := F.Relu(F.FullyConnected(x, params["fc1_weight"], params["fc1_bias"], 128))
		out := F.FullyConnected(h, params["fc2_weight"], params["fc2_bias"], 10)
		loss = F.Sum(F.Square(out)).(*eager.NDArray)
	})
	loss.Backward()
	if d := optest.FirstDiff(graphGrad.Float64s(), params["fc1_weight"].Grad().Float64s(), 1e-5, 1e-6); d >= 0 {
		t.Errorf("fc1_weight gradient differs at %d", d)
	}
}

func TestStaticAllocReusesBuffersAndOtherShapesAreRefused(t *testing.T) {
	params := mlpParams()
	cop, args := mlpExec(t, eager.RandomNormal(8, 784), params, false, graph.CompileOptions{StaticAlloc: true})
	first, err := cop.Forward(false, args...)
	if err != nil {
		t.Fatal(err)
	}
	want := first[0].Copy()
	second, _ := cop.Forward(false, args...)
	if &first[0].Data().([]float32)[0] != &second[0].Data().([]float32)[0] {
		t.Error("StaticAlloc gave a new output buffer on the second call")
	}
	if d := optest.FirstDiff(second[0].Float64s(), want.Float64s(), 0, 0); d >= 0 {
		t.Error("the second call gave other values")
	}
	// An executable runs the signature it was compiled for, and names it.
	other := append([]*eager.NDArray(nil), args...)
	for i, name := range cop.InputNames() {
		if name == "data" {
			other[i] = eager.RandomNormal(3, 784)
		}
	}
	_, err = cop.Forward(false, other...)
	if err == nil || !strings.Contains(err.Error(), "compiled for") || !strings.Contains(err.Error(), "data 8x784") || !strings.Contains(err.Error(), "data 3x784") {
		t.Errorf("another shape: %v", err)
	}
}

func TestOpHookSeesEveryOutput(t *testing.T) {
	cop, args := mlpExec(t, eager.RandomNormal(2, 784), mlpParams(), false, graph.CompileOptions{Hooked: true})
	var seen []string
	cop.SetOpHook(func(name, op string, v *eager.NDArray) {
		seen = append(seen, fmt.Sprintf("%s %s %v", name, op, v.Shape()))
	}, false)
	if _, err := cop.Forward(false, args...); err != nil {
		t.Fatal(err)
	}
	want := "net0_fc1_fwd_output FullyConnected 2x128|net0_relu0_output relu 2x128|net0_fc2_fwd_output FullyConnected 2x10"
	if got := strings.Join(seen, "|"); got != want {
		t.Errorf("hook saw %s", got)
	}
	seen = nil
	cop.SetOpHook(func(name, op string, v *eager.NDArray) { seen = append(seen, name) }, true)
	cop.Forward(false, args...)
	if got := strings.Join(seen[:4], " "); got != "net0_fc1_fwd_data net0_fc1_fwd_weight net0_fc1_fwd_bias net0_fc1_fwd_output" {
		t.Errorf("monitor all saw %s", got)
	}
}

// Training mode updates BatchNorm's moving statistics in place and drops
// with Dropout; prediction mode uses the statistics and passes through.
func TestExecutableRespectsTrainAndPredictModes(t *testing.T) {
	tr := graph.NewTracer()
	F := tr.F()
	x := graph.Var("data", ops.Shape{0, 3, 2, 2}, ops.Float32)
	v := func(n string) ops.Tensor { return graph.Var(n, nil, ops.Unknown) }
	y := F.Dropout(F.BatchNorm(x, v("gamma"), v("beta"), v("mean"), v("var"), ops.Attr{Name: "fix_gamma", Value: false}), 0.5)
	sym := y.(*graph.Symbol)
	if got := strings.Join(sym.ListAuxiliaryStates(), " "); got != "mean var" {
		t.Fatalf("aux states %q", got)
	}
	eager.Seed(9)
	bind := map[string]*eager.NDArray{
		"data":  eager.F.PlusScalar(eager.RandomNormal(8, 3, 2, 2), 5).(*eager.NDArray),
		"gamma": eager.Ones(3), "beta": eager.Zeros(3), "mean": eager.Zeros(3), "var": eager.Ones(3),
	}
	cop, args := compileFor(t, sym, bind, false, graph.CompileOptions{})
	out, err := cop.Forward(false, args...)
	if err != nil {
		t.Fatal(err)
	}
	// Predict: moving stats (0, 1) are used, nothing is dropped, nothing moves.
	if d := optest.FirstDiff(out[0].Float64s(), eager.F.DivScalar(bind["data"], sqrt1p001).(*eager.NDArray).Float64s(), 1e-5, 1e-5); d >= 0 {
		t.Errorf("predict-mode output differs at %d", d)
	}
	if bind["mean"].At(0) != 0 {
		t.Error("predict mode moved the moving mean")
	}
	out, err = cop.Forward(true, args...)
	if err != nil {
		t.Fatal(err)
	}
	if m := bind["mean"].At(0); m < 0.3 || m > 0.7 { // 0.9*0 + 0.1*~5
		t.Errorf("training mode: moving mean %v, want about 0.5", m)
	}
	zeros := 0
	for _, v := range out[0].Float64s() {
		if v == 0 {
			zeros++
		}
	}
	if zeros < 24 || zeros > 72 {
		t.Errorf("training mode: Dropout(0.5) zeroed %d of 96", zeros)
	}
}

// sqrt1p001 is sqrt(1 + eps) for BatchNorm's default eps.
const sqrt1p001 = 1.0004998750624610

// A call outside Record runs the forward alone (in the static buffers
// with StaticAlloc); a call inside Record keeps its own values, and its
// backward is right either way.
func TestCallOutsideRecordWithStaticAlloc(t *testing.T) {
	x := eager.RandomNormal(64, 784)
	var results, grads [2][]float64
	for i, static := range []bool{false, true} {
		params := mlpParams()
		call := mlpCall(t, x, params, false, graph.CompileOptions{StaticAlloc: static})
		results[i] = call()[0].Float64s()
		if again := call()[0].Float64s(); optest.FirstDiff(again, results[i], 0, 0) >= 0 {
			t.Errorf("static=%v: a second call gave other values", static)
		}
		w := params["fc1_weight"]
		w.AttachGrad()
		eager.Record(func() {
			y := eager.F.Sum(call()[0]).(*eager.NDArray)
			call() // a second call must not disturb the first one's values
			if err := y.Backward(); err != nil {
				t.Fatal(err)
			}
		})
		grads[i] = w.Grad().Float64s()
	}
	if d := optest.FirstDiff(results[1], results[0], 0, 0); d >= 0 {
		t.Errorf("StaticAlloc changes output %d", d)
	}
	if d := optest.FirstDiff(grads[1], grads[0], 1e-6, 1e-6); d >= 0 {
		t.Errorf("StaticAlloc changes gradient %d", d)
	}
}

// mlpCall compiles mlp() for x and params, and returns a function that
// calls it through Call.
func mlpCall(t *testing.T, x *eager.NDArray, params map[string]*eager.NDArray, onTape bool, opts graph.CompileOptions) func() []*eager.NDArray {
	cop, args := mlpExec(t, x, params, onTape, opts)
	return func() []*eager.NDArray {
		outs, err := cop.Call(args...)
		if err != nil {
			t.Fatal(err)
		}
		return outs
	}
}

// On the tape, a call whose data needs no gradient runs a program without
// the data's gradient; the parameters' gradients are the same as when the
// data needs one too, and so is the data's gradient when it does.
func TestCallLeavesOutGradientsNobodyNeeds(t *testing.T) {
	x := eager.RandomNormal(8, 784)
	grads := func(dataNeedsGrad bool) (map[string][]float64, []float64) {
		params := mlpParams()
		for _, p := range params {
			p.AttachGrad()
		}
		xx := x.Copy()
		if dataNeedsGrad {
			xx.AttachGrad()
		}
		call := mlpCall(t, xx, params, true, graph.CompileOptions{})
		var loss *eager.NDArray
		eager.Record(func() { loss = eager.F.Sum(call()[0]).(*eager.NDArray) })
		if err := loss.Backward(); err != nil {
			t.Fatal(err)
		}
		out := map[string][]float64{}
		for k, p := range params {
			out[k] = p.Grad().Float64s()
		}
		var dx []float64
		if dataNeedsGrad {
			dx = xx.Grad().Float64s()
		}
		return out, dx
	}
	without, _ := grads(false)
	with, dx := grads(true)
	for k := range with {
		if d := optest.FirstDiff(without[k], with[k], 1e-6, 1e-7); d >= 0 {
			t.Errorf("%s: gradient differs at %d when the data needs none", k, d)
		}
	}
	nonzero := false
	for _, v := range dx {
		nonzero = nonzero || v != 0
	}
	if !nonzero {
		t.Error("the data's gradient is all zeros when it needs one")
	}
}

// Backward differentiates the latest Forward, whatever ran between them:
// a call outside the tape on other data, or a call on the tape. Forward
// keeps every gradient even inside Record.
func TestBackwardFollowsTheLatestForward(t *testing.T) {
	params := mlpParams()
	x2, y2 := eager.RandomNormal(2, 784), eager.RandomNormal(2, 784)
	cop, args := mlpExec(t, x2, params, false, graph.CompileOptions{})
	argsOf := func(x *eager.NDArray) []*eager.NDArray {
		a := append([]*eager.NDArray(nil), args...)
		for i, name := range cop.InputNames() {
			if name == "data" {
				a[i] = x
			}
		}
		return a
	}
	head := eager.Ones(2, 10)
	backward := func(between func()) []*eager.NDArray {
		if _, err := cop.Forward(true, argsOf(x2)...); err != nil {
			t.Fatal(err)
		}
		between()
		grads, err := cop.Backward(head)
		if err != nil {
			t.Fatal(err)
		}
		return grads
	}
	want := backward(func() {})
	for name, between := range map[string]func(){
		"a call on other data": func() { cop.Call(argsOf(y2)...) },
		"a call on the tape": func() {
			for _, p := range params {
				p.AttachGrad()
			}
			eager.Record(func() { cop.Call(argsOf(y2)...) })
		},
	} {
		got := backward(between)
		for i := range want {
			if (got[i] == nil) != (want[i] == nil) {
				t.Fatalf("after %s: gradient %d is %v, want %v", name, i, got[i], want[i])
			}
			if want[i] != nil {
				if k := optest.FirstDiff(got[i].Float64s(), want[i].Float64s(), 0, 0); k >= 0 {
					t.Fatalf("after %s: gradient %d differs at %d", name, i, k)
				}
			}
		}
	}
	var grads []*eager.NDArray
	eager.Record(func() {
		if _, err := cop.Forward(true, argsOf(x2)...); err != nil {
			t.Fatal(err)
		}
	})
	grads, err := cop.Backward(head)
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range cop.InputNames() {
		if grads[i] == nil {
			t.Errorf("Forward inside Record: Backward gives no gradient for %s", name)
		}
	}
}

// A second Backward of one Forward computes the forward again (the first
// reused its buffers), which a graph that draws random numbers cannot:
// it says so instead of giving other gradients.
func TestSecondBackwardOfARandomGraphIsRefused(t *testing.T) {
	tr := graph.NewTracer()
	x := graph.Var("x", ops.Shape{4, 8}, ops.Float32)
	y := tr.F().Dropout(tr.F().Relu(x), 0.5)
	x2 := eager.RandomNormal(4, 8)
	cop, _ := compileFor(t, y.(*graph.Symbol), map[string]*eager.NDArray{"x": x2}, false, graph.CompileOptions{})
	if _, err := cop.Forward(true, x2); err != nil {
		t.Fatal(err)
	}
	head := eager.Ones(4, 8)
	if _, err := cop.Backward(head); err != nil {
		t.Fatal(err)
	}
	_, err := cop.Backward(head)
	if err == nil || !strings.Contains(err.Error(), "random numbers") || !strings.Contains(err.Error(), "run the forward again") {
		t.Fatalf("a second Backward of a graph with Dropout: got %v, want an error that says why and what to do", err)
	}
}
