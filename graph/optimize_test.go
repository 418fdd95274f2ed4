package graph_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/internal/optest"
	"github.com/hybridgo/hybridgo/ops"
)

// passSets are the option sets the registry walk runs: none, each pass
// alone, and all.
var passSets = []struct {
	name string
	opt  graph.PassOptions
}{
	{"none", graph.PassOptions{}},
	{"dce", graph.PassOptions{DCE: true}},
	{"cse", graph.PassOptions{CSE: true}},
	{"fold", graph.PassOptions{FoldConstants: true}},
	{"fuse", graph.PassOptions{Fuse: true}},
	{"all", graph.DefaultPassOptions()},
}

// optimizeSame optimizes g with every pass set and requires the same
// outputs as g, and a valid memory plan where shapes are known.
func optimizeSame(t *testing.T, what string, g *graph.Graph, bind map[string]*eager.NDArray, restore func()) map[string][]graph.PassReport {
	t.Helper()
	reports := map[string][]graph.PassReport{}
	for _, ps := range passSets {
		out, reps, err := graph.Optimize(g, ps.opt)
		if err != nil {
			t.Errorf("%s %s: %v", what, ps.name, err)
			continue
		}
		reports[ps.name] = reps
		evalSameFrom(t, what+" "+ps.name, g, out, bind, restore)
		p, _, err := graph.PlanMemory(out)
		if err != nil {
			t.Errorf("%s %s: plan: %v", what, ps.name, err)
			continue
		}
		checkPlan(t, what+" "+ps.name, out, p)
	}
	return reports
}

// changed reports whether the named pass changed anything.
func changed(reps []graph.PassReport, name string) bool {
	for _, r := range reps {
		if r.Name == name && len(r.Changes) > 0 {
			return true
		}
	}
	return false
}

// Every op sample, as a one-op graph, a duplicated op, an op on constants
// and (for element-wise ops) the head of a fusible chain, gives the same
// outputs with every pass set as without optimizing.
func TestRegistryOptimizeKeepsValues(t *testing.T) {
	cs, errs := optest.Cases()
	for _, err := range errs {
		t.Error(err)
	}
	ran, chains := 0, 0
	for _, c := range cs {
		if c.Op.Random() {
			continue
		}
		for _, dt := range []ops.DType{ops.Float64, ops.Float32} {
			in := c.Inputs(dt, 5)
			state := keepState(c, in)
			if _, err := eager.Run(c.Op, c.Attrs, in...); err != nil {
				continue // samples in this dtype that the op refuses
			}
			state.restore()
			name := fmt.Sprintf("%s %v", c.Name, dt)
			ran++

			sym, bind, err := traceCase(c, in, true)
			if err != nil {
				t.Errorf("%s: trace: %v", name, err)
				continue
			}
			optimizeSame(t, name+" one op", sym.Graph(), bind, state.restore)

			// The op twice on the same inputs: CSE merges it.
			tr := graph.NewTracer()
			vars := make([]ops.Tensor, len(in))
			for i, a := range in {
				vars[i] = graph.Var(fmt.Sprintf("in%d", i), a.Shape(), a.DType())
			}
			o1, err1 := tr.F().Apply(c.Op, c.Attrs, vars...)
			o2, err2 := tr.F().Apply(c.Op, c.Attrs, vars...)
			if err1 != nil || err2 != nil {
				t.Errorf("%s: trace twice: %v %v", name, err1, err2)
				continue
			}
			twice := graph.NewGraph(outputs(append(o1, o2...)...))
			reps := optimizeSame(t, name+" twice", twice, bind, state.restore)
			if len(c.Op.AuxInputs()) == 0 && !changed(reps["cse"], "EliminateCommonSubexpressions") {
				t.Errorf("%s: the duplicate was not merged", name)
			}

			// The op on constants: folding computes it.
			consts := make([]ops.Tensor, len(in))
			for i, a := range in {
				consts[i] = a
			}
			oc, err := graph.NewTracer().F().Apply(c.Op, c.Attrs, consts...)
			if err != nil {
				t.Errorf("%s: trace on constants: %v", name, err)
				continue
			}
			cg := graph.NewGraph(outputs(oc...))
			reps = optimizeSame(t, name+" constants", cg, nil, state.restore)
			if len(c.Op.AuxInputs()) == 0 && !changed(reps["fold"], "FoldConstants") {
				t.Errorf("%s: constant op was not folded", name)
			}

			// An element-wise op heads a chain that fuses.
			if _, ok := c.Op.ElemFunc(c.Attrs); ok && len(o1) == 1 {
				tr := graph.NewTracer()
				o, err := tr.F().Apply(c.Op, c.Attrs, vars...)
				if err != nil {
					t.Errorf("%s: trace chain: %v", name, err)
					continue
				}
				chains++
				y := tr.F().Tanh(tr.F().MulScalar(o[0], 0.5))
				reps := optimizeSame(t, name+" chain", graph.NewGraph(outputs(y)), bind, state.restore)
				if !changed(reps["fuse"], "FuseElementwise") {
					t.Errorf("%s: chain was not fused", name)
				}
			}
		}
	}
	if ran < 300 || chains < 100 {
		t.Errorf("only %d samples ran, %d element-wise chains", ran, chains)
	}
	t.Logf("%d samples, %d element-wise chains", ran, chains)
}

func TestOptimize(t *testing.T) {
	tr := graph.NewTracer()
	F := tr.F()
	x := graph.Var("x", ops.Shape{2, 3}, ops.Float32)
	bias := eager.Array([]float32{1, 2, 3})
	a := F.Relu(F.Add(x, F.MulScalar(bias, 2)))
	b := F.Relu(F.Add(x, F.MulScalar(bias, 2)))
	y := F.Sigmoid(F.Mul(a, b))
	g := y.(*graph.Symbol).Graph()
	before := g.String()
	checkText(t, "before", before, `graph(x: 2x3 float32, const0: 3 float32 const, const1: 3 float32 const):
  %_mul_scalar0 = _mul_scalar(%const0; scalar=2.0)  # 3 float32
  %broadcast_add0 = broadcast_add(%x, %_mul_scalar0)  # 2x3 float32
  %relu0 = relu(%broadcast_add0)  # 2x3 float32
  %_mul_scalar1 = _mul_scalar(%const1; scalar=2.0)  # 3 float32
  %broadcast_add1 = broadcast_add(%x, %_mul_scalar1)  # 2x3 float32
  %relu1 = relu(%broadcast_add1)  # 2x3 float32
  %broadcast_mul0 = broadcast_mul(%relu0, %relu1)  # 2x3 float32
  %sigmoid0 = sigmoid(%broadcast_mul0)  # 2x3 float32
  return %sigmoid0
`)
	out, reps, err := graph.Optimize(g, graph.DefaultPassOptions())
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, r := range reps {
		all = append(all, r.String())
	}
	checkText(t, "reports", strings.Join(all, "\n"), `InferShapes: no changes
EliminateDeadCode: no changes
EliminateCommonSubexpressions: no changes
FoldConstants: 2 changes
  folded _mul_scalar0 (constant 3 float32)
  folded _mul_scalar1 (constant 3 float32)
EliminateDeadCode: 2 changes
  removed unused variable const0
  removed unused variable const1
FuseActivation: no changes
FuseElementwise: 1 change
  fused broadcast_add0 -> relu0 -> broadcast_add1 -> relu1 -> broadcast_mul0 -> sigmoid0 into fused0`)
	checkText(t, "after", out.String(), `graph(x: 2x3 float32, _mul_scalar0: 3 float32 const, _mul_scalar1: 3 float32 const):
  %fused0 = _fused_elemwise(%x, %_mul_scalar0, %_mul_scalar1; nodes=broadcast_add0,relu0,broadcast_add1,relu1,broadcast_mul0,sigmoid0)  # 2x3 float32
  return %fused0
`)
	checkText(t, "input unchanged", g.String(), before)
	evalSame(t, "optimize", g, out, map[string]*eager.NDArray{"x": eager.Array([]float32{-3, -1, 0, 0.5, 1, 4}, 2, 3)})

	// Two traced uses of one constant array are one constant: CSE merges
	// what reads it, and folding then computes it once.
	tr = graph.NewTracer()
	F = tr.F()
	s := F.MulScalar(x, 3)
	y = F.Add(F.Exp(s), F.Exp(s))
	out, reps, err = graph.Optimize(y.(*graph.Symbol).Graph(), graph.PassOptions{CSE: true})
	if err != nil {
		t.Fatal(err)
	}
	checkText(t, "cse only", reps[1].String(), "EliminateCommonSubexpressions: 1 change\n  merged exp1 into exp0")
	if len(reps) != 2 || len(out.Nodes) != 4 {
		t.Errorf("cse only:\n%s", out)
	}
}

func TestOptimizeReportsInferenceErrors(t *testing.T) {
	x := &graph.Node{Name: "x", Shapes: []ops.Shape{{2, 3}}, DTypes: []ops.DType{ops.Float32}}
	dot := ops.MustLookup("dot")
	bad := &graph.Node{Name: "dot0", Op: dot, Attrs: dot.DefaultAttrs(), Inputs: []graph.Entry{{Node: x}, {Node: x}}}
	_, _, err := graph.Optimize(&graph.Graph{Nodes: []*graph.Node{x, bad}, Outputs: []graph.Entry{{Node: bad}}}, graph.DefaultPassOptions())
	if err == nil || !strings.Contains(err.Error(), "node dot0") {
		t.Errorf("got %v", err)
	}
}

// TestFusedLoopBroadcasts checks the fused elementwise loop on NCHW-style
// broadcasts (per-channel parameters, a row, a column, dims of size 1 in
// the output) against the unfused graph: the loop merges the dims that
// every input reads alike.
func TestFusedLoopBroadcasts(t *testing.T) {
	for _, tc := range []struct {
		x, s, u, v ops.Shape
	}{
		{ops.Shape{2, 3, 4, 5}, ops.Shape{1, 3, 1, 1}, ops.Shape{1, 1, 1, 5}, ops.Shape{2, 1, 4, 1}},
		{ops.Shape{2, 1, 4, 5}, ops.Shape{1, 1, 1, 1}, ops.Shape{2, 1, 4, 5}, ops.Shape{1, 1, 4, 1}},
		{ops.Shape{3, 7, 7}, ops.Shape{3, 1, 1}, ops.Shape{1, 7, 1}, ops.Shape{3, 7, 7}},
		{ops.Shape{64, 9}, ops.Shape{64, 1}, ops.Shape{1, 9}, ops.Shape{1, 1}},
	} {
		tr := graph.NewTracer()
		F := tr.F()
		names := []string{"x", "s", "u", "v"}
		shapes := []ops.Shape{tc.x, tc.s, tc.u, tc.v}
		vars := make([]ops.Tensor, 4)
		inputs := map[string]*eager.NDArray{}
		for i, name := range names {
			vars[i] = graph.Var(name, shapes[i], ops.Float32)
			data := make([]float32, shapes[i].Size())
			for j := range data {
				data[j] = float32((j*7+i*3)%11) - 5
			}
			inputs[name] = eager.Array(data, shapes[i]...)
		}
		x, s, u, v := vars[0], vars[1], vars[2], vars[3]
		y := F.Sub(F.Relu(F.Add(F.Mul(x, s), u)), F.Mul(v, x))
		g := y.(*graph.Symbol).Graph()
		out, _, err := graph.Optimize(g, graph.DefaultPassOptions())
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "_fused_elemwise") {
			t.Fatalf("%v: nothing fused:\n%s", tc.x, out)
		}
		evalSame(t, fmt.Sprint(tc.x), g, out, inputs)
	}
}
