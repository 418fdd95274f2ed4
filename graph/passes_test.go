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

// node returns the node behind a traced tensor.
func node(t ops.Tensor) *graph.Node { return t.(*graph.Symbol).Entries()[0].Node }

// outputs makes graph outputs of traced tensors.
func outputs(ts ...ops.Tensor) []graph.Entry {
	var es []graph.Entry
	for _, t := range ts {
		es = append(es, t.(*graph.Symbol).Entries()...)
	}
	return es
}

// checkText compares a printed result with its golden text.
func checkText(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s:\n%s\nwant:\n%s", what, got, want)
	}
}

// evalSame evaluates two graphs on the same bindings and requires equal
// outputs, bit for bit (NaN matching NaN).
func evalSame(t *testing.T, what string, a, b *graph.Graph, bind map[string]*eager.NDArray) {
	t.Helper()
	evalSameFrom(t, what, a, b, bind, func() {})
}

// evalSameFrom is evalSame for graphs of ops that update inputs in place:
// restore puts those inputs back after each evaluation.
func evalSameFrom(t *testing.T, what string, a, b *graph.Graph, bind map[string]*eager.NDArray, restore func()) {
	t.Helper()
	want, err := graph.Eval(a, bind, false)
	restore()
	if err != nil {
		t.Errorf("%s: reference eval: %v", what, err)
		return
	}
	got, err := graph.Eval(b, bind, false)
	restore()
	if err != nil {
		t.Errorf("%s: eval: %v", what, err)
		return
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d outputs, want %d", what, len(got), len(want))
		return
	}
	for i := range want {
		if !got[i].Shape().Equal(want[i].Shape()) || got[i].DType() != want[i].DType() {
			t.Errorf("%s: output %d is %v %v, want %v %v", what, i, got[i].Shape(), got[i].DType(), want[i].Shape(), want[i].DType())
			continue
		}
		if k := optest.FirstDiff(got[i].Float64s(), want[i].Float64s(), 0, 0); k >= 0 {
			t.Errorf("%s: output %d differs at %d: %v, want %v", what, i, k, got[i].Float64s()[k], want[i].Float64s()[k])
		}
	}
}

func TestPassReportString(t *testing.T) {
	checkText(t, "none", graph.PassReport{Name: "EliminateDeadCode"}.String(), "EliminateDeadCode: no changes")
	checkText(t, "one", graph.PassReport{Name: "P", Changes: []string{"a"}}.String(), "P: 1 change\n  a")
	checkText(t, "two", graph.PassReport{Name: "P", Changes: []string{"a", "b"}}.String(), "P: 2 changes\n  a\n  b")
}

func TestInferShapes(t *testing.T) {
	// Build by hand: op nodes with nothing inferred yet, parameters of
	// unknown shape and dtype.
	x := &graph.Node{Name: "x", Shapes: []ops.Shape{{2, 3}}, DTypes: []ops.DType{ops.Float32}}
	w := &graph.Node{Name: "w", Shapes: []ops.Shape{nil}, DTypes: []ops.DType{ops.Unknown}}
	b := &graph.Node{Name: "b", Shapes: []ops.Shape{nil}, DTypes: []ops.DType{ops.Unknown}}
	fcOp, scOp := ops.MustLookup("FullyConnected"), ops.MustLookup("_plus_scalar")
	fcAttrs, err := fcOp.MakeAttrs(ops.Attr{Name: "num_hidden", Value: 4})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scOp.MakeAttrs(ops.Attr{Name: "scalar", Value: 1.5})
	if err != nil {
		t.Fatal(err)
	}
	relu := &graph.Node{Name: "relu0", Op: ops.MustLookup("relu"), Attrs: &ops.NoAttrs{}, Inputs: []graph.Entry{{Node: x}}}
	fc := &graph.Node{Name: "fc0", Op: fcOp, Attrs: fcAttrs, Inputs: []graph.Entry{{Node: relu}, {Node: w}, {Node: b}}}
	plus := &graph.Node{Name: "_plus_scalar0", Op: scOp, Attrs: sc, Inputs: []graph.Entry{{Node: fc}}}
	g := &graph.Graph{Nodes: []*graph.Node{x, relu, w, b, fc, plus}, Outputs: []graph.Entry{{Node: plus}}}
	out, rep, err := graph.InferShapes(g)
	if err != nil {
		t.Fatal(err)
	}
	checkText(t, "report", rep.String(), `InferShapes: 5 changes
  inferred relu0: 2x3 float32
  inferred w: 4x3 float32
  inferred b: 4 float32
  inferred fc0: 2x4 float32
  inferred _plus_scalar0: 2x4 float32`)
	checkText(t, "listing", out.String(), `graph(x: 2x3 float32, w: 4x3 float32, b: 4 float32):
  %relu0 = relu(%x)  # 2x3 float32
  %fc0 = FullyConnected(%relu0, %w, %b; num_hidden=4)  # 2x4 float32
  %_plus_scalar0 = _plus_scalar(%fc0; scalar=1.5)  # 2x4 float32
  return %_plus_scalar0
`)
	if relu.Shapes != nil || w.Shapes[0] != nil {
		t.Error("InferShapes changed its input graph")
	}
	// A second run has nothing left to infer.
	if _, rep, _ := graph.InferShapes(out); len(rep.Changes) != 0 {
		t.Errorf("second run: %s", rep)
	}
	// Errors name the node.
	bad := &graph.Node{Name: "dot0", Op: ops.MustLookup("dot"), Attrs: ops.MustLookup("dot").DefaultAttrs(), Inputs: []graph.Entry{{Node: x}, {Node: x}}}
	if _, _, err := graph.InferShapes(&graph.Graph{Nodes: []*graph.Node{x, bad}, Outputs: []graph.Entry{{Node: bad}}}); err == nil || !strings.Contains(err.Error(), "node dot0") {
		t.Errorf("bad graph: %v", err)
	}
}

func TestEliminateDeadCode(t *testing.T) {
	tr := graph.NewTracer()
	F := tr.F()
	x := graph.Var("x", ops.Shape{2, 3}, ops.Float32)
	w := graph.Var("w", ops.Shape{4}, ops.Float32)
	r := F.Relu(x)
	dead := F.Tanh(x)
	deadToo := F.Exp(dead)
	y := F.MulScalar(r, 2)
	g := &graph.Graph{
		Nodes:   []*graph.Node{node(x), node(w), node(r), node(dead), node(deadToo), node(y)},
		Outputs: outputs(y),
	}
	before := g.String()
	checkText(t, "before", before, `graph(x: 2x3 float32, w: 4 float32):
  %relu0 = relu(%x)  # 2x3 float32
  %tanh0 = tanh(%x)  # 2x3 float32
  %exp0 = exp(%tanh0)  # 2x3 float32
  %_mul_scalar0 = _mul_scalar(%relu0; scalar=2.0)  # 2x3 float32
  return %_mul_scalar0
`)
	out, rep := graph.EliminateDeadCode(g)
	checkText(t, "after", out.String(), `graph(x: 2x3 float32):
  %relu0 = relu(%x)  # 2x3 float32
  %_mul_scalar0 = _mul_scalar(%relu0; scalar=2.0)  # 2x3 float32
  return %_mul_scalar0
`)
	checkText(t, "report", rep.String(), `EliminateDeadCode: 3 changes
  removed unused variable w
  removed dead node tanh0
  removed dead node exp0`)
	checkText(t, "input unchanged", g.String(), before)
	for _, n := range out.Nodes {
		for _, m := range g.Nodes {
			if n == m {
				t.Errorf("node %s is shared with the input graph", n.Name)
			}
		}
	}
	if _, rep := graph.EliminateDeadCode(out); len(rep.Changes) != 0 {
		t.Errorf("second run: %s", rep)
	}
	evalSame(t, "dce", g, out, map[string]*eager.NDArray{"x": eager.Array([]float32{-1, 2, -3, 4, -5, 6}, 2, 3), "w": eager.Zeros(4)})
}

func TestEliminateCommonSubexpressions(t *testing.T) {
	tr := graph.NewTracer()
	F := tr.F()
	x := graph.Var("x", ops.Shape{2, 3}, ops.Float32)
	a := F.PlusScalar(F.Relu(x), 1)
	b := F.PlusScalar(F.Relu(x), 1) // the same as a
	c := F.PlusScalar(F.Relu(x), 2) // a different scalar
	n1 := F.RandomNormal(0, 1, ops.Shape{2, 3})
	n2 := F.RandomNormal(0, 1, ops.Shape{2, 3}) // random: never merged
	y := F.Add(F.Add(a, b), F.Add(c, F.Add(n1, n2)))
	g := y.(*graph.Symbol).Graph()
	before := g.String()
	out, rep := graph.EliminateCommonSubexpressions(g)
	checkText(t, "report", rep.String(), `EliminateCommonSubexpressions: 3 changes
  merged relu1 into relu0
  merged _plus_scalar1 into _plus_scalar0
  merged relu2 into relu0`)
	checkText(t, "after", out.String(), `graph(x: 2x3 float32):
  %relu0 = relu(%x)  # 2x3 float32
  %_plus_scalar0 = _plus_scalar(%relu0)  # 2x3 float32
  %broadcast_add0 = broadcast_add(%_plus_scalar0, %_plus_scalar0)  # 2x3 float32
  %_plus_scalar2 = _plus_scalar(%relu0; scalar=2.0)  # 2x3 float32
  %_random_normal0 = _random_normal(; shape=(2, 3))  # 2x3 float32
  %_random_normal1 = _random_normal(; shape=(2, 3))  # 2x3 float32
  %broadcast_add1 = broadcast_add(%_random_normal0, %_random_normal1)  # 2x3 float32
  %broadcast_add2 = broadcast_add(%_plus_scalar2, %broadcast_add1)  # 2x3 float32
  %broadcast_add3 = broadcast_add(%broadcast_add0, %broadcast_add2)  # 2x3 float32
  return %broadcast_add3
`)
	checkText(t, "input unchanged", g.String(), before)
	if _, rep := graph.EliminateCommonSubexpressions(out); len(rep.Changes) != 0 {
		t.Errorf("second run: %s", rep)
	}

	// Merged nodes feeding several outputs: both outputs read one entry.
	tr = graph.NewTracer()
	F = tr.F()
	p, q := F.Tanh(x), F.Tanh(x)
	out, _ = graph.EliminateCommonSubexpressions(graph.NewGraph(outputs(p, q)))
	if out.Outputs[0] != out.Outputs[1] || len(out.Nodes) != 2 {
		t.Errorf("two tanh outputs:\n%s", out)
	}
	evalSame(t, "cse outputs", graph.NewGraph(outputs(p, q)), out,
		map[string]*eager.NDArray{"x": eager.Array([]float32{-1, 2, -3, 4, -5, 6}, 2, 3)})
}

func TestFoldConstants(t *testing.T) {
	tr := graph.NewTracer()
	F := tr.F()
	x := graph.Var("x", ops.Shape{3}, ops.Float64)
	c := eager.Array([]float64{1, 2, 3})
	k := F.Exp(F.PlusScalar(c, 1)) // constant: folded
	y := F.Add(F.Mul(x, k), F.Relu(x))
	g := y.(*graph.Symbol).Graph()
	before := g.String()
	checkText(t, "before", before, `graph(x: 3 float64, const0: 3 float64 const):
  %_plus_scalar0 = _plus_scalar(%const0)  # 3 float64
  %exp0 = exp(%_plus_scalar0)  # 3 float64
  %broadcast_mul0 = broadcast_mul(%x, %exp0)  # 3 float64
  %relu0 = relu(%x)  # 3 float64
  %broadcast_add0 = broadcast_add(%broadcast_mul0, %relu0)  # 3 float64
  return %broadcast_add0
`)
	folded, rep := graph.FoldConstants(g)
	checkText(t, "report", rep.String(), `FoldConstants: 2 changes
  folded _plus_scalar0 (constant 3 float64)
  folded exp0 (constant 3 float64)`)
	out, rep := graph.EliminateDeadCode(folded)
	checkText(t, "dce report", rep.String(), `EliminateDeadCode: 2 changes
  removed unused variable const0
  removed unused variable _plus_scalar0`)
	checkText(t, "after", out.String(), `graph(x: 3 float64, exp0: 3 float64 const):
  %broadcast_mul0 = broadcast_mul(%x, %exp0)  # 3 float64
  %relu0 = relu(%x)  # 3 float64
  %broadcast_add0 = broadcast_add(%broadcast_mul0, %relu0)  # 3 float64
  return %broadcast_add0
`)
	checkText(t, "input unchanged", g.String(), before)
	if _, rep := graph.FoldConstants(out); len(rep.Changes) != 0 {
		t.Errorf("second run is not at the fixed point: %s", rep)
	}
	if got := fmt.Sprint(out.Inputs()[1].Value.Float64s()); got != fmt.Sprint(eager.F.Exp(eager.Array([]float64{2, 3, 4})).Float64s()) {
		t.Errorf("folded value %v", got)
	}
	evalSame(t, "fold", g, out, map[string]*eager.NDArray{"x": eager.Array([]float64{-1, 0.5, 2})})

	// Random ops are never folded, even with constant inputs.
	tr = graph.NewTracer()
	r := tr.F().RandomNormal(0, 1, ops.Shape{2})
	if _, rep := graph.FoldConstants(r.(*graph.Symbol).Graph()); len(rep.Changes) != 0 {
		t.Errorf("random op folded: %s", rep)
	}
}

// chain traces x -> _plus_scalar -> tanh -> _mul_scalar -> relu.
func chain(dt ops.DType) (*graph.Graph, map[string]*eager.NDArray) {
	tr := graph.NewTracer()
	F := tr.F()
	x := graph.Var("x", ops.Shape{2, 3}, dt)
	y := F.Relu(F.MulScalar(F.Tanh(F.PlusScalar(x, 0.25)), 3))
	xs := eager.Array(ops.FromFloat64s(dt, []float64{-1.5, -0.3, 0, 0.1, 0.7, 2.2}), 2, 3)
	return y.(*graph.Symbol).Graph(), map[string]*eager.NDArray{"x": xs}
}

func TestFuseChain(t *testing.T) {
	g, bind := chain(ops.Float64)
	before := g.String()
	out, rep := graph.FuseElementwise(g)
	checkText(t, "report", rep.String(), `FuseElementwise: 1 change
  fused _plus_scalar0 -> tanh0 -> _mul_scalar0 -> relu0 into fused0`)
	checkText(t, "after", out.String(), `graph(x: 2x3 float64):
  %fused0 = _fused_elemwise(%x; nodes=_plus_scalar0,tanh0,_mul_scalar0,relu0)  # 2x3 float64
  return %fused0
`)
	checkText(t, "input unchanged", g.String(), before)
	fused := out.Nodes[1]
	checkText(t, "doc", fused.Op.Doc(), "Fused element-wise loop (made by FuseElementwise, not registered; no gradient) over in0..in0: "+
		"_plus_scalar0 = _plus_scalar(in0; is_int=False scalar=0.25); tanh0 = tanh(_plus_scalar0); _mul_scalar0 = _mul_scalar(tanh0; scalar=3.0); relu0 = relu(_mul_scalar0).")
	if _, ok := ops.Lookup("_fused_elemwise"); ok {
		t.Error("the fused op is registered")
	}
	if fused.Op.Differentiable() {
		t.Error("the fused op claims a gradient")
	}
	if _, err := fused.Op.Gradient(eager.F, fused.Attrs, nil, nil, nil); err == nil || !strings.Contains(err.Error(), "no gradient rule") {
		t.Errorf("gradient: %v", err)
	}
	evalSame(t, "fused float64", g, out, bind)
	g32, bind32 := chain(ops.Float32)
	out32, _ := graph.FuseElementwise(g32)
	if len(out32.Nodes) != 2 {
		t.Errorf("float32 chain not fused:\n%s", out32)
	}
	evalSame(t, "fused float32", g32, out32, bind32)
	// A batch dim unknown when fusing is taken from the data when it runs.
	tr0 := graph.NewTracer()
	xu := graph.Var("x", ops.Shape{0, 3}, ops.Float64)
	yu := tr0.F().Relu(tr0.F().MulScalar(tr0.F().Tanh(xu), 3))
	gu := yu.(*graph.Symbol).Graph()
	outu, _ := graph.FuseElementwise(gu)
	checkText(t, "unknown batch", outu.String(), `graph(x: ?x3 float64):
  %fused0 = _fused_elemwise(%x; nodes=tanh0,_mul_scalar0,relu0)  # ?x3 float64
  return %fused0
`)
	evalSame(t, "unknown batch", gu, outu, map[string]*eager.NDArray{"x": eager.Array([]float64{-2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 4, 3)})
	// Other dtypes are not fused.
	tr := graph.NewTracer()
	xi := graph.Var("x", ops.Shape{4}, ops.Int32)
	yi := tr.F().Relu(tr.F().Negative(xi))
	if _, rep := graph.FuseElementwise(yi.(*graph.Symbol).Graph()); len(rep.Changes) != 0 {
		t.Errorf("int32 fused: %s", rep)
	}
}

func TestFuseKeepsResultsUsedOutside(t *testing.T) {
	tr := graph.NewTracer()
	F := tr.F()
	x := graph.Var("x", ops.Shape{2, 3}, ops.Float64)
	b := F.Tanh(F.PlusScalar(x, 1))
	y := F.Relu(F.MulScalar(b, 2))
	s := F.Sum(b) // reads the intermediate tanh
	g := graph.NewGraph(outputs(y, s))
	out, rep := graph.FuseElementwise(g)
	checkText(t, "report", rep.String(), `FuseElementwise: 2 changes
  fused _plus_scalar0 -> tanh0 into fused0
  fused _mul_scalar0 -> relu0 into fused1`)
	checkText(t, "after", out.String(), `graph(x: 2x3 float64):
  %fused0 = _fused_elemwise(%x; nodes=_plus_scalar0,tanh0)  # 2x3 float64
  %fused1 = _fused_elemwise(%fused0; nodes=_mul_scalar0,relu0)  # 2x3 float64
  %sum0 = sum(%fused0)  # 1 float64
  return %fused1, %sum0
`)
	bind := map[string]*eager.NDArray{"x": eager.Array([]float64{-2, -1, 0, 1, 2, 3}, 2, 3)}
	evalSame(t, "used outside", g, out, bind)

	// A graph output inside a chain stays an output.
	g = graph.NewGraph(outputs(y, b))
	out, _ = graph.FuseElementwise(g)
	if len(out.Outputs) != 2 || out.Outputs[1].Node.Op.Name() != "_fused_elemwise" || !strings.Contains(out.String(), "nodes=_plus_scalar0,tanh0)") {
		t.Errorf("output inside a chain:\n%s", out)
	}
	evalSame(t, "output inside", g, out, bind)
}

func TestFuseTreeWithBroadcasting(t *testing.T) {
	for _, dt := range []ops.DType{ops.Float64, ops.Float32} {
		tr := graph.NewTracer()
		F := tr.F()
		x := graph.Var("x", ops.Shape{2, 3, 4}, dt)
		y := graph.Var("y", ops.Shape{3, 1}, dt)
		z := graph.Var("z", ops.Shape{4}, dt)
		// x is read twice; y and z broadcast; a comparison joins in.
		e := F.Mul(F.Tanh(F.Add(x, y)), F.Sigmoid(x))
		r := F.Add(F.Mul(e, F.GreaterScalar(z, 0)), F.Square(y))
		g := r.(*graph.Symbol).Graph()
		out, rep := graph.FuseElementwise(g)
		if len(rep.Changes) != 1 || len(out.Nodes) != 4 {
			t.Fatalf("%v: not one fused node:\n%s\n%s", dt, out, rep)
		}
		fused := out.Nodes[3]
		if len(fused.Inputs) != 3 {
			t.Errorf("%v: fused inputs %v", dt, fused.Inputs)
		}
		bind := map[string]*eager.NDArray{}
		for i, name := range []string{"x", "y", "z"} {
			shape := []ops.Shape{{2, 3, 4}, {3, 1}, {4}}[i]
			vals := make([]float64, shape.Size())
			for j := range vals {
				vals[j] = float64((j*7+i*3)%11)/5 - 1
			}
			bind[name] = eager.Array(ops.FromFloat64s(dt, vals), shape...)
		}
		evalSame(t, fmt.Sprint("tree ", dt), g, out, bind)
	}
}

// Large outputs run in parallel chunks; each chunk starts its broadcast
// offsets at its own first element.
func TestFuseLargeBroadcast(t *testing.T) {
	tr := graph.NewTracer()
	F := tr.F()
	x := graph.Var("x", ops.Shape{3, 7, 5000}, ops.Float32)
	y := graph.Var("y", ops.Shape{7, 1}, ops.Float32)
	r := F.Relu(F.MulScalar(F.Tanh(F.Sub(x, y)), 1.5))
	g := r.(*graph.Symbol).Graph()
	out, rep := graph.FuseElementwise(g)
	if len(rep.Changes) != 1 {
		t.Fatalf("not fused: %s", rep)
	}
	xs := make([]float64, 3*7*5000)
	for i := range xs {
		xs[i] = float64(i%97)/40 - 1
	}
	bind := map[string]*eager.NDArray{
		"x": eager.Array(ops.FromFloat64s(ops.Float32, xs), 3, 7, 5000),
		"y": eager.Array([]float32{-0.5, -0.25, 0, 0.25, 0.5, 0.75, 1}, 7, 1),
	}
	evalSame(t, "large", g, out, bind)
}

// The shape of BatchNorm's input gradient, whose fused form the backward
// of a convolutional network runs: NCHW values, per-channel statistics
// that broadcast, the four arithmetic ops (typed loops over a block) and
// one op called per element. Runs along the last dim start and end
// inside blocks and parallel chunks; every value equals the unfused
// graph's exactly.
func TestFuseBatchNormGradShape(t *testing.T) {
	for _, dt := range []ops.DType{ops.Float32, ops.Float64} {
		for _, shape := range []ops.Shape{{3, 5, 7, 9}, {2, 3, 61, 67}, {1, 4, 1, 1}, {2, 3, 2, 2}} {
			tr := graph.NewTracer()
			F := tr.F()
			c := ops.Shape{1, shape[1], 1, 1}
			x := graph.Var("x", shape, dt)
			gy := graph.Var("gy", shape, dt)
			mean := graph.Var("mean", c, dt)
			scale := graph.Var("scale", c, dt)
			m := graph.Var("m", c, dt)
			row := graph.Var("row", ops.Shape{shape[3]}, dt)
			xhat := F.Mul(F.Sub(x, mean), scale)
			inner := F.Sub(F.Sub(gy, m), F.Mul(xhat, F.Div(m, scale)))
			r := F.Add(F.Mul(F.Sub(inner, mean), scale), F.Tanh(F.Div(row, F.PlusScalar(F.Abs(m), 1))))
			checkFusedOnce(t, fmt.Sprint("batchnorm grad ", dt, shape), r, dt, []fuseInput{
				{"x", shape}, {"gy", shape}, {"mean", c}, {"scale", c}, {"m", c}, {"row", ops.Shape{shape[3]}}})
		}
	}
}

// TestFuseBlockConstants checks the fused loop's per-channel terms, which
// it computes once per block where the block lies within a channel's
// run, against the unfused graph: runs longer than a block, shorter, and
// of one element.
func TestFuseBlockConstants(t *testing.T) {
	for _, dt := range []ops.DType{ops.Float32, ops.Float64} {
		for _, shape := range []ops.Shape{{2, 3, 40, 41}, {3, 5, 7, 9}, {2, 4, 1, 1}} {
			tr := graph.NewTracer()
			F := tr.F()
			c := ops.Shape{1, shape[1], 1, 1}
			x := graph.Var("x", shape, dt)
			mean := graph.Var("mean", c, dt)
			v := graph.Var("v", c, dt)
			r := F.Add(F.Mul(F.Sub(x, mean), F.Rsqrt(F.PlusScalar(F.Mul(v, v), 0.5))), F.Mul(mean, v))
			checkFusedOnce(t, fmt.Sprint("block constants ", dt, shape), r, dt, []fuseInput{{"x", shape}, {"mean", c}, {"v", c}})
		}
	}
}

// fuseInput names a variable of a graph checkFusedOnce evaluates, and
// its shape.
type fuseInput struct {
	name  string
	shape ops.Shape
}

// checkFusedOnce fuses the graph of r, checks that it became one fused
// node, and evaluates both graphs on the same values of inputs: they must
// agree exactly.
func checkFusedOnce(t *testing.T, what string, r ops.Tensor, dt ops.DType, inputs []fuseInput) {
	t.Helper()
	g := r.(*graph.Symbol).Graph()
	out, rep := graph.FuseElementwise(g)
	if len(rep.Changes) != 1 {
		t.Fatalf("%s: not one fused node: %s", what, rep)
	}
	bind := map[string]*eager.NDArray{}
	for i, in := range inputs {
		vals := make([]float64, in.shape.Size())
		for j := range vals {
			vals[j] = float64((j*13+i*5)%29)/7 - 2 + 0.1*float64(i)
		}
		bind[in.name] = eager.Array(ops.FromFloat64s(dt, vals), in.shape...)
	}
	evalSame(t, what, g, out, bind)
}
