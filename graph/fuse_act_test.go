package graph_test

import (
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/internal/optest"
	"github.com/hybridgo/hybridgo/ops"
)

// layers traces conv -> relu -> flatten -> dense -> Activation(relu) ->
// dense, plus a dense whose output is read twice (by its relu and by an
// add), which must not be fused.
func layers(t *testing.T) (*graph.Graph, map[string]*eager.NDArray) {
	t.Helper()
	tr := graph.NewTracer()
	F := tr.F()
	x := graph.Var("x", ops.Shape{3, 2, 7, 6}, ops.Float32)
	v := func(name string, shape ...int) ops.Tensor { return graph.Var(name, ops.Shape(shape), ops.Float32) }
	h := F.Relu(F.Convolution(x, v("cw", 4, 2, 3, 3), v("cb", 4), []int{3, 3}, 4, ops.Attr{Name: "pad", Value: []int{1, 1}}))
	h = F.Flatten(h)
	h = F.Activation(F.FullyConnected(h, v("w1", 5, 168), v("b1", 5), 5), "relu")
	d := F.FullyConnected(h, v("w2", 3, 5), v("b2", 3), 3)
	y := F.Add(F.Relu(d), d)
	eager.Seed(3)
	bind := map[string]*eager.NDArray{
		"x": eager.RandomNormal(3, 2, 7, 6), "cw": eager.RandomNormal(4, 2, 3, 3), "cb": eager.RandomNormal(4),
		"w1": eager.RandomNormal(5, 168), "b1": eager.RandomNormal(5), "w2": eager.RandomNormal(3, 5), "b2": eager.RandomNormal(3),
	}
	return y.(*graph.Symbol).Graph(), bind
}

func TestFuseActivation(t *testing.T) {
	g, bind := layers(t)
	g, _, err := graph.InferShapes(g)
	if err != nil {
		t.Fatal(err)
	}
	before := g.String()
	out, rep := graph.FuseActivation(g)
	if len(rep.Changes) != 2 {
		t.Fatalf("want 2 fusions (conv and the first dense), got:\n%s", rep)
	}
	text := out.String()
	for _, want := range []string{"_fused_Convolution_relu(", "_fused_FullyConnected_relu(", "FullyConnected(", "relu("} {
		if !strings.Contains(text, want) {
			t.Errorf("fused graph lacks %s:\n%s", want, text)
		}
	}
	if strings.Count(text, "_fused_") != 2 {
		t.Errorf("the dense read twice was fused:\n%s", text)
	}
	checkText(t, "input unchanged", g.String(), before)
	for _, n := range out.Nodes {
		if !n.IsVar() && strings.HasPrefix(n.Op.Name(), "_fused_") {
			if _, ok := ops.Lookup(n.Op.Name()); ok {
				t.Errorf("%s is registered", n.Op.Name())
			}
		}
	}
	evalSame(t, "fused layers", g, out, bind)
	if _, rep := graph.FuseActivation(out); len(rep.Changes) != 0 {
		t.Errorf("second run is not at the fixed point: %s", rep)
	}
}

// A cached graph with its layers fused gives the same outputs and
// gradients as one compiled without passes.
func TestFuseActivationGradients(t *testing.T) {
	g, bind := layers(t)
	sym := graph.FromEntries(g.Outputs...)
	run := func(passes *graph.PassOptions) (outs, grads []*eager.NDArray) {
		cop, args := compileFor(t, sym, bind, false, graph.CompileOptions{Passes: passes})
		outs, err := cop.Forward(true, args...)
		if err != nil {
			t.Fatal(err)
		}
		grads, err = cop.Backward(eager.Ones(outs[0].Shape()...))
		if err != nil {
			t.Fatal(err)
		}
		return outs, grads
	}
	all := graph.DefaultPassOptions()
	wantOut, wantGrad := run(&graph.PassOptions{})
	gotOut, gotGrad := run(&all)
	if k := optest.FirstDiff(gotOut[0].Float64s(), wantOut[0].Float64s(), 1e-6, 1e-5); k >= 0 {
		t.Errorf("output differs at %d", k)
	}
	for i := range wantGrad {
		if (wantGrad[i] == nil) != (gotGrad[i] == nil) {
			t.Fatalf("gradient %d: presence differs", i)
		}
		if wantGrad[i] == nil {
			continue
		}
		if k := optest.FirstDiff(gotGrad[i].Float64s(), wantGrad[i].Float64s(), 1e-5, 1e-4); k >= 0 {
			t.Errorf("gradient %d differs at %d: %v, want %v", i, k, gotGrad[i].Float64s()[k], wantGrad[i].Float64s()[k])
		}
	}
}

// Calls reuse their buffers: calls that the tape does not record at once,
// calls on the tape once Backward released them. Results stay right call
// after call, also for a kernel that accumulates into its output, and
// unrecorded calls match recorded ones.
func TestCallRecyclesBuffers(t *testing.T) {
	tr := graph.NewTracer()
	F := tr.F()
	x := graph.Var("x", ops.Shape{2, 3, 4, 4}, ops.Float32)
	w := graph.Var("w", ops.Shape{3, 2, 3, 3}, ops.Float32)
	// An op whose kernel adds into its output, as scatter-adds may: it
	// needs a cleared buffer. It comes first, so that its buffer is not
	// one the memory plan shares with another value.
	// Its gradient is the same op, so that the backward half has one too.
	var acc *ops.Op
	acc = ops.Define(ops.Def[ops.NoAttrs]{
		Name: "_test_accumulate", Inputs: []string{"data"}, Accumulates: true,
		Grad: func(f ops.F, a *ops.NoAttrs, _, _, g []ops.Tensor) []ops.Tensor {
			out, err := f.Apply(acc, a, g[0])
			if err != nil {
				panic(err)
			}
			return out
		},
		Shape: func(_ *ops.NoAttrs, in []ops.Shape) ([]ops.Shape, error) { return []ops.Shape{in[0].Clone()}, nil },
		Kernel: func(_ *ops.Env, _ *ops.NoAttrs, in, out []ops.Value) error {
			o, v := out[0].Data.([]float32), in[0].Data.([]float32)
			for i := range o {
				o[i] += v[i]
			}
			return nil
		},
	})
	outs, err := F.Apply(acc, &ops.NoAttrs{}, x)
	if err != nil {
		t.Fatal(err)
	}
	y := F.Relu(F.Deconvolution(outs[0], w, nil, []int{3, 3}, 2, ops.Attr{Name: "stride", Value: []int{2, 2}}))
	y = F.Add(F.Sum(y, ops.Axis(1)), F.MulScalar(F.Sum(y, ops.Axis(1)), 0.5))
	eager.Seed(9)
	wv := eager.RandomNormal(3, 2, 3, 3)
	// Forward, then Backward twice on its values: the second finds the
	// first's gradients in its buffers.
	xv := eager.RandomNormal(2, 3, 4, 4)
	cop, args := compileFor(t, y.(*graph.Symbol), map[string]*eager.NDArray{"x": xv, "w": wv}, false, graph.CompileOptions{})
	if _, err := cop.Forward(true, args...); err != nil {
		t.Fatal(err)
	}
	head := eager.Ones(2, 9, 9)
	var first [][]float64
	for run := range 2 {
		grads, err := cop.Backward(head)
		if err != nil {
			t.Fatal(err)
		}
		for j, g := range grads {
			if run == 0 {
				first = append(first, g.Float64s())
			} else if k := optest.FirstDiff(g.Float64s(), first[j], 0, 0); k >= 0 {
				t.Fatalf("a second Backward: gradient %d element %d = %v, the first gave %v", j, k, g.Float64s()[k], first[j][k])
			}
		}
	}
	for i := range 4 {
		xv := eager.RandomNormal(2, 3, 4, 4)
		bind := map[string]*eager.NDArray{"x": xv, "w": wv}
		got, err := cop.Call(argsIn(cop, bind)...)
		if err != nil {
			t.Fatal(err)
		}
		var want []*eager.NDArray
		xv.AttachGrad()
		eager.Record(func() { want, err = cop.Call(argsIn(cop, bind)...) })
		if err != nil {
			t.Fatal(err)
		}
		if k := optest.FirstDiff(got[0].Float64s(), want[0].Float64s(), 0, 0); k >= 0 {
			t.Fatalf("call %d: element %d = %v, want %v", i, k, got[0].Float64s()[k], want[0].Float64s()[k])
		}
		// Backward releases the call: the next one on the tape reuses its
		// buffers. The gradient must not see an earlier call's values.
		if err := want[0].Backward(); err != nil {
			t.Fatal(err)
		}
		g := xv.Grad().Float64s()
		xv.AttachGrad()
		var again []*eager.NDArray
		eager.Record(func() { again, err = cop.Call(argsIn(cop, bind)...) })
		if err != nil {
			t.Fatal(err)
		}
		if err := eager.Backward([]*eager.NDArray{again[0]}, nil, true); err != nil {
			t.Fatal(err)
		}
		if k := optest.FirstDiff(xv.Grad().Float64s(), g, 0, 0); k >= 0 {
			t.Fatalf("call %d: gradient element %d = %v on a reused frame, %v on a fresh one", i, k, xv.Grad().Float64s()[k], g[k])
		}
		// A second backward of the same call (retainGraph) gives the same.
		if err := again[0].Backward(); err != nil {
			t.Fatal(err)
		}
		if k := optest.FirstDiff(xv.Grad().Float64s(), g, 0, 0); k >= 0 {
			t.Fatalf("call %d: gradient element %d = %v from a second backward, want %v", i, k, xv.Grad().Float64s()[k], g[k])
		}
	}
}
